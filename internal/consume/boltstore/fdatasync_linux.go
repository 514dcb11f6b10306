package boltstore

import (
	"os"
	"syscall"
)

// fdatasync makes f's data (and its size) durable without its other
// metadata, as bbolt does on Linux.
func fdatasync(f *os.File) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := c.Control(func(fd uintptr) { serr = syscall.Fdatasync(int(fd)) }); err != nil {
		return err
	}
	return serr
}
