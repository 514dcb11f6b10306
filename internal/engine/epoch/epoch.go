// Package epoch holds explicit protocol time (spec Sections 15, 26 and 39):
// Unix epoch seconds supplied by the Host as direct input to a transition.
// Explicit time is deterministic data, not proof of a trusted clock; the
// engine never reads a clock.
//
// Intervals are half-open: a time t is within [NotBefore, ExpiresAt) when
// NotBefore <= t < ExpiresAt. Every subtraction is performed only after the
// ordering has been checked, so no arithmetic can wrap.
package epoch

import (
	"cmp"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// Max is the largest explicit epoch second (2100-01-01T00:00:00Z).
const Max = 4102444800

// Time is an explicit epoch second in 0..Max.
type Time struct{ s uint64 }

// New returns the explicit time s; values above Max reject.
func New(s uint64) (Time, error) {
	if s > Max {
		return Time{}, fault.New(fault.OutOfRange, "explicit time is an epoch second from 0 to 4102444800")
	}
	return Time{s: s}, nil
}

// Seconds returns the epoch second.
func (t Time) Seconds() uint64 { return t.s }

// Compare orders times.
func (t Time) Compare(u Time) int { return cmp.Compare(t.s, u.s) }

// Before reports t < u.
func (t Time) Before(u Time) bool { return t.s < u.s }

// Since returns t-u in seconds; it rejects when t precedes u rather than
// wrapping (Section 26: subtraction only after ordering is checked).
func (t Time) Since(u Time) (uint64, error) {
	if t.s < u.s {
		return 0, fault.New(fault.OutOfRange, "a later time cannot precede an earlier one")
	}
	return t.s - u.s, nil
}

// Add returns t+d seconds, rejecting results above Max.
func (t Time) Add(d uint64) (Time, error) {
	if d > Max-t.s {
		return Time{}, fault.New(fault.OutOfRange, "explicit time is an epoch second from 0 to 4102444800")
	}
	return Time{s: t.s + d}, nil
}

// Validity is an explicit validity window: the issue time of the evidence
// and the half-open interval [NotBefore, ExpiresAt) in which it may be used.
type Validity struct {
	issuedAt, notBefore, expiresAt Time
}

// NewValidity checks issuedAt <= notBefore < expiresAt.
func NewValidity(issuedAt, notBefore, expiresAt Time) (Validity, error) {
	if notBefore.Before(issuedAt) {
		return Validity{}, fault.New(fault.OutOfRange, "validity cannot begin before its issue time")
	}
	if !notBefore.Before(expiresAt) {
		return Validity{}, fault.New(fault.OutOfRange, "validity must expire after it begins")
	}
	return Validity{issuedAt: issuedAt, notBefore: notBefore, expiresAt: expiresAt}, nil
}

// IssuedAt returns the issue time.
func (v Validity) IssuedAt() Time { return v.issuedAt }

// NotBefore returns the inclusive start.
func (v Validity) NotBefore() Time { return v.notBefore }

// ExpiresAt returns the exclusive end.
func (v Validity) ExpiresAt() Time { return v.expiresAt }

// IsZero reports whether v is the zero (unset) window.
func (v Validity) IsZero() bool { return v.expiresAt.s == 0 }

// Contains reports NotBefore <= t < ExpiresAt.
func (v Validity) Contains(t Time) bool {
	return !t.Before(v.notBefore) && t.Before(v.expiresAt)
}

// Check rejects t outside the window: before NotBefore is future-invalid
// evidence, at or after ExpiresAt is stale evidence.
func (v Validity) Check(t Time) error {
	if v.IsZero() {
		return fault.New(fault.Missing, "evidence needs an explicit validity window")
	}
	if t.Before(v.notBefore) {
		return fault.New(fault.Expired, "evidence is not yet valid at the explicit time")
	}
	if !t.Before(v.expiresAt) {
		return fault.New(fault.Expired, "evidence has expired at the explicit time")
	}
	return nil
}

// WriteDigest writes the window to a digest builder.
func (v Validity) WriteDigest(b *digest.Builder) {
	b.Uint(v.issuedAt.s)
	b.Uint(v.notBefore.s)
	b.Uint(v.expiresAt.s)
}
