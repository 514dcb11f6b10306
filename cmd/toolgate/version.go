package main

import (
	"fmt"
	"io"

	"github.com/toolgate/toolgate/internal/buildinfo"
)

// version prints the build's version, commit and Go version: the build
// information the Go toolchain embeds, overridden by -ldflags in release
// and image builds (internal/buildinfo).
func version(args []string, out io.Writer) error {
	if len(args) != 0 {
		return usageError{"version takes no arguments"}
	}
	_, err := fmt.Fprintln(out, buildinfo.Read())
	return err
}
