package epoch_test

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

func at(t *testing.T, s uint64) epoch.Time {
	t.Helper()
	v, err := epoch.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestExplicitEpochSecondBounds(t *testing.T) {
	t.Parallel()
	if _, err := epoch.New(0); err != nil {
		t.Errorf("0 is accepted: %v", err)
	}
	if _, err := epoch.New(epoch.Max); err != nil {
		t.Errorf("4102444800 is accepted: %v", err)
	}
	if _, err := epoch.New(epoch.Max + 1); !errors.Is(err, fault.ErrOutOfRange) {
		t.Errorf("4102444801 must reject: %v", err)
	}
	if _, err := at(t, epoch.Max).Add(1); !errors.Is(err, fault.ErrOutOfRange) {
		t.Errorf("Add past Max must reject: %v", err)
	}
}

func TestSinceRejectsInvalidOrderingBeforeSubtracting(t *testing.T) {
	t.Parallel()
	if d, err := at(t, 10).Since(at(t, 10)); err != nil || d != 0 {
		t.Errorf("equal times: %d, %v", d, err)
	}
	if d, err := at(t, 10).Since(at(t, 3)); err != nil || d != 7 {
		t.Errorf("10-3: %d, %v", d, err)
	}
	if _, err := at(t, 3).Since(at(t, 10)); !errors.Is(err, fault.ErrOutOfRange) {
		t.Errorf("3-10 must reject, not wrap: %v", err)
	}
}

func TestValidityIsHalfOpen(t *testing.T) {
	t.Parallel()
	v, err := epoch.NewValidity(at(t, 100), at(t, 110), at(t, 200))
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[uint64]bool{109: false, 110: true, 199: true, 200: false} {
		if got := v.Contains(at(t, s)); got != want {
			t.Errorf("Contains(%d) = %v, want %v", s, got, want)
		}
		if got := v.Check(at(t, s)) == nil; got != want {
			t.Errorf("Check(%d) ok = %v, want %v", s, got, want)
		}
	}
	if _, err := epoch.NewValidity(at(t, 100), at(t, 99), at(t, 200)); err == nil {
		t.Error("notBefore before issuedAt must reject")
	}
	if _, err := epoch.NewValidity(at(t, 100), at(t, 200), at(t, 200)); err == nil {
		t.Error("empty window must reject")
	}
	var zero epoch.Validity
	if zero.Check(at(t, 0)) == nil {
		t.Error("a zero window must reject")
	}
}
