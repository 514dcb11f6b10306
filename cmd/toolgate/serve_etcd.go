package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
)

// Standalone serve on the etcd Consumption store: the
// replicas of one deployment share single use, and the identities each Consumption holds, through
// one etcd cluster under one key prefix. Everything else in the state
// directory stays per replica (docs/consumption.md, "Standalone replicas").

// storeBolt is serve's default Consumption store: <state>/consumptions.db,
// one process (storeEtcd, in etcdflags.go, serves any number of replicas).
const storeBolt = "bolt"

// openStore opens the Consumption store serve was told to use, and returns
// it with its closers. The bbolt file locks the state directory itself;
// with etcd, nothing in it is shared between replicas, so serve takes a
// lock of its own: two processes writing one audit log or key directory
// copy would break its hash chain or their rotations.
func openStore(o serveOptions) (consume.Store, []func(), error) {
	if o.store == storeBolt {
		s, err := boltstore.Open(filepath.Join(o.state, "consumptions"), boltstore.Options{})
		if err != nil {
			return nil, nil, stateStoreError(err)
		}
		return s, []func(){func() { _ = s.Close() }}, nil
	}
	unlock, err := lockState(o.state)
	if err != nil {
		return nil, nil, err
	}
	s, err := o.etcd.open()
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return s, []func(){unlock, func() { _ = s.Close() }}, nil
}

// stateLockFile is the lock serve holds on its state directory when the
// Consumption store is not in it.
const stateLockFile = "serve.lock"

// lockState takes an exclusive, non-blocking lock of state/serve.lock, held
// until the returned function runs (or the process ends).
func lockState(state string) (func(), error) {
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(state, stateLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, lockedError{err}
		}
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}

// storeReady asks the store once, so that the log says at start when the
// store does not answer; serve starts anyway and refuses what needs the
// store (503 unavailable, /readyz not ready) until it answers.
func storeReady(ctx context.Context, s consume.Store) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return s.Ready(ctx)
}
