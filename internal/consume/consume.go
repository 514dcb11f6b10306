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

// ErrExpired reports that the Authorization had expired by the store's
// clock, read immediately before the atomic step: nothing was recorded, and
// nothing may be permitted. Like ErrConsumed it is a definite answer, not a
// failure to answer.
var ErrExpired = errors.New("consume: authorization expired")

// MaxClockSkew is the largest difference the stores tolerate between the
// clock of the replica that consumes and the clock of whatever removes
// expired records (a sweeper, a collector, a lease): records are kept at
// least this long past expiry (see DefaultRetention).
const MaxClockSkew = 30 * time.Second

// MaxRequestTime bounds one API request from its first header octet to its
// response: the service's header, body and response timeouts (5 s from the
// first octet, 30 s after the header, 30 s after the body:
// server.DefaultTimeouts) plus the longest store call (10 s).
// cmd/toolgate's tests keep the service's timeouts within it.
const MaxRequestTime = 75 * time.Second

// DefaultRetention is how long past its ExpiresAt every store keeps a
// record by default: at least MaxClockSkew plus MaxRequestTime, so a
// request that read an earlier clock, or a replica whose clock runs
// behind the collector's, still finds the record of an Authorization it
// might take for unexpired (docs/decisions.md, "Consumption stores").
const DefaultRetention = 2 * time.Minute

// Record is one Consumption: the Key the atomic step is decided on, the
// consumed Authorization's three identities and the moment after which the
// Authorization can no longer validate.
type Record struct {
	// Key names the Consumption: the domain and the complete Consumption
	// Binding digest.
	Key Key
	// Identities are the consumed Authorization's Authorization, replay and
	// Consumption identities (lower-tokens of at most MaxAuthorizationIDLen
	// octets), indexed by AuthorizationIdentity, ReplayIdentity and
	// ConsumptionIdentity. The Consumption holds them in Key.Domain, in the
	// same atomic step as the Key (Store).
	Identities [3]string
	// ExpiresAt is the Authorization's expiry: a Consume at or after it,
	// by the store's clock, is refused with ErrExpired.
	ExpiresAt time.Time
}

// Validate reports whether r is well formed, as a *KeyError: a valid Key,
// three valid identities and a set ExpiresAt.
func (r Record) Validate() error {
	if err := r.Key.Validate(); err != nil {
		return err
	}
	for i, id := range r.Identities {
		if err := validateToken(IdentityFields[i], id, MaxAuthorizationIDLen); err != nil {
			return err
		}
	}
	if r.ExpiresAt.IsZero() {
		return &KeyError{Field: "expiresAt", Reason: ReasonEmpty}
	}
	return nil
}

// Expired reports whether r can no longer be consumed at now: now is at or
// after ExpiresAt (the protocol's Validation rule, Section 30).
func (r Record) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }

// Store records Consumptions atomically. A Consumption is the complete
// Consumption Binding (the Key) together with the three identities of the
// consumed Authorization (Section 42: future replay storage consumes the
// complete binding), recorded in one atomic step (docs/decisions.md, "The
// durable write belongs to Consumption"). Consume returns nil exactly once
// per Key, and at most once per identity in a domain, across every replica
// sharing the store and across restarts, and otherwise refuses:
//
//   - ErrExpired when the store's clock, read immediately before the
//     atomic step, is at or after r.ExpiresAt (whether or not the Key was
//     recorded: the record of an expired Authorization may be gone);
//   - ErrConsumed for every later call with that Key;
//   - an *[IdentityReusedError] (matching ErrIdentityReused), naming the
//     first of r.Identities in index order, when one of them is held by
//     the Consumption of another Key: two Authorizations naming one
//     identity are two artifacts, and at most one of them is consumed;
//   - an error wrapping ErrUnavailable when it cannot answer.
//
// A refusal records nothing (apistore aside: see its package). A record is
// kept at least until ExpiresAt plus the store's retention
// (DefaultRetention unless configured otherwise) and removed after; its
// identities are held at least until [HoldUntil] (the moment of the
// Consumption plus MaxAuthorizationLifetime) plus the retention, so every
// Authorization naming one of them that was issued before the Consumption
// has expired before the identity is free again.
//
// Held reads, without writing, whether one of ids is held in domain: nil
// when none is, an *[IdentityReusedError] naming the first that is, an
// error wrapping ErrUnavailable when the store cannot answer. The service
// asks it before it issues an Authorization, so that an identity already
// consumed is not issued again while it is held.
//
// A Record (or domain and identities) that fails validation is rejected
// with a *[KeyError] before the store is asked; that error wraps no
// sentinel.
type Store interface {
	Consume(ctx context.Context, r Record) error
	Held(ctx context.Context, domain string, ids [3]string) error
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
