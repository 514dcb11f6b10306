package policy_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// TestPrecedence proves the Section 21 resolution over every combination of
// matched deny, requireConfirmation and allow rules, with indeterminate
// conditions in rules of each effect: indeterminate anywhere denies; else
// deny > requireConfirmation > allow; no match denies. Rule identities put
// allow first, so an early allow match cannot hide a later deny.
func TestPrecedence(t *testing.T) {
	t.Parallel()
	var (
		m = matches
		x = misses
		u = unknowable
	)
	type rules struct{ deny, confirm, allow policy.ConditionDraft }
	cases := map[string]struct {
		rules       rules
		wantOutcome vocab.Effect
		wantReasons []vocab.Reason
		wantMatched []string
	}{
		"no rule matches: default deny": {
			rules{x, x, x}, vocab.Deny, reasons(vocab.ReasonNoAllowRuleMatched), nil},
		"only allow matches: allow": {
			rules{x, x, m}, vocab.Allow, reasons(vocab.ReasonAllowRuleMatched), []string{"a-allow"}},
		"only requireConfirmation matches: requireConfirmation": {
			rules{x, m, x}, vocab.RequireConfirmation, reasons(vocab.ReasonConfirmationRuleMatched), []string{"m-confirm"}},
		"only deny matches: deny": {
			rules{m, x, x}, vocab.Deny, reasons(vocab.ReasonDenyRuleMatched), []string{"z-deny"}},
		"requireConfirmation and allow match: requireConfirmation wins": {
			rules{x, m, m}, vocab.RequireConfirmation,
			reasons(vocab.ReasonConfirmationRuleMatched, vocab.ReasonAllowRuleMatched), []string{"a-allow", "m-confirm"}},
		"deny and allow match: a later deny beats an earlier allow": {
			rules{m, x, m}, vocab.Deny,
			reasons(vocab.ReasonDenyRuleMatched, vocab.ReasonAllowRuleMatched), []string{"a-allow", "z-deny"}},
		"deny and requireConfirmation match: deny wins": {
			rules{m, m, x}, vocab.Deny,
			reasons(vocab.ReasonDenyRuleMatched, vocab.ReasonConfirmationRuleMatched), []string{"m-confirm", "z-deny"}},
		"all three match: deny wins and every match is reported": {
			rules{m, m, m}, vocab.Deny,
			reasons(vocab.ReasonDenyRuleMatched, vocab.ReasonConfirmationRuleMatched, vocab.ReasonAllowRuleMatched),
			[]string{"a-allow", "m-confirm", "z-deny"}},
		"indeterminate allow rule and nothing else: deny": {
			rules{x, x, u}, vocab.Deny, reasons(vocab.ReasonConditionIndeterminate), nil},
		"indeterminate allow rule while a confirmation matches: still a global deny": {
			rules{x, m, u}, vocab.Deny,
			reasons(vocab.ReasonConfirmationRuleMatched, vocab.ReasonConditionIndeterminate), []string{"m-confirm"}},
		"indeterminate deny rule beside a matched allow: deny, never recovered as false": {
			rules{u, x, m}, vocab.Deny,
			reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonConditionIndeterminate), []string{"a-allow"}},
		"indeterminate confirmation rule beside a matched allow: deny": {
			rules{x, u, m}, vocab.Deny,
			reasons(vocab.ReasonAllowRuleMatched, vocab.ReasonConditionIndeterminate), []string{"a-allow"}},
		"indeterminate beside a matched deny: deny with both reasons": {
			rules{m, u, x}, vocab.Deny,
			reasons(vocab.ReasonDenyRuleMatched, vocab.ReasonConditionIndeterminate), []string{"z-deny"}},
		"everything indeterminate: deny": {
			rules{u, u, u}, vocab.Deny, reasons(vocab.ReasonConditionIndeterminate), nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			s := e.publish(t, snapshotOf(
				allow("a-allow", tc.rules.allow),
				confirm("m-confirm", tc.rules.confirm),
				deny("z-deny", tc.rules.deny),
			))
			d := evaluate(t, baseFacts(e.b), s)
			if d.Outcome() != tc.wantOutcome {
				t.Errorf("outcome = %v, want %v", d.Outcome(), tc.wantOutcome)
			}
			if diff := cmp.Diff(tc.wantReasons, d.Reasons()); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMatched, tokens(d.MatchedRules()), emptyIsNil); diff != "" {
				t.Errorf("matched rules (-want +got):\n%s", diff)
			}
			if tc.wantOutcome == vocab.Deny && (len(d.Capabilities()) != 0 || len(d.Resources()) != 0) {
				t.Errorf("deny decision carries scope %v %v", d.Capabilities(), d.Resources())
			}
		})
	}
}

var emptyIsNil = cmp.Transformer("emptyIsNil", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

// TestRuleReasons proves that a Decision's reasons are the outcome reason
// plus every matched rule's reason, deduplicated and in Section 48 order, and
// that any Section 48 reason is a valid rule reason.
func TestRuleReasons(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d1 := deny("deny-tenant", matches)
	d1.Reason = "tenantMismatch"
	d2 := deny("deny-tenant-again", pred(policy.PredicateDraft{Name: "riskIs", Value: "high"}))
	d2.Reason = "tenantMismatch"
	d3 := deny("deny-lifecycle", pred(policy.PredicateDraft{Name: "lifecycleIs", Value: "active"}))
	d3.Reason = "lifecycleDenied"
	a := allow("allow", matches)
	a.Reason = "policyMissing"
	d := evaluate(t, baseFacts(e.b), e.publish(t, snapshotOf(d1, d2, d3, a)))
	want := reasons(vocab.ReasonPolicyMissing, vocab.ReasonDenyRuleMatched, vocab.ReasonLifecycleDenied, vocab.ReasonTenantMismatch)
	if diff := cmp.Diff(want, d.Reasons()); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

// TestSelection proves the Section 19/21 selection outcomes: a missing
// policy, an unknown generation and a retired policy are complete deny
// Decisions; a deprecated policy still evaluates.
func TestSelection(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		policyID     string
		generation   uint64
		wantOutcome  vocab.Effect
		wantReason   vocab.Reason
		wantPolicy   string // "" when the Decision binds no definition
		wantNoRuleOK bool
	}{
		"an absent policy identity denies policyMissing": {
			policyID: "refunds", generation: 1, wantOutcome: vocab.Deny, wantReason: vocab.ReasonPolicyMissing},
		"a zero policy identity denies policyMissing": {
			policyID: "", generation: 1, wantOutcome: vocab.Deny, wantReason: vocab.ReasonPolicyMissing},
		"a present identity with an absent generation denies policyUnknown": {
			policyID: "payments", generation: 9, wantOutcome: vocab.Deny, wantReason: vocab.ReasonPolicyUnknown},
		"a zero generation denies policyUnknown, never latest": {
			policyID: "payments", generation: 0, wantOutcome: vocab.Deny, wantReason: vocab.ReasonPolicyUnknown},
		"a retired policy denies policyRetired without evaluating its rules": {
			policyID: "payments", generation: 1, wantOutcome: vocab.Deny, wantReason: vocab.ReasonPolicyRetired, wantPolicy: "payments/1"},
		"a deprecated policy evaluates": {
			policyID: "payments", generation: 2, wantOutcome: vocab.Allow, wantReason: vocab.ReasonAllowRuleMatched, wantPolicy: "payments/2"},
		"an active policy evaluates": {
			policyID: "payments", generation: 3, wantOutcome: vocab.Allow, wantReason: vocab.ReasonAllowRuleMatched, wantPolicy: "payments/3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			rules := []policy.RuleDraft{allow("allow", matches)}
			s := e.publish(t, policy.SnapshotDraft{ID: "snap", Generation: "1", Policies: []policy.DefinitionDraft{
				{ID: "payments", Generation: "1", Lifecycle: "retired", Rules: rules},
				{ID: "payments", Generation: "2", Lifecycle: "deprecated", Rules: rules},
				{ID: "payments", Generation: "3", Lifecycle: "active", Rules: rules},
			}})
			d, err := policy.EvaluateFacts(baseFacts(e.b), s, selection(s, tc.policyID, tc.generation), "decision-1")
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if d.Outcome() != tc.wantOutcome {
				t.Errorf("outcome = %v, want %v", d.Outcome(), tc.wantOutcome)
			}
			if diff := cmp.Diff(reasons(tc.wantReason), d.Reasons()); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			got := ""
			if p := d.Policy(); p != nil {
				got = p.ID().String() + "/" + p.Generation().String()
			}
			if got != tc.wantPolicy {
				t.Errorf("bound policy = %q, want %q", got, tc.wantPolicy)
			}
			if tc.wantOutcome == vocab.Deny && (len(d.MatchedRules()) != 0 || len(d.Obligations()) != 0 || len(d.Capabilities()) != 0) {
				t.Errorf("selection deny carries matches %v, obligations or scope", d.MatchedRules())
			}
		})
	}
}

// TestEvaluateRejectsMisuse proves that structural evaluator misuse rejects
// with no Decision (Section 21): nil values, another snapshot, a mixed Host
// domain, an unsupported input version and a malformed Decision identity.
func TestEvaluateRejectsMisuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.publish(t, snapshotOf(allow("allow", matches)))
	good := selection(s, "payments", 1)
	cases := map[string]struct {
		in       func() policy.Facts
		snap     *policy.Snapshot
		sel      policy.Selection
		id       string
		wantErr  error
		wantPath string
	}{
		"a nil input": {
			in: func() policy.Facts { return nil }, snap: s, sel: good, id: "d", wantErr: fault.ErrMissing, wantPath: "input"},
		"a nil snapshot": {
			in: func() policy.Facts { return baseFacts(e.b) }, sel: good, id: "d", wantErr: fault.ErrMissing, wantPath: "snapshot"},
		"a selection naming another snapshot identity": {
			in: func() policy.Facts { return baseFacts(e.b) }, snap: s, id: "d", wantErr: fault.ErrMismatch, wantPath: "selection",
			sel: policy.Selection{SnapshotID: pid("other"), SnapshotGeneration: gen(1), PolicyID: pid("payments"), PolicyGeneration: gen(1)}},
		"a selection naming another snapshot generation": {
			in: func() policy.Facts { return baseFacts(e.b) }, snap: s, id: "d", wantErr: fault.ErrMismatch, wantPath: "selection",
			sel: policy.Selection{SnapshotID: pid("snap"), SnapshotGeneration: gen(2), PolicyID: pid("payments"), PolicyGeneration: gen(1)}},
		"a selection with no snapshot": {
			in: func() policy.Facts { return baseFacts(e.b) }, snap: s, id: "d", wantErr: fault.ErrMismatch, wantPath: "selection",
			sel: policy.Selection{PolicyID: pid("payments"), PolicyGeneration: gen(1)}},
		"an input from another Host domain": {
			in: func() policy.Facts { return baseFacts(boundary.New("policy test host")) }, snap: s, sel: good, id: "d",
			wantErr: fault.ErrMixedDomain, wantPath: "input"},
		"an input with no Host domain": {
			in: func() policy.Facts { return baseFacts(boundary.Boundary{}) }, snap: s, sel: good, id: "d",
			wantErr: fault.ErrMixedDomain, wantPath: "input"},
		"an input of version 2": {
			in: func() policy.Facts { f := baseFacts(e.b); f.version = 2; return f }, snap: s, sel: good, id: "d",
			wantErr: fault.ErrUnsupported, wantPath: "input.version"},
		"an input of version 0": {
			in: func() policy.Facts { f := baseFacts(e.b); f.version = 0; return f }, snap: s, sel: good, id: "d",
			wantErr: fault.ErrUnsupported, wantPath: "input.version"},
		"an empty decision identity": {
			in: func() policy.Facts { return baseFacts(e.b) }, snap: s, sel: good, id: "",
			wantErr: fault.ErrMalformed, wantPath: "decisionID"},
		"a decision identity outside the policy grammar": {
			in: func() policy.Facts { return baseFacts(e.b) }, snap: s, sel: good, id: "Decision_1",
			wantErr: fault.ErrMalformed, wantPath: "decisionID"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, err := policy.EvaluateFacts(tc.in(), tc.snap, tc.sel, tc.id)
			if d != nil {
				t.Errorf("a rejected evaluation returned a Decision")
			}
			wantFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
}

// TestDecisionContent checks every bound value of an allow Decision and that
// obligations of all matched rules are deduplicated and ordered.
func TestDecisionContent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a1 := allow("allow-b", matches)
	a1.Obligations = []policy.ObligationDraft{{Kind: "requireSingleUseAuthorization"}, {Kind: "maximumEvaluationAgeSeconds", Seconds: "60"}}
	a2 := allow("allow-a", pred(policy.PredicateDraft{Name: "riskIs", Value: "high"}))
	a2.Obligations = []policy.ObligationDraft{{Kind: "maximumEvaluationAgeSeconds", Seconds: "60"}, {Kind: "requireCompleteInfluenceBoundary", Boundary: "inbox"}}
	unmatched := allow("allow-c", misses)
	unmatched.Obligations = []policy.ObligationDraft{{Kind: "requireAuditEvent"}}
	s := e.publish(t, snapshotOf(a1, a2, unmatched))
	in := baseFacts(e.b)
	d := evaluate(t, in, s)
	type view struct {
		ID, Outcome, Version  string
		Capabilities          []vocab.Capability
		Resources, Obligation []string
		Matched               []string
		Reasons               []vocab.Reason
	}
	got := view{ID: d.ID().String(), Outcome: d.Outcome().String(), Version: d.Version().String(),
		Capabilities: d.Capabilities(), Matched: tokens(d.MatchedRules()), Reasons: d.Reasons()}
	for _, r := range d.Resources() {
		got.Resources = append(got.Resources, r.String())
	}
	for _, o := range d.Obligations() {
		got.Obligation = append(got.Obligation, o.Key())
	}
	want := view{ID: "decision-1", Outcome: "allow", Version: "v1",
		Capabilities: []vocab.Capability{vocab.FinancialTransfer}, Resources: []string{"acct-1"},
		Obligation: []string{"1:60", "2:inbox", "3"}, Matched: []string{"allow-a", "allow-b"},
		Reasons: reasons(vocab.ReasonAllowRuleMatched)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
	if d.Snapshot() != s || d.Policy() != s.Policy(0) || d.Input() != nil || !d.Domain().Same(e.b.Domain()) {
		t.Errorf("decision does not bind the exact snapshot, policy and domain, or claims an engine input it was not given")
	}
	if !d.InputDigest().Equal(in.Digest()) || d.Selection() != selection(s, "payments", 1) {
		t.Errorf("decision does not bind the input digest and selection")
	}
}

// TestEvaluationIsPure proves that evaluation mutates neither the Evaluation
// Input nor the Snapshot and that accessor results are copies.
func TestEvaluationIsPure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := allow("allow", matches)
	r.Scope = broadScope()
	r.Obligations = []policy.ObligationDraft{{Kind: "requireAuditEvent"}}
	s := e.publish(t, snapshotOf(r, deny("deny", misses)))
	before := s.Digest()
	in := baseFacts(e.b)
	in.requestedRes = []ident.Resource{res("acct-2"), res("acct-1")} // deliberately unordered
	in.requested = []vocab.Capability{vocab.FinancialTransfer, vocab.DataRead}
	in.hostRes = []ident.Resource{res("acct-2"), res("acct-1")}
	snapshotFacts := func() []any {
		return []any{slices.Clone(in.requestedRes), slices.Clone(in.hostRes), slices.Clone(in.requested),
			slices.Clone(in.methods), slices.Clone(in.kinds), slices.Clone(in.collections), len(in.records)}
	}
	want := snapshotFacts()
	d := evaluate(t, in, s)
	if diff := cmp.Diff(want, snapshotFacts(), cmp.Comparer(func(a, b ident.Resource) bool { return a == b }),
		cmp.Comparer(func(a, b ident.ControlledID) bool { return a == b })); diff != "" {
		t.Errorf("evaluation mutated its input (-before +after):\n%s", diff)
	}
	if !s.Digest().Equal(before) {
		t.Errorf("evaluation mutated the snapshot")
	}
	if d.Outcome() != vocab.Allow || len(d.Resources()) != 2 {
		t.Fatalf("decision = %v %v, want allow on both resources", d.Outcome(), d.Resources())
	}
	d.Resources()[0] = res("mutated")
	d.Capabilities()[0] = vocab.ResourceDelete
	d.Obligations()[0] = policy.Obligation{}
	d.Reasons()[0] = vocab.ReasonPolicyInvalid
	again := evaluate(t, in, s)
	if !d.Equal(again) || d.Resources()[0] != res("acct-1") || d.Obligations()[0].Key() != "4" {
		t.Errorf("mutating accessor results changed the Decision")
	}
}
