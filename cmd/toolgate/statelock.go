package main

import (
	"errors"

	bolterrors "go.etcd.io/bbolt/errors"
)

// errStateLocked is serve's refusal of a state directory another process
// holds: its Consumption store open (bbolt's exclusive file lock), or its
// serve.lock (serve on the etcd store).
var errStateLocked = errors.New("another toolgate holds this state directory: stop that process or give --state another directory (each replica has its own)")

// stateStoreError turns the Consumption store's lock timeout into
// errStateLocked, keeping the cause for errors.Is; other errors pass as
// they are.
func stateStoreError(err error) error {
	if errors.Is(err, bolterrors.ErrTimeout) {
		return lockedError{err}
	}
	return err
}

// lockedError reads as errStateLocked and unwraps to both it and the
// store's error.
type lockedError struct{ cause error }

func (e lockedError) Error() string   { return errStateLocked.Error() }
func (e lockedError) Unwrap() []error { return []error{errStateLocked, e.cause} }
