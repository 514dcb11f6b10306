package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

func TestIsMatchesByCodeOnly(t *testing.T) {
	t.Parallel()
	err := fault.At("definitions[2].toolID", fault.Malformed, "tool identifier grammar")
	if !errors.Is(err, fault.ErrMalformed) {
		t.Error("errors.Is must match the code sentinel")
	}
	if errors.Is(err, fault.ErrDuplicate) {
		t.Error("errors.Is must not match another code")
	}
	if !errors.Is(fmt.Errorf("wrapped: %w", err), fault.ErrMalformed) {
		t.Error("errors.Is must see through wrapping")
	}
	if fault.ErrMalformed.Is(err) {
		t.Error("a sentinel must not match a specific error with a path")
	}
}

func TestWithinPrefixesPathsWithoutMutating(t *testing.T) {
	t.Parallel()
	inner := fault.At("[3].name", fault.Duplicate, "names are unique")
	outer := fault.Within("fields", inner)
	var fe *fault.Error
	if !errors.As(outer, &fe) || fe.Path != "fields[3].name" {
		t.Fatalf("Within path = %v", outer)
	}
	if inner.Path != "[3].name" {
		t.Error("Within must not modify the original error")
	}
	if got := fault.Within("a", fault.New(fault.Missing, "")).(*fault.Error).Path; got != "a" {
		t.Errorf("Within on empty path = %q", got)
	}
	plain := errors.New("plain")
	if fault.Within("x", plain) != plain {
		t.Error("Within must pass non-fault errors through unchanged")
	}
	if got := fault.Join("a", "b"); got != "a.b" {
		t.Errorf("Join = %q", got)
	}
}

func TestEveryCodeHasAStableDistinctToken(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range fault.Codes() {
		s := c.String()
		if s == "" || s == "invalidCode" || seen[s] {
			t.Errorf("code %d has token %q", c, s)
		}
		seen[s] = true
	}
	if fault.Code(0).IsValid() || fault.Code(0).String() != "invalidCode" {
		t.Error("the zero code is invalid")
	}
	if got := fault.At("p", fault.Missing, "rule").Error(); got != "engine: p: missing: rule" {
		t.Errorf("Error() = %q", got)
	}
}

// wrapper is an error type that wraps another without implementing Is or
// As itself, as a caller's own error type would.
type wrapper struct{ err error }

func (w wrapper) Error() string { return "wrapper: " + w.err.Error() }
func (w wrapper) Unwrap() error { return w.err }

func TestWithinAndCodeOfSeeThroughWrapping(t *testing.T) {
	t.Parallel()
	inner := fault.At("[3].name", fault.Duplicate, "names are unique")
	plain := errors.New("plain")
	tests := map[string]struct {
		err       error
		wantCode  fault.Code
		wantPath  string // path of the *fault.Error found by errors.As after Within("fields", err)
		wantFault bool
	}{
		"a bare fault": {
			err: inner, wantCode: fault.Duplicate, wantPath: "fields[3].name", wantFault: true,
		},
		"a fault wrapped with %w": {
			err: fmt.Errorf("reading: %w", inner), wantCode: fault.Duplicate, wantPath: "fields[3].name", wantFault: true,
		},
		"a fault wrapped twice": {
			err: fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", inner)), wantCode: fault.Duplicate, wantPath: "fields[3].name", wantFault: true,
		},
		"a fault inside a custom wrapper type": {
			err: wrapper{inner}, wantCode: fault.Duplicate, wantPath: "fields[3].name", wantFault: true,
		},
		"a fault joined with another error": {
			err: errors.Join(plain, inner), wantCode: fault.Duplicate, wantPath: "fields[3].name", wantFault: true,
		},
		"a plain error": {
			err: plain, wantCode: 0,
		},
		"a wrapped plain error": {
			err: fmt.Errorf("x: %w", plain), wantCode: 0,
		},
		"nil": {
			err: nil, wantCode: 0,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := fault.CodeOf(tc.err); got != tc.wantCode {
				t.Errorf("CodeOf = %v, want %v", got, tc.wantCode)
			}
			got := fault.Within("fields", tc.err)
			if fault.CodeOf(got) != tc.wantCode {
				t.Errorf("CodeOf(Within) = %v, want %v", fault.CodeOf(got), tc.wantCode)
			}
			var fe *fault.Error
			if ok := errors.As(got, &fe); ok != tc.wantFault {
				t.Fatalf("errors.As(Within) = %v, want %v", ok, tc.wantFault)
			}
			if !tc.wantFault {
				if got != tc.err {
					t.Errorf("Within changed a non-fault error: %v", got)
				}
				return
			}
			if fe.Path != tc.wantPath {
				t.Errorf("Within path = %q, want %q", fe.Path, tc.wantPath)
			}
			if !errors.Is(got, fault.ErrDuplicate) {
				t.Error("errors.Is(Within, ErrDuplicate) = false")
			}
			if inner.Path != "[3].name" {
				t.Error("Within modified the original error")
			}
		})
	}
}

// Every code has exactly one sentinel, derived from it: the sentinel carries
// only its code and matches every rejection with that code and no other.
func TestEverySentinelIsDerivedFromItsCode(t *testing.T) {
	t.Parallel()
	sentinels := map[fault.Code]*fault.Error{
		fault.Malformed: fault.ErrMalformed, fault.UnknownToken: fault.ErrUnknownToken,
		fault.Duplicate: fault.ErrDuplicate, fault.LimitExceeded: fault.ErrLimitExceeded,
		fault.Missing: fault.ErrMissing, fault.UnknownField: fault.ErrUnknownField,
		fault.KindMismatch: fault.ErrKindMismatch, fault.OutOfRange: fault.ErrOutOfRange,
		fault.NotFound: fault.ErrNotFound, fault.Ineligible: fault.ErrIneligible,
		fault.Mismatch: fault.ErrMismatch, fault.MixedDomain: fault.ErrMixedDomain,
		fault.Unsupported: fault.ErrUnsupported, fault.Disordered: fault.ErrDisordered,
		fault.Unauthorized: fault.ErrUnauthorized, fault.Expired: fault.ErrExpired,
	}
	if len(sentinels) != len(fault.Codes()) {
		t.Fatalf("%d sentinels for %d codes", len(sentinels), len(fault.Codes()))
	}
	for _, c := range fault.Codes() {
		s := sentinels[c]
		if s == nil || *s != (fault.Error{Code: c}) {
			t.Errorf("sentinel of %v = %#v, want only the code", c, s)
		}
		err := fault.At("p", c, "rule")
		for other, o := range sentinels {
			if got, want := errors.Is(err, o), other == c; got != want {
				t.Errorf("errors.Is(%v rejection, %v sentinel) = %v, want %v", c, other, got, want)
			}
		}
	}
}
