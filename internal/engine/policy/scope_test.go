package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

func scoped(r policy.RuleDraft, caps, resources []string) policy.RuleDraft {
	r.Scope = &policy.ScopeDraft{Capabilities: caps, Resources: resources}
	return r
}

// TestScopeFiltering proves Section 21 scope: requested ∩ Host Authority ∩
// every matched non-deny constraint, never a union; a non-deny outcome that
// loses any requested Capability or Resource is a deny (capabilityNotPermitted,
// resourceNotPermitted), and deny Decisions carry empty scope.
func TestScopeFiltering(t *testing.T) {
	t.Parallel()
	fin, read := "financial.transfer", "data.read"
	cases := map[string]struct {
		rules        []policy.RuleDraft
		modify       func(*facts)
		wantOutcome  vocab.Effect
		wantReasons  []vocab.Reason
		wantCaps     []vocab.Capability
		wantResource []string
	}{
		"a constraint equal to the request allows exactly the request": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{fin}, []string{"acct-1"})},
			wantOutcome: vocab.Allow, wantReasons: reasons(vocab.ReasonAllowRuleMatched),
			wantCaps: []vocab.Capability{vocab.FinancialTransfer}, wantResource: []string{"acct-1"}},
		"a wider constraint never adds a value beyond the request": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{fin, read, "data.write"}, []string{"acct-1", "acct-2"})},
			wantOutcome: vocab.Allow, wantReasons: reasons(vocab.ReasonAllowRuleMatched),
			wantCaps: []vocab.Capability{vocab.FinancialTransfer}, wantResource: []string{"acct-1"}},
		"two constraints are intersected, not unioned": {
			rules: []policy.RuleDraft{
				scoped(allow("a", matches), []string{fin, read}, []string{"acct-1"}),
				scoped(allow("b", pred(policy.PredicateDraft{Name: "riskIs", Value: "high"})), []string{fin}, []string{"acct-1", "acct-2"}),
			},
			modify:      func(f *facts) { f.requested = []vocab.Capability{vocab.DataRead, vocab.FinancialTransfer} },
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonCapabilityNotPermitted)},
		"two allow rules each dropping a different capability deny": {
			rules: []policy.RuleDraft{
				scoped(allow("a", matches), []string{fin}, []string{"acct-1"}),
				scoped(allow("b", pred(policy.PredicateDraft{Name: "riskIs", Value: "high"})), []string{read}, []string{"acct-1"}),
			},
			modify:      func(f *facts) { f.requested = []vocab.Capability{vocab.DataRead, vocab.FinancialTransfer} },
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonCapabilityNotPermitted)},
		"a constraint permitting nothing denies a nonempty request": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{}, nil)},
			wantOutcome: vocab.Deny,
			wantReasons: reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonCapabilityNotPermitted, vocab.ReasonResourceNotPermitted)},
		"a requested resource outside the constraint denies resourceNotPermitted": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{fin}, []string{"acct-2"})},
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonResourceNotPermitted)},
		"a capability outside the Host Authority is lost even when the policy permits it": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{fin}, []string{"acct-1"})},
			modify:      func(f *facts) { f.hostCaps = []vocab.Capability{vocab.DataRead} },
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonCapabilityNotPermitted)},
		"a resource outside the Host Authority is lost even when the policy permits it": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{fin}, []string{"acct-1"})},
			modify:      func(f *facts) { f.hostRes = []ident.Resource{res("acct-2")} },
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonResourceNotPermitted)},
		"an invalid requested capability is never in scope": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{fin}, []string{"acct-1"})},
			modify:      func(f *facts) { f.requested = []vocab.Capability{vocab.FinancialTransfer, 0} },
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonCapabilityNotPermitted)},
		"an empty resource request survives an empty resource constraint": {
			rules:       []policy.RuleDraft{scoped(allow("a", matches), []string{fin}, nil)},
			modify:      func(f *facts) { f.requestedRes = nil },
			wantOutcome: vocab.Allow, wantReasons: reasons(vocab.ReasonAllowRuleMatched),
			wantCaps: []vocab.Capability{vocab.FinancialTransfer}, wantResource: []string{}},
		"a requireConfirmation outcome is filtered too": {
			rules:       []policy.RuleDraft{scoped(confirm("c", matches), []string{read}, []string{"acct-1"})},
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonConfirmationRuleMatched, vocab.ReasonCapabilityNotPermitted)},
		"a matched allow constrains a requireConfirmation outcome": {
			rules: []policy.RuleDraft{
				scoped(confirm("c", matches), []string{fin}, []string{"acct-1"}),
				scoped(allow("a", matches), []string{fin}, []string{"acct-2"}),
			},
			wantOutcome: vocab.Deny,
			wantReasons: reasons(vocab.ReasonConfirmationRuleMatched, vocab.ReasonAllowRuleMatched, vocab.ReasonResourceNotPermitted)},
		"an unmatched rule's constraint does not apply": {
			rules: []policy.RuleDraft{
				scoped(allow("a", matches), []string{fin}, []string{"acct-1"}),
				scoped(allow("b", misses), []string{}, []string{}),
			},
			wantOutcome: vocab.Allow, wantReasons: reasons(vocab.ReasonAllowRuleMatched),
			wantCaps: []vocab.Capability{vocab.FinancialTransfer}, wantResource: []string{"acct-1"}},
		"a deny Decision carries empty scope": {
			rules: []policy.RuleDraft{
				scoped(allow("a", matches), []string{fin}, []string{"acct-1"}),
				deny("d", matches),
			},
			wantOutcome: vocab.Deny, wantReasons: reasons(vocab.ReasonDenyRuleMatched, vocab.ReasonAllowRuleMatched)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			in := e.factsWith(tc.modify)
			d := evaluate(t, in, e.publish(t, snapshotOf(tc.rules...)))
			if d.Outcome() != tc.wantOutcome {
				t.Errorf("outcome = %v, want %v", d.Outcome(), tc.wantOutcome)
			}
			if diff := cmp.Diff(tc.wantReasons, d.Reasons()); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			wantCaps := tc.wantCaps
			if wantCaps == nil {
				wantCaps = []vocab.Capability{}
			}
			if diff := cmp.Diff(wantCaps, d.Capabilities()); diff != "" {
				t.Errorf("capabilities (-want +got):\n%s", diff)
			}
			gotRes := []string{}
			for _, r := range d.Resources() {
				gotRes = append(gotRes, r.String())
			}
			wantRes := tc.wantResource
			if wantRes == nil {
				wantRes = []string{}
			}
			if diff := cmp.Diff(wantRes, gotRes); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDenyKeepsEvidence proves that a deny Decision reached by precedence
// keeps every matched rule, reason and obligation as evidence while its
// scope is empty.
func TestDenyKeepsEvidence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := allow("a", matches)
	a.Obligations = []policy.ObligationDraft{{Kind: "requireSingleUseAuthorization"}}
	dn := deny("d", matches)
	dn.Obligations = []policy.ObligationDraft{{Kind: "requireAuditEvent"}}
	d := evaluate(t, baseFacts(e.b), e.publish(t, snapshotOf(a, dn)))
	var keys []string
	for _, o := range d.Obligations() {
		keys = append(keys, o.Key())
	}
	if d.Outcome() != vocab.Deny || len(d.Capabilities()) != 0 || len(d.Resources()) != 0 {
		t.Errorf("decision = %v with scope %v %v, want deny with empty scope", d.Outcome(), d.Capabilities(), d.Resources())
	}
	if diff := cmp.Diff([]string{"3", "4"}, keys); diff != "" {
		t.Errorf("obligations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "d"}, tokens(d.MatchedRules())); diff != "" {
		t.Errorf("matched (-want +got):\n%s", diff)
	}
}
