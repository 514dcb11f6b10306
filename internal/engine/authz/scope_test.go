package authz_test

// Final exact scope recomputation (Section 24; P-009, P-010, P-011, P-012).

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// intersection returns the members of first present in every other set.
func intersection[T comparable](first []T, others ...[]T) []T {
	out := []T{}
	for _, x := range first {
		if !slices.ContainsFunc(others, func(o []T) bool { return !slices.Contains(o, x) }) {
			out = append(out, x)
		}
	}
	return out
}

func subsetOf[T comparable](a, b []T) bool {
	return !slices.ContainsFunc(a, func(x T) bool { return !slices.Contains(b, x) })
}

// matchedConstraints returns the scope constraint of every matched
// non-deny rule of the Decision, read from the Host's own Policy Snapshot.
func matchedConstraints(tb testing.TB, w *world) (caps [][]vocab.Capability, res [][]ident.Resource) {
	tb.Helper()
	def := w.dec.Policy()
	for i := range def.Len() {
		r := def.Rule(i)
		if !slices.Contains(w.dec.MatchedRules(), r.ID()) || r.Effect() == vocab.Deny {
			continue
		}
		caps = append(caps, r.Capabilities())
		res = append(res, r.Resources())
	}
	if len(caps) == 0 {
		tb.Fatal("the decision matched no non-deny rule")
	}
	return caps, res
}

// checkIntersection asserts Section 24 for the issued a: its Capabilities
// and Resources equal the five-way intersection (definition maximum or
// argument-derived Resources, Host Authority, Intent ceiling, explicit
// request, every matched rule's constraint), the request, and the
// Decision's constrained scope, and lie within every ceiling.
func checkIntersection(t *testing.T, w *world, a *authz.Authorization) {
	t.Helper()
	ruleCaps, ruleRes := matchedConstraints(t, w)
	requested := parseCapabilities(t, w.s.RequestedCapabilities)
	capCeilings := append([][]vocab.Capability{
		w.host.Capabilities(), w.intent.Capabilities(), requested, w.dec.Capabilities(),
	}, ruleCaps...)
	wantCaps := intersection(w.req.Definition().Capabilities(), capCeilings...)
	diffStrings(t, "Capabilities = five-way intersection", capabilityTokens(wantCaps), capabilityTokens(a.Capabilities()))
	diffStrings(t, "Capabilities = request", capabilityTokens(requested), capabilityTokens(a.Capabilities()))
	diffStrings(t, "Capabilities = decision scope", capabilityTokens(w.dec.Capabilities()), capabilityTokens(a.Capabilities()))
	for i, ceiling := range append(capCeilings, w.req.Definition().Capabilities()) {
		if !subsetOf(a.Capabilities(), ceiling) {
			t.Errorf("issued Capabilities %v exceed ceiling #%d %v", a.Capabilities(), i, ceiling)
		}
	}

	requestedRes := parseResources(t, w.s.RequestedResources)
	resCeilings := append([][]ident.Resource{
		w.host.Resources(), w.intent.Resources(), requestedRes, w.dec.Resources(),
	}, ruleRes...)
	wantRes := intersection(w.req.Resources(), resCeilings...)
	diffStrings(t, "Resources = five-way intersection", resourceTokens(wantRes), resourceTokens(a.Resources()))
	diffStrings(t, "Resources = request", resourceTokens(requestedRes), resourceTokens(a.Resources()))
	diffStrings(t, "Resources = argument-derived", resourceTokens(w.req.Resources()), resourceTokens(a.Resources()))
	for i, ceiling := range append(resCeilings, w.req.Resources()) {
		if !subsetOf(a.Resources(), ceiling) {
			t.Errorf("issued Resources %v exceed ceiling #%d %v", a.Resources(), i, ceiling)
		}
	}
	diffStrings(t, "Binding Capabilities", capabilityTokens(a.Capabilities()), capabilityTokens(a.Binding().Capabilities()))
	diffStrings(t, "Binding Resources", resourceTokens(a.Resources()), resourceTokens(a.Binding().Resources()))
}

// TestScope_IssuedScopeIsTheFiveWayIntersection: every ceiling is strictly
// broader than the request, in a different direction, and the issued scope
// is exactly their intersection, the request and the Decision's scope.
func TestScope_IssuedScopeIsTheFiveWayIntersection(t *testing.T) {
	t.Parallel()
	s := base(boundary.New("payments host"))
	s.Registry.Definitions[0].Capabilities = []string{"communication.external", "data.read", "data.write", "financial.transfer"}
	s.Intent.Capabilities = []string{"data.read", "data.write", "financial.transfer"}
	s.Intent.Resources = []string{"acct-1001", "acct-2002", "acct-3003"}
	s.Policy.Policies[0].Rules[0].Scope = &policy.ScopeDraft{
		Capabilities: []string{"data.read", "financial.transfer", "resource.delete"},
		Resources:    []string{"acct-1001", "acct-2002", "acct-4004"},
	}
	w := build(t, s)
	a := w.issue(t)
	checkIntersection(t, w, a)
	ruleCaps, ruleRes := matchedConstraints(t, w)
	for name, ceiling := range map[string]int{
		"definition": len(w.req.Definition().Capabilities()), "host": len(w.host.Capabilities()),
		"intent": len(w.intent.Capabilities()), "policy": len(ruleCaps[0]),
	} {
		if ceiling <= len(a.Capabilities()) {
			t.Errorf("the %s capability ceiling is not broader than the request", name)
		}
	}
	for name, ceiling := range map[string]int{
		"host": len(w.host.Resources()), "intent": len(w.intent.Resources()), "policy": len(ruleRes[0]),
	} {
		if ceiling <= len(a.Resources()) {
			t.Errorf("the %s resource ceiling is not broader than the request", name)
		}
	}
}

// TestScope_ResourceFreeRequestIssuesNoResources: a Resource-free request
// issues exactly no Resource authority, and an expectation naming any
// Resource does not validate it (P-012).
func TestScope_ResourceFreeRequestIssuesNoResources(t *testing.T) {
	t.Parallel()
	w := build(t, reports(base(boundary.New("payments host"))))
	a := w.issue(t)
	checkIntersection(t, w, a)
	if len(a.Resources()) != 0 || len(a.Binding().Resources()) != 0 {
		t.Fatalf("Resources = %v, want none", a.Resources())
	}
	for name, res := range map[string][]ident.Resource{
		"no expectation validates":   nil,
		"an empty set validates":     {},
		"one resource rejects":       parseResources(t, []string{"acct-1001"}),
		"every host account rejects": parseResources(t, w.s.Host.Resources),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := w.expect(t)
			ctx.Resources = res
			_, err := authz.Validate(w.s.B, a, ctx, timeAt(w.s.IssuedAt))
			if len(res) == 0 {
				checkFault(t, err, nil, "")
			} else {
				checkFault(t, err, fault.ErrMismatch, "resources")
			}
		})
	}
}

// TestScope_NeverBroadens: scope beyond any ceiling never reaches an
// Authorization. Policy constraints intersect and never union; an empty
// constraint permits nothing; the Evaluation Input already rejects a request
// outside the definition, Host or Intent ceilings or one whose Resources are
// not exactly the argument-derived ones.
func TestScope_NeverBroadens(t *testing.T) {
	t.Parallel()
	ruleScope := func(caps, res []string) func(setup) setup {
		return func(s setup) setup {
			s.Policy.Policies[0].Rules[0].Scope = &policy.ScopeDraft{Capabilities: caps, Resources: res}
			return s
		}
	}
	secondAllow := func(caps []string) func(setup) setup {
		return func(s setup) setup {
			s.Policy.Policies[0].Rules = append(s.Policy.Policies[0].Rules, policy.RuleDraft{
				ID: "allow-transfer-only", Effect: "allow", Reason: "allowRuleMatched",
				Condition: is("exactToolID", "payments.submit"),
				Scope:     &policy.ScopeDraft{Capabilities: caps, Resources: []string{"acct-1001", "acct-2002"}},
			})
			return s
		}
	}
	accounts := []string{"acct-1001", "acct-2002"}
	denied := map[string]struct {
		setup      func(setup) setup
		wantReason vocab.Reason
	}{
		"a capability outside the policy constraint": {
			setup: ruleScope([]string{"financial.transfer"}, accounts), wantReason: vocab.ReasonCapabilityNotPermitted,
		},
		"a resource outside the policy constraint": {
			setup: ruleScope([]string{"data.read", "financial.transfer"}, []string{"acct-1001"}), wantReason: vocab.ReasonResourceNotPermitted,
		},
		"two matched allow constraints intersect, never union": {
			setup: secondAllow([]string{"financial.transfer", "data.write"}), wantReason: vocab.ReasonCapabilityNotPermitted,
		},
		"an empty capability constraint permits no capability": {
			setup: ruleScope([]string{}, accounts), wantReason: vocab.ReasonCapabilityNotPermitted,
		},
		"an empty resource constraint permits no resource": {
			setup: ruleScope([]string{"data.read", "financial.transfer"}, []string{}), wantReason: vocab.ReasonResourceNotPermitted,
		},
	}
	for name, tc := range denied {
		t.Run("deny: "+name, func(t *testing.T) {
			t.Parallel()
			w := build(t, tc.setup(base(boundary.New("payments host"))))
			if w.dec.Outcome() != vocab.Deny || !slices.Contains(w.dec.Reasons(), tc.wantReason) {
				t.Fatalf("decision %v %v, want deny with %v", w.dec.Outcome(), w.dec.Reasons(), tc.wantReason)
			}
			if len(w.dec.Capabilities()) != 0 || len(w.dec.Resources()) != 0 {
				t.Error("a deny Decision carries scope")
			}
			a, err := authz.Issue(w.s.B, w.issueRequest())
			checkFault(t, err, fault.ErrIneligible, "decision.outcome")
			if a != nil {
				t.Error("an Authorization was returned")
			}
		})
	}

	t.Run("the intersection of two allow constraints issues exactly the common capability", func(t *testing.T) {
		t.Parallel()
		s := secondAllow([]string{"financial.transfer", "data.write"})(base(boundary.New("payments host")))
		s.RequestedCapabilities = []string{"financial.transfer"}
		w := build(t, s)
		a := w.issue(t)
		checkIntersection(t, w, a)
		diffStrings(t, "Capabilities", []string{"financial.transfer"}, capabilityTokens(a.Capabilities()))
	})

	rejected := map[string]func(setup) setup{
		"a capability beyond the intent ceiling": func(s setup) setup {
			s.Intent.Capabilities = []string{"financial.transfer"}
			return s
		},
		"a capability beyond the tool definition maximum": func(s setup) setup {
			s.RequestedCapabilities = []string{"financial.transfer", "data.write"}
			return s
		},
		"a resource-bearing request asking for no resource": func(s setup) setup {
			s.RequestedResources = nil
			return s
		},
		"a resource-bearing request asking for fewer resources": func(s setup) setup {
			s.RequestedResources = []string{"acct-1001"}
			return s
		},
		"a resource-free request asking for a resource": func(s setup) setup {
			s = reports(s)
			s.RequestedResources = []string{"acct-1001"}
			return s
		},
	}
	for name, change := range rejected {
		t.Run("evaluation input rejects: "+name, func(t *testing.T) {
			t.Parallel()
			_, err := assemble(t, change(base(boundary.New("payments host"))))
			if !errors.Is(err, fault.ErrMismatch) {
				t.Errorf("assemble: %v, want the evaluation input to reject with a mismatch", err)
			}
		})
	}
}

// TestScope_Property draws random valid scenarios (fixed seed) that vary
// the tool definition's Capabilities, the Host, Intent and policy ceilings,
// the accounts named by the arguments, the explicitly requested
// Capabilities, the obligations and every explicit time. For each: the
// issued scope is within every ceiling and equals the five-way
// intersection; Validation with the true independent expectations succeeds
// at issuance, inside the lifetime and one second before expiry; and every
// single mutated expectation — each field of ValidationContext, one at a
// time — fails with that field's fault.
func TestScope_Property(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(0x5EC24, 0xA117))
	iterations := 100
	if testing.Short() {
		iterations = 15
	}
	for i := range iterations {
		s := randomSetup(rng, boundary.New(fmt.Sprintf("property host %d", i)))
		t.Run(fmt.Sprintf("case-%02d", i), func(t *testing.T) {
			t.Parallel()
			w := build(t, s)
			a := w.issue(t)
			checkIntersection(t, w, a)
			for _, at := range []uint64{s.IssuedAt, (s.IssuedAt + s.ExpiresAt) / 2, s.ExpiresAt - 1} {
				if _, err := w.validateAt(t, a, at); err != nil {
					t.Fatalf("Validate at %d with the true expectations: %v", at, err)
				}
			}
			want := w.expect(t)
			muts := expectationMutations(t, w)
			for _, f := range ctxFields {
				ctx := want
				muts[f.name](&ctx)
				if f.same(ctx, want) {
					t.Fatalf("the %s mutation did not change the expectation", f.name)
				}
				res, err := authz.Validate(w.s.B, a, ctx, timeAt(s.IssuedAt))
				if res != nil {
					t.Errorf("Validation accepted a mutated %s", f.name)
				}
				checkFault(t, err, f.code, f.path)
			}
		})
	}
}

// randomSetup draws one valid scenario. Every drawn ceiling contains the
// request, so the policy allows and issuance succeeds; what varies is how
// much broader each ceiling is, and in which direction.
func randomSetup(rng *rand.Rand, b boundary.Boundary) setup {
	all := capabilityTokens(vocab.AllCapability())
	subset := func(from []string, atLeast int) []string {
		var out []string
		for _, x := range from {
			if rng.IntN(2) == 0 {
				out = append(out, x)
			}
		}
		for len(out) < atLeast {
			x := from[rng.IntN(len(from))]
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	union := func(a, b []string) []string {
		out := slices.Clone(a)
		for _, x := range b {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	accounts := []string{"acct-1001", "acct-2002", "acct-3003", "acct-4004", "acct-5005", "acct-6006"}

	s := base(b)
	defCaps := subset(all, 1)
	requested := subset(defCaps, 1)
	intentCaps := union(requested, subset(defCaps, 0))
	hostCaps := union(defCaps, subset(all, 0))
	ruleCaps := union(requested, subset(hostCaps, 0))

	debtor, creditor := accounts[rng.IntN(len(accounts))], accounts[rng.IntN(len(accounts))]
	requestRes := []string{debtor}
	if creditor != debtor {
		requestRes = append(requestRes, creditor)
	}
	hostRes := union(requestRes, subset(accounts, 0))
	intentRes := union(requestRes, subset(hostRes, 0))
	ruleRes := union(requestRes, subset(hostRes, 0))

	s.Registry = testutil.RegistryDraft(
		testutil.PaymentsDefinition(func(d *registry.DefinitionDraft) { d.Capabilities = defCaps }),
		reportsDefinition(),
	)
	s.Proposal.Arguments = fmt.Appendf(nil,
		`{"currency":"usd","amount":%d,"debtor-account":%q,"creditor-account":%q}`, rng.IntN(1_000_000), debtor, creditor)
	s.Host.Capabilities, s.Host.Resources = hostCaps, hostRes
	s.Intent.Capabilities, s.Intent.Resources = intentCaps, intentRes
	s.RequestedCapabilities, s.RequestedResources = requested, requestRes

	var obligations []policy.ObligationDraft
	age := uint64(0)
	if rng.IntN(2) == 0 {
		obligations = append(obligations, singleUse())
	}
	if rng.IntN(2) == 0 {
		obligations = append(obligations, completeBoundary("chat-session"))
	}
	if rng.IntN(2) == 0 {
		age = 1 + rng.Uint64N(600)
		obligations = append(obligations, maxAge(age))
	}
	rules := []policy.RuleDraft{
		{
			ID: "allow-payments", Effect: "allow", Reason: "allowRuleMatched",
			Condition:   allOf(is("exactToolID", "payments.submit"), is("exactTenant", "acme")),
			Scope:       &policy.ScopeDraft{Capabilities: ruleCaps, Resources: ruleRes},
			Obligations: obligations,
		},
		denyRule("deny-other-tenant", "tenantMismatch", is("exactTenant", "globex")),
	}
	if rng.IntN(2) == 0 {
		rules = append(rules, policy.RuleDraft{
			ID: "allow-narrower", Effect: "allow", Reason: "allowRuleMatched",
			Condition: valuesAre("requestedCapabilitiesSubsetOf", ruleCaps...),
			Scope:     &policy.ScopeDraft{Capabilities: union(requested, subset(ruleCaps, 0)), Resources: requestRes},
		})
	}
	s.Policy = policyWith(rules...)

	// Times: evaluation inside [1000, 1900); issuance within the age
	// obligation (if any) and before 1999; a lifetime within the requested
	// maximum and the evidence windows' end at 2000.
	s.EvaluatedAt = windowStart + rng.Uint64N(900)
	delay := rng.Uint64N(windowEnd - 1 - s.EvaluatedAt)
	if age != 0 {
		delay = min(delay, rng.Uint64N(age+1))
	}
	s.IssuedAt = s.EvaluatedAt + delay
	s.MaxLifetime = 1 + rng.Uint64N(authz.MaxLifetime)
	s.ExpiresAt = s.IssuedAt + 1 + rng.Uint64N(min(s.MaxLifetime, windowEnd-s.IssuedAt))
	return s
}
