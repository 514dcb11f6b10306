// Package consume defines the Consumption store: the atomic single-use step
// that must succeed before a protected side effect (spec Sections 28, 32;
// the Host facility Section 41 defers). A store answers exactly once yes per
// complete Consumption Binding and fails closed when it cannot answer.
package consume

import (
	"context"
	"errors"
	"time"
)

// Key names one Consumption: the Host authority domain (the HostAuthority
// UID in a cluster; any non-empty identifier of 1–63 lowercase
// alphanumerics or '-' in standalone mode) and the complete Consumption
// Binding digest as 64 lowercase hex digits.
type Key struct{ Domain, Binding string }

// ErrConsumed: the binding was consumed before. It is the only "no" that is
// not a failure.
var ErrConsumed = errors.New("consume: already consumed")

// ErrUnavailable wraps every failure to reach a definite answer (fail
// closed).
var ErrUnavailable = errors.New("consume: store unavailable")

// Store records Consumptions atomically: Consume returns nil exactly once
// per Key across every replica sharing the store and across restarts,
// ErrConsumed for every later call with that Key until the record is
// removed after expiresAt, and an error wrapping ErrUnavailable when it
// cannot answer. A record is kept at least until expiresAt (after which the
// Authorization can no longer validate) and removed promptly after.
type Store interface {
	Consume(ctx context.Context, k Key, expiresAt time.Time) error
	Ready(ctx context.Context) error // nil when the store answers
	Close() error
}
