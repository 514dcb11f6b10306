package consume

import (
	"context"
	"errors"
	"time"
)

// ErrConsumed reports that the binding was consumed before. It is the only
// "no" that is not a failure.
var ErrConsumed = errors.New("consume: already consumed")

// ErrUnavailable is wrapped by every failure to reach a definite answer: a
// store that cannot answer never says yes (fail closed).
var ErrUnavailable = errors.New("consume: store unavailable")

// Store records Consumptions atomically: Consume returns nil exactly once
// per Key across every replica sharing the store and across restarts,
// ErrConsumed for every later call with that Key until the record is removed
// after expiresAt, and an error wrapping ErrUnavailable when it cannot
// answer. A record is kept at least until expiresAt (after which the
// Authorization can no longer validate) and removed promptly after.
//
// A Key that fails [Key.Validate] is rejected with a *[KeyError] before the
// store is asked; that error wraps neither sentinel.
type Store interface {
	Consume(ctx context.Context, k Key, expiresAt time.Time) error
	Ready(ctx context.Context) error // nil when the store answers
	Close() error
}

// Unavailable returns an error that matches ErrUnavailable and cause with
// errors.Is. Its message is the ErrUnavailable text, the constant op (what
// the store was doing, e.g. "commit") and the cause's text, so a cause must
// never quote input: backends pass their client library's errors only where
// those name no key, and otherwise a constant classification that still
// unwraps to the original (apistore).
func Unavailable(op string, cause error) error {
	return &UnavailableError{Op: op, Cause: cause}
}

// UnavailableError is the concrete error of every failure to answer.
type UnavailableError struct {
	// Op is a constant naming what the store was doing.
	Op string
	// Cause is the underlying failure; it may be nil.
	Cause error
}

func (e *UnavailableError) Error() string {
	msg := ErrUnavailable.Error() + ": " + e.Op
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns ErrUnavailable and the cause, so errors.Is matches either
// (a context.DeadlineExceeded stays recognisable).
func (e *UnavailableError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrUnavailable}
	}
	return []error{ErrUnavailable, e.Cause}
}

type authorizationIDKey struct{}

// WithAuthorizationID returns a context carrying the consumed
// Authorization's identity. Only stores that record it (apistore, whose
// Consumption object has a required spec.authorizationID) read it; the
// Store interface itself keys on the binding alone.
func WithAuthorizationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, authorizationIDKey{}, id)
}

// AuthorizationIDFrom returns the identity set by WithAuthorizationID and
// whether one was set.
func AuthorizationIDFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(authorizationIDKey{}).(string)
	return id, ok
}
