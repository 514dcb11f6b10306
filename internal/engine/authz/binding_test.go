package authz_test

// The Authorization Consumption Binding and replay correlation (Section 28,
// P-027), the Validation result (Section 32) and non-mutation (P-008,
// P-026).

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// TestBinding_MateriallyDifferentAuthorizationsAreDistinct: Authorizations
// that share the Authorization, replay and Consumption identities but
// differ in any bound state have pairwise different Consumption Bindings
// (Section 28: "Materially different Authorizations MUST remain
// structurally distinct even when their descriptive Authorization, replay,
// or Consumption identifiers are equal").
func TestBinding_MateriallyDifferentAuthorizationsAreDistinct(t *testing.T) {
	t.Parallel()
	b := boundary.New("payments host")
	variants := map[string]func(setup) setup{
		"the original":          func(s setup) setup { return s },
		"a longer maximum":      func(s setup) setup { s.MaxLifetime = 900; return s },
		"an earlier expiry":     func(s setup) setup { s.ExpiresAt -= 10; return s },
		"a later issuance":      func(s setup) setup { s.IssuedAt += 10; s.ExpiresAt += 10; return s },
		"an earlier evaluation": func(s setup) setup { s.EvaluatedAt -= 10; return s },
		"another policy content": func(s setup) setup {
			s.Policy = realisticPolicy(singleUse())
			return s
		},
		"another amount": func(s setup) setup {
			s.Proposal.Arguments = []byte(`{"currency":"eur","amount":12501,"debtor-account":"acct-2002","creditor-account":"acct-1001"}`)
			return s
		},
		"another session": func(s setup) setup {
			return withIdentity(s, principal.Draft{Subject: "alice", Tenant: "acme", Session: "session-2"})
		},
		"a narrower scope":     func(s setup) setup { s.RequestedCapabilities = []string{"financial.transfer"}; return s },
		"another tool":         reports,
		"another intent text":  func(s setup) setup { s.Intent.Display = "Pay the March invoice"; return s },
		"a delegation":         withDelegation,
		"a renewed intent":     func(s setup) setup { s.Intent.RenewalGeneration = "2"; return s },
		"another decision id":  func(s setup) setup { s.DecisionID = "decision-2"; return s },
		"another registry gen": func(s setup) setup { s.Registry.Generation = "2"; return s },
	}
	type issued struct {
		name string
		a    *authz.Authorization
	}
	var all []issued
	for name, change := range variants {
		a := build(t, change(base(b))).issue(t)
		if a.ID().String() != "authz-1" || a.ReplayID().String() != "replay-1" || a.ConsumptionID().String() != "consumption-1" {
			t.Fatalf("%s: the identifiers differ", name)
		}
		all = append(all, issued{name, a})
	}
	for i, x := range all {
		for _, y := range all[i+1:] {
			if x.a.Equal(y.a) || x.a.Binding().Equal(y.a.Binding()) ||
				x.a.Binding().Digest().Equal(y.a.Binding().Digest()) {
				t.Errorf("%q and %q share identifiers and have equal bindings", x.name, y.name)
			}
		}
	}
}

// TestBinding_ReplayIdentityIsCorrelationOnly (P-027): equal replay
// identities never make two Authorizations equal, the replay identity is
// bound (changing only it changes the binding), and Validation reserves
// nothing: both Authorizations sharing one replay identity validate, in
// either order, any number of times.
func TestBinding_ReplayIdentityIsCorrelationOnly(t *testing.T) {
	t.Parallel()
	b := boundary.New("payments host")
	first := build(t, base(b))
	second := build(t, func(s setup) setup { s.AuthorizationID, s.ConsumptionID = "authz-2", "consumption-2"; return s }(base(b)))
	onlyReplay := build(t, func(s setup) setup { s.ReplayID = "replay-2"; return s }(base(b)))
	a1, a2, a3 := first.issue(t), second.issue(t), onlyReplay.issue(t)

	if a1.ReplayID() != a2.ReplayID() {
		t.Fatal("the fixture must share the replay identity")
	}
	if a1.Equal(a2) || a1.Binding().Equal(a2.Binding()) {
		t.Error("equal replay identities made two Authorizations equal")
	}
	if a1.Equal(a3) || a1.Binding().Equal(a3.Binding()) {
		t.Error("the replay identity is not bound into the Authorization")
	}
	for range 2 {
		for _, x := range []struct {
			w *world
			a *authz.Authorization
		}{{first, a1}, {second, a2}, {first, a1}} {
			r, err := x.w.validateAt(t, x.a, evaluatedAt)
			if err != nil {
				t.Fatalf("Validate %s: %v", x.w.s.AuthorizationID, err)
			}
			if r.Binding().ReplayID().String() != "replay-1" {
				t.Errorf("result replay identity = %s", r.Binding().ReplayID())
			}
		}
	}
}

// TestBinding_IssuanceIsDeterministic: the same complete issuance inputs,
// issued twice or rebuilt independently in the same domain, give Equal
// Authorizations with equal bindings.
func TestBinding_IssuanceIsDeterministic(t *testing.T) {
	t.Parallel()
	b := boundary.New("payments host")
	w := build(t, base(b))
	a1, a2 := w.issue(t), w.issue(t)
	a3 := build(t, base(b)).issue(t)
	for name, x := range map[string]*authz.Authorization{"reissued": a2, "rebuilt": a3} {
		if !a1.Equal(x) || !a1.Binding().Equal(x.Binding()) || !a1.Digest().Equal(x.Digest()) {
			t.Errorf("%s: not equal to the first issuance", name)
		}
	}
}

// TestBinding_HostDomainIsPartOfEquality (P-016): two Hosts with
// byte-identical content in different domains issue Authorizations that are
// not Equal and whose Consumption Bindings are not equal either: the
// binding retains the exact Host authority domain. (The binding digest has
// no domain content, so a Consumption store shared between domains must
// namespace its keys by domain — Section 28 leaves namespace handling to
// the Host facility.)
func TestBinding_HostDomainIsPartOfEquality(t *testing.T) {
	t.Parallel()
	a := build(t, base(boundary.New("payments host"))).issue(t)
	other := build(t, base(boundary.New("payments host"))).issue(t)
	if a.Equal(other) {
		t.Error("Authorizations of two Host domains are Equal")
	}
	if a.Binding().Equal(other.Binding()) {
		t.Error("Consumption Bindings of two Host domains are equal")
	}
	if !a.Binding().Equal(a.Binding()) {
		t.Error("a binding is not equal to itself")
	}
	if (&authz.ConsumptionBinding{}).Equal(&authz.ConsumptionBinding{}) {
		t.Error("two zero-value bindings (no issuance at all) are equal")
	}
	if (*authz.ConsumptionBinding)(nil).Equal(a.Binding()) || a.Binding().Equal(nil) {
		t.Error("a missing binding equals a present one")
	}
}

// TestBinding_ResultCarriesTheExactBinding (Section 32): successful
// Validation returns the artifact's complete Consumption Binding — naming
// the Host's expected identities, scope and expiry — and the mandatory
// atomicSingleUseRequired contract.
func TestBinding_ResultCarriesTheExactBinding(t *testing.T) {
	t.Parallel()
	w := build(t, base(boundary.New("payments host")))
	a := w.issue(t)
	r, err := w.validateAt(t, a, evaluatedAt)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if !r.Binding().Equal(a.Binding()) || !r.Binding().Digest().Equal(a.Digest()) {
		t.Error("the result's binding is not the artifact's binding")
	}
	want := resultSummary{
		Binding: a.Binding().Digest().String(), AuthorizationID: "authz-1", ReplayID: "replay-1", ConsumptionID: "consumption-1",
		Capabilities: []string{"data.read", "financial.transfer"}, Resources: []string{"acct-1001", "acct-2002"},
		ExpiresAt: evaluatedAt + defaultLifetime,
		Contract:  "atomicSingleUseRequired", BindingContract: "atomicSingleUseRequired",
	}
	if diff := cmp.Diff(want, summarize(r)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if r.Contract() != vocab.AtomicSingleUseRequired || a.Binding().Contract() != vocab.AtomicSingleUseRequired {
		t.Error("the single-use contract is not atomicSingleUseRequired")
	}
}

// TestBinding_ValidationPerformsNoMutation (P-008, P-026): Validation —
// successful, failed, repeated and concurrent — changes nothing: the
// artifact, every bound value and the result stay identical, and returned
// slices are copies.
func TestBinding_ValidationPerformsNoMutation(t *testing.T) {
	t.Parallel()
	w := build(t, base(boundary.New("payments host")))
	a := w.issue(t)
	state := func() []string {
		return []string{
			a.Digest().String(), a.Binding().Digest().String(), w.in.Digest().String(), w.dec.Digest().String(),
			w.pol.Digest().String(), w.reg.Digest().String(), w.req.Digest().String(),
			fmt.Sprint(a.IssuedAt().Seconds(), a.ExpiresAt().Seconds()),
		}
	}
	before := state()
	first, err := w.validateAt(t, a, evaluatedAt)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	want := summarize(first)

	// A failed Validation in between changes nothing either.
	bad := w.expect(t)
	bad.AuthorizationID = "authz-9"
	if _, err := authz.Validate(w.s.B, a, bad, timeAt(evaluatedAt)); err == nil {
		t.Fatal("the mutated expectation validated")
	}

	var wg sync.WaitGroup
	results := make([]resultSummary, 16)
	for i := range results {
		wg.Go(func() {
			r, err := authz.Validate(w.s.B, a, w.expect(t), timeAt(evaluatedAt))
			if err != nil {
				t.Errorf("concurrent Validate: %v", err)
				return
			}
			results[i] = summarize(r)
		})
	}
	wg.Wait()
	for i, got := range results {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("concurrent Validate #%d (-first +got):\n%s", i, diff)
		}
	}

	// Returned slices are copies: changing them changes nothing bound.
	a.Capabilities()[0] = vocab.ResourceDelete
	a.Binding().Capabilities()[0] = vocab.ResourceDelete
	first.Binding().Resources()[0] = parseResources(t, []string{"acct-9999"})[0]
	ctx := w.expect(t)
	r, err := authz.Validate(w.s.B, a, ctx, timeAt(evaluatedAt))
	if err != nil {
		t.Fatalf("Validate after mutating returned slices: %v", err)
	}
	ctx.Capabilities[0] = vocab.ResourceDelete // the Host's own slice, after Validation
	if diff := cmp.Diff(want, summarize(r)); diff != "" {
		t.Errorf("result after mutating returned slices (-want +got):\n%s", diff)
	}
	diffStrings(t, "bound state after Validation", before, state())
}
