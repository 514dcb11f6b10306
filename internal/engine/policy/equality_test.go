package policy_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/policy"
)

// substitutionBase is a snapshot exercising every kind of rule content.
func substitutionBase() policy.SnapshotDraft {
	a := allow("allow", allOf(matches, pred(policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "300"})))
	a.Scope = &policy.ScopeDraft{Capabilities: []string{"financial.transfer"}, Resources: []string{"acct-1", "acct-2"}}
	a.Obligations = []policy.ObligationDraft{{Kind: "maximumEvaluationAgeSeconds", Seconds: "60"}}
	return snapshotOf(a, deny("deny", misses))
}

// TestSameIdentitySubstitution proves P-019: two snapshots with the same
// identity and generation that differ in any rule content have different
// digests, are not equal, and yield unequal Decisions, even where the
// outcome is the same.
func TestSameIdentitySubstitution(t *testing.T) {
	t.Parallel()
	rule := func(f func(*policy.RuleDraft)) func(*policy.SnapshotDraft) {
		return func(d *policy.SnapshotDraft) { f(&d.Policies[0].Rules[0]) }
	}
	cases := map[string]func(*policy.SnapshotDraft){
		"a predicate operand": rule(func(r *policy.RuleDraft) {
			r.Condition.All[1] = pred(policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "301"})
		}),
		"an effect": rule(func(r *policy.RuleDraft) { r.Effect = "requireConfirmation" }),
		"a reason":  rule(func(r *policy.RuleDraft) { r.Reason = "toolMismatch" }),
		"an obligation operand": rule(func(r *policy.RuleDraft) {
			r.Obligations[0].Seconds = "61"
		}),
		"an added obligation": rule(func(r *policy.RuleDraft) {
			r.Obligations = append(r.Obligations, policy.ObligationDraft{Kind: "requireSingleUseAuthorization"})
		}),
		"a removed obligation": rule(func(r *policy.RuleDraft) { r.Obligations = nil }),
		"a constraint capability": rule(func(r *policy.RuleDraft) {
			r.Scope.Capabilities = append(r.Scope.Capabilities, "data.read")
		}),
		"a constraint resource": rule(func(r *policy.RuleDraft) { r.Scope.Resources = r.Scope.Resources[:1] }),
		"a rule identity":       rule(func(r *policy.RuleDraft) { r.ID = "allow-2" }),
		"a compound kind": rule(func(r *policy.RuleDraft) {
			r.Condition = policy.ConditionDraft{Any: r.Condition.All}
		}),
		"a lifecycle": func(d *policy.SnapshotDraft) { d.Policies[0].Lifecycle = "deprecated" },
		"an added rule": func(d *policy.SnapshotDraft) {
			d.Policies[0].Rules = append(d.Policies[0].Rules, deny("deny-2", misses))
		},
		"an added policy": func(d *policy.SnapshotDraft) {
			d.Policies = append(d.Policies, policy.DefinitionDraft{ID: "other", Generation: "1", Lifecycle: "active", Rules: []policy.RuleDraft{deny("d", misses)}})
		},
	}
	for name, modify := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			a := e.publish(t, substitutionBase())
			d := substitutionBase()
			modify(&d)
			b := e.publish(t, d)
			if a.ID() != b.ID() || a.Generation() != b.Generation() {
				t.Fatalf("the substitute must keep the identity and generation")
			}
			if a.Digest().Equal(b.Digest()) || a.Equal(b) {
				t.Errorf("same-identity snapshots with different content are equal")
			}
			in := baseFacts(e.b)
			da, db := evaluate(t, in, a), evaluate(t, in, b)
			if da.Equal(db) {
				t.Errorf("decisions from substituted snapshots are equal")
			}
		})
	}
}

// TestSnapshotEquality proves that complete equality needs the same content
// and the same Host domain: a republished identical draft is equal, the same
// content in another domain is not.
func TestSnapshotEquality(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.publish(t, substitutionBase()), e.publish(t, substitutionBase())
	if !a.Equal(b) {
		t.Errorf("republishing the same draft by the same publisher is not equal")
	}
	other := newEnv(t)
	c := other.publish(t, substitutionBase())
	if a.Equal(c) {
		t.Errorf("snapshots in different Host domains are equal")
	}
	if a.Equal(nil) || (*policy.Snapshot)(nil).Equal(nil) {
		t.Errorf("nil snapshots are equal")
	}
	if a.Policy(0).Digest() != b.Policy(0).Digest() || a.Policy(0).Rule(0).Digest() != b.Policy(0).Rule(0).Digest() {
		t.Errorf("definition or rule digests differ for identical content")
	}
}

// TestDecisionEquality proves Section 22 continuity: identical inputs give
// equal Decisions; a different Decision identity, input digest, selection,
// snapshot or domain does not, even with the same outcome.
func TestDecisionEquality(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	draft := substitutionBase()
	draft.Policies = append(draft.Policies, policy.DefinitionDraft{ID: "payments", Generation: "2", Lifecycle: "active", Rules: draft.Policies[0].Rules})
	s := e.publish(t, draft)
	in := baseFacts(e.b)
	eval := func(in policy.Facts, s *policy.Snapshot, sel policy.Selection, id string) *policy.Decision {
		d, err := policy.EvaluateFacts(in, s, sel, id)
		if err != nil {
			t.Fatalf("Evaluate: %v", err)
		}
		return d
	}
	base := eval(in, s, selection(s, "payments", 1), "decision-1")
	if !base.Equal(eval(in, s, selection(s, "payments", 1), "decision-1")) {
		t.Errorf("identical evaluations are not equal")
	}
	other := newEnv(t)
	otherIn := baseFacts(other.b)
	cases := map[string]*policy.Decision{
		"another decision identity": eval(in, s, selection(s, "payments", 1), "decision-2"),
		"another input digest": func() *policy.Decision {
			f := baseFacts(e.b)
			f.salt = "other"
			return eval(f, s, selection(s, "payments", 1), "decision-1")
		}(),
		"another selected policy version with identical rules": eval(in, s, selection(s, "payments", 2), "decision-1"),
		"the same content in another Host domain":              eval(otherIn, other.publish(t, draft), selection(s, "payments", 1), "decision-1"),
	}
	again := eval(in, e.publish(t, draft), selection(s, "payments", 1), "decision-1")
	if !base.Equal(again) {
		t.Errorf("a decision over an equal republished snapshot is not equal")
	}
	for name, d := range cases {
		if d.Outcome() != base.Outcome() {
			t.Fatalf("%s: outcome %v differs; the test wants equal outcomes", name, d.Outcome())
		}
		if base.Equal(d) || base.Digest().Equal(d.Digest()) && base.Domain().Same(d.Domain()) {
			t.Errorf("%s: decisions are equal", name)
		}
	}
	if base.Equal(nil) {
		t.Errorf("a nil decision is equal")
	}
}
