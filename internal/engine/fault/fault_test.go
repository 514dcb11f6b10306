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
