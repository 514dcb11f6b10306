package serving_test

import (
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
)

// shadowed serves "p" at generations 1 and 2 and holds generation 3 as a
// shadow of 2 until s0 + 1 hour.
func shadowed(revoked *serving.Revocations) *serving.Served {
	return state(serving.Grace{}, 2, revoked).WithShadows(serving.Shadow{ID: "p", Generation: "3", Of: "2", Until: s0.Add(time.Hour)})
}

// TestShadowIsNeverSelectable: neither an explicit selection of the
// shadow generation nor the current one reaches it; the current
// generation stays the one it shadows.
func TestShadowIsNeverSelectable(t *testing.T) {
	s := shadowed(nil)
	if err := s.Selectable(sel("3"), s0); serving.ReasonOf(err) != serving.NotServed {
		t.Errorf("explicit shadow generation: %v, want notServed", err)
	}
	if err := s.Selectable(sel("2"), s0); err != nil {
		t.Errorf("the shadowed generation stays current: %v", err)
	}
	if err := s.Selectable(sel("1"), s0); serving.ReasonOf(err) != serving.Superseded {
		t.Errorf("generation 1: %v, want superseded (by 2, not by the shadow)", err)
	}
}

// TestShadowIsEvaluatedOnlyBesideTheCurrentGenerationInItsWindow: the
// rule ShadowOf applies, case by case.
func TestShadowIsEvaluatedOnlyBesideTheCurrentGenerationInItsWindow(t *testing.T) {
	revoked := (&serving.Revocations{}).With(serving.Revocation{Kind: serving.RevokePolicy, ID: "p", Version: "3"})
	for _, c := range []struct {
		name      string
		s         *serving.Served
		requested string
		gen       string
		at        time.Time
		want      bool
	}{
		{"current selection, in the window", shadowed(nil), host.Current, "2", s0, true},
		{"an explicit generation evaluates no shadow", shadowed(nil), "2", "2", s0, false},
		{"at until the window is closed", shadowed(nil), host.Current, "2", s0.Add(time.Hour), false},
		{"one second before until it is open", shadowed(nil), host.Current, "2", s0.Add(time.Hour - time.Second), true},
		{"a promotion makes the shadowed generation not current", state(serving.Grace{}, 4, nil).WithShadows(serving.Shadow{ID: "p", Generation: "3", Of: "2", Until: s0.Add(time.Hour)}), host.Current, "2", s0, false},
		{"a revoked shadow is not evaluated", shadowed(revoked), host.Current, "2", s0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh, ok := c.s.ShadowOf(c.requested, sel(c.gen), c.at)
			if ok != c.want || (ok && (sh.Generation != "3" || sh.Of != "2")) {
				t.Errorf("ShadowOf = %+v, %v; want %v", sh, ok, c.want)
			}
		})
	}
	if _, ok := shadowed(nil).ShadowOf(host.Current, serving.Selection{PolicyID: "q", PolicyGeneration: "2"}, s0); ok {
		t.Error("a shadow of p beside q")
	}
}

// TestTheHighestShadowIsHeld: of two shadows of one identity, in either
// order, the higher generation is the one held and evaluated.
func TestTheHighestShadowIsHeld(t *testing.T) {
	old := serving.Shadow{ID: "p", Generation: "2", Of: "1", Until: s0.Add(time.Hour)}
	next := serving.Shadow{ID: "p", Generation: "4", Of: "3", Until: s0.Add(time.Hour)}
	for _, order := range [][]serving.Shadow{{old, next}, {next, old}} {
		s := state(serving.Grace{}, 3, nil).WithShadows(order...)
		if sh, ok := s.ShadowOf(host.Current, sel("3"), s0); !ok || sh.Generation != "4" {
			t.Errorf("order %v: ShadowOf = %+v, %v; want generation 4", order, sh, ok)
		}
	}
}
