package evalinput_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestAuthorityNeverIncreases is a property test of authority monotonicity
// (Section 8; P-009, P-010, P-011): for random valid ceilings — definition
// maximum, Host Authority and Intent Capabilities; Host and Intent
// Resources — and random requests, construction succeeds exactly when the
// request lies within every ceiling, and then the input's requested scope
// is exactly the request: a subset of every ceiling, nothing added,
// nothing dropped. The seed is fixed, so failures reproduce.
func TestAuthorityNeverIncreases(t *testing.T) {
	t.Parallel()
	const iterations = 300
	rng := rand.New(rand.NewPCG(17, 2026))
	pool := []string{"acct-1", "acct-2", "acct-3"}
	subset := func(of []string, nonEmpty bool) []string {
		for {
			var out []string
			for _, s := range of {
				if rng.IntN(2) == 0 {
					out = append(out, s)
				}
			}
			rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			if len(out) > 0 || !nonEmpty {
				return out
			}
		}
	}
	within := func(sub, set []string) bool {
		for _, s := range sub {
			if !slices.Contains(set, s) {
				return false
			}
		}
		return true
	}
	intersect := func(a, b []string) []string {
		var out []string
		for _, s := range a {
			if slices.Contains(b, s) {
				out = append(out, s)
			}
		}
		return out
	}

	accepted := 0
	for i := range iterations {
		var definition, host []string
		for len(intersect(definition, host)) == 0 {
			definition, host = subset(allCapabilities, true), subset(allCapabilities, true)
		}
		intended := subset(intersect(definition, host), true)
		hostRes := subset(pool, false)
		intendedRes := subset(hostRes, false)
		// Half of the requests are drawn from within the Intent, half from
		// everything, so that both outcomes occur often.
		requested, derived := subset(allCapabilities, true), subset(pool, false)
		if rng.IntN(2) == 0 {
			requested = subset(intended, true)
		}
		if rng.IntN(2) == 0 {
			derived = subset(intendedRes, false)
		}

		f := build(t, func(s *testutil.InputSpec) {
			s.Registry = testutil.RegistryDraft(auditDefinition(definition))
			s.Proposal.ToolID, s.Proposal.Arguments = "accounts.audit", auditArguments(derived)
			s.Host.Capabilities, s.Host.Resources = host, hostRes
			s.Intent.Capabilities, s.Intent.Resources = intended, intendedRes
		})
		d := f.Draft
		d.RequestedCapabilities = requested
		d.RequestedResources = slices.Clone(derived)
		slices.Reverse(d.RequestedResources)

		capsOK := within(requested, definition) && within(requested, host) && within(requested, intended)
		resOK := within(derived, hostRes) && within(derived, intendedRes)
		in, err := evalinput.New(f.Boundary, d)
		if (err == nil) != (capsOK && resOK) {
			t.Fatalf("case %d: definition %v, host %v/%v, intent %v/%v, requested %v/%v: err = %v, want success %t",
				i, definition, host, hostRes, intended, intendedRes, requested, derived, err, capsOK && resOK)
		}
		if err != nil {
			wantPath := "requestedResources"
			if !capsOK {
				wantPath = "requestedCapabilities"
			}
			var fe *fault.Error
			if !errors.Is(err, fault.ErrMismatch) || !errors.As(err, &fe) || fe.Path != wantPath {
				t.Fatalf("case %d: err = %v, want a mismatch at %s", i, err, wantPath)
			}
			continue
		}
		accepted++
		gotCaps, gotRes := strs(in.RequestedCapabilities()), strs(in.RequestedResources())
		ceilings := map[string][]string{
			"definition": definition, "host": strs(in.HostCapabilities()), "intent": strs(in.IntendedCapabilities()),
		}
		for name, ceiling := range ceilings {
			if !within(gotCaps, ceiling) {
				t.Fatalf("case %d: RequestedCapabilities %v exceed the %s ceiling %v", i, gotCaps, name, ceiling)
			}
		}
		for name, ceiling := range map[string][]string{"host": strs(in.HostResources()), "intent": strs(in.IntendedResources())} {
			if !within(gotRes, ceiling) {
				t.Fatalf("case %d: RequestedResources %v exceed the %s ceiling %v", i, gotRes, name, ceiling)
			}
		}
		if !sameSet(gotCaps, requested) || !sameSet(gotRes, derived) {
			t.Fatalf("case %d: requested scope %v/%v, want exactly %v/%v", i, gotCaps, gotRes, requested, derived)
		}
	}
	t.Logf("%d of %d random cases accepted", accepted, iterations)
	// Both outcomes must be exercised for the property to mean anything.
	if accepted < iterations/20 || accepted > iterations-iterations/20 {
		t.Errorf("%d of %d random cases accepted; the generator no longer exercises both outcomes", accepted, iterations)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
