package standalone

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/serving"
)

// Key-set files (docs/decisions.md, "Key management"): one per domain in the
// key directory, <namespace>.<name>.keyset.json, mode 0600, the persisted
// serving.KeyState. A legacy <namespace>.<name>.ed25519 seed (one key, no
// rotation) is migrated into it on first use: the seed stays the active key
// and its identity the domain's instance, so Consumption records and
// artifacts issued before the upgrade stay valid.

// KeySetPath is the key-set file of the HostAuthority namespace/name.
func KeySetPath(keyDir, namespace, name string) string {
	return filepath.Join(keyDir, namespace+"."+name+".keyset.json")
}

func legacyKeyPath(keyDir, namespace, name string) string {
	return filepath.Join(keyDir, namespace+"."+name+".ed25519")
}

// ErrNoKeySet: the domain has no key-set file (and no legacy key) yet.
var ErrNoKeySet = errors.New("standalone: the domain has no key set yet; run serve once to create it")

// UpdateKeys applies change to the key set of namespace/name under an
// exclusive lock of the key directory and writes the result durably (a
// temporary file renamed over the old one). A missing key set is created
// (create true) or migrated from a legacy seed; change may return its
// argument unchanged, and then nothing is written. now prunes the keys
// whose retire time has passed before change sees the set.
func UpdateKeys(keyDir, namespace, name string, create bool, now time.Time, change func(*serving.KeyState) (*serving.KeyState, error)) (*serving.KeyState, error) {
	if err := os.MkdirAll(keyDir, 0o700); err != nil {
		return nil, err
	}
	unlock, err := lockDir(keyDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := KeySetPath(keyDir, namespace, name)
	ks, dirty, err := readKeys(keyDir, namespace, name, create)
	if err != nil {
		return nil, err
	}
	ks, pruned := ks.Prune(now)
	next, err := change(ks)
	if err != nil {
		return nil, err
	}
	if next != ks || pruned || dirty {
		if err := writeAtomic(path, next.Encode()); err != nil {
			return nil, err
		}
	}
	if dirty {
		// Migrated: the seed now lives only in the key set.
		if err := os.Remove(legacyKeyPath(keyDir, namespace, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return next, nil
}

// ReadKeys returns the key set of namespace/name without changing anything.
func ReadKeys(keyDir, namespace, name string) (*serving.KeyState, error) {
	ks, _, err := readKeys(keyDir, namespace, name, false)
	return ks, err
}

// readKeys reads the key set, or makes it: from the legacy seed (migrated),
// or fresh when create. dirty reports that the result is not on disk yet.
func readKeys(keyDir, namespace, name string, create bool) (ks *serving.KeyState, dirty bool, err error) {
	path := KeySetPath(keyDir, namespace, name)
	raw, err := readPrivate(path)
	switch {
	case err == nil:
		ks, err := serving.ParseKeyState(raw)
		if err != nil {
			return nil, false, fmt.Errorf("key set %s: %w", filepath.Base(path), err)
		}
		return ks, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, err
	}
	legacy := legacyKeyPath(keyDir, namespace, name)
	seed, err := readPrivate(legacy)
	switch {
	case err == nil:
		ks, err := serving.LegacyKeyState(seed)
		if err != nil {
			return nil, false, fmt.Errorf("signing key %s: %w", filepath.Base(legacy), err)
		}
		return ks, true, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, err
	case !create:
		return nil, false, ErrNoKeySet
	}
	ks, err = serving.NewKeyState(rand.Reader, "")
	return ks, err == nil, err
}

// ErrKeyFileMode: a key file is readable or writable by group or others.
// It holds private signing keys, so it is refused, as ssh refuses such a
// private key, rather than used or silently re-moded: the operator learns
// the keys may have been exposed and decides.
var ErrKeyFileMode = errors.New("standalone: a key file must be private to its owner (mode 0600)")

// readPrivate reads a key file and refuses it if its mode grants group or
// others any access.
func readPrivate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %#o, which group or others can access; run: chmod 600 %s", ErrKeyFileMode, path, perm, path)
	}
	return io.ReadAll(f)
}

// lockDir takes an exclusive advisory lock on keyDir/.lock, so that two
// processes (serve starting, keys rotate) never both rewrite a key set from
// the same old one: a lost rotation could drop a key that signed artifacts.
func lockDir(keyDir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(keyDir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil // closing releases the lock
}

// writeAtomic writes data to path (mode 0600) through a temporary file in
// the same directory, synced and renamed, and syncs the directory.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".keyset-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // no-op after the rename
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
