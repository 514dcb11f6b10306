package boundary_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/boundary"
)

func TestIndependentBoundariesAreNeverTheSameDomain(t *testing.T) {
	t.Parallel()
	a := boundary.New("payments-host")
	b := boundary.New("payments-host")
	if a.Same(b) || b.Same(a) {
		t.Fatal("two boundaries created with identical descriptions must be distinct domains")
	}
	if a == b {
		t.Fatal("== must not equate independently created boundaries")
	}
}

func TestCopiesOfARetainedBoundaryAreTheSameDomain(t *testing.T) {
	t.Parallel()
	a := boundary.New("host")
	c := a
	if !a.Same(c) || !c.Same(a) {
		t.Fatal("a retained copy must be the same domain")
	}
}

func TestZeroBoundaryMatchesNothing(t *testing.T) {
	t.Parallel()
	var z boundary.Boundary
	if !z.IsZero() || z.Same(z) || z.Same(boundary.New("")) || boundary.New("").Same(z) {
		t.Fatal("the zero boundary must match nothing, not even itself")
	}
}
