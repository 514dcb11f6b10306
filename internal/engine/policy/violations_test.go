package policy_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestPublicationReportsEveryViolation proves that a publication reports
// every violation at its path, not only the first, so a reviewer fixes a
// draft in one round.
func TestPublicationReportsEveryViolation(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		successor bool
		draft     policy.SnapshotDraft
		want      []string
	}{
		"violations in two rules of two policies and in the identity": {
			draft: func() policy.SnapshotDraft {
				d := history()
				d.ID = "Not A Token"
				d.Policies[0].Rules[0].Reason = "because"
				d.Policies[2].Rules[0].Effect = "maybe"
				d.Policies[2].Lifecycle = "eternal"
				return d
			}(),
			want: []string{"id malformed", "policies[0].rules[0].reason unknownToken", "policies[2].lifecycle unknownToken", "policies[2].rules[0].effect unknownToken"},
		},
		"a rule with several faulty parts": {
			draft: func() policy.SnapshotDraft {
				d := history()
				d.Policies[1].Rules[1].ID = "Bad ID"
				d.Policies[1].Rules[1].Reason = "because"
				return d
			}(),
			want: []string{"policies[1].rules[1].id malformed", "policies[1].rules[1].reason unknownToken"},
		},
		"every bad member of one scope constraint": {
			draft: func() policy.SnapshotDraft {
				d := history()
				d.Policies[0].Rules[0].Scope = &policy.ScopeDraft{
					Capabilities: []string{"data.read", "SECRET.cap", "data.read"},
					Resources:    []string{"secret-not-in-ceiling", "Bad Resource"},
				}
				return d
			}(),
			want: []string{
				"policies[0].rules[0].scope.capabilities[1] unknownToken",
				"policies[0].rules[0].scope.capabilities[2] duplicate",
				"policies[0].rules[0].scope.resources[0] outOfRange",
				"policies[0].rules[0].scope.resources[1] malformed",
			},
		},
		"every faulty node of one condition tree": {
			draft: func() policy.SnapshotDraft {
				d := history()
				d.Policies[0].Rules[0].Condition = policy.ConditionDraft{All: []policy.ConditionDraft{
					{Predicate: &policy.PredicateDraft{Name: "sideEffectIs", Value: "financial"}},
					{Predicate: &policy.PredicateDraft{Name: "noSuchPredicate"}},
					{Any: []policy.ConditionDraft{
						{Predicate: &policy.PredicateDraft{Name: "sideEffectIs", Value: "astral"}},
						{},
					}},
				}}
				return d
			}(),
			want: []string{
				"policies[0].rules[0].condition.all[1].predicate.name unknownToken",
				"policies[0].rules[0].condition.all[2].any[0].predicate.value unknownToken",
				"policies[0].rules[0].condition.all[2].any[1] missing",
			},
		},
		"a bound exceeded in a tree stops its walk after the faults before it": {
			draft: func() policy.SnapshotDraft {
				d := history()
				leaf := policy.ConditionDraft{Predicate: &policy.PredicateDraft{Name: "sideEffectIs", Value: "financial"}}
				deep := leaf
				for range policy.MaxDepth {
					deep = policy.ConditionDraft{All: []policy.ConditionDraft{deep}}
				}
				d.Policies[0].Rules[0].Condition = policy.ConditionDraft{Any: []policy.ConditionDraft{
					{Predicate: &policy.PredicateDraft{Name: "noSuchPredicate"}},
					deep,
					{Predicate: &policy.PredicateDraft{Name: "noSuchPredicate"}},
				}}
				return d
			}(),
			want: []string{
				"policies[0].rules[0].condition.any[0].predicate.name unknownToken",
				"policies[0].rules[0].condition.any[1].all[0].all[0].all[0].all[0].all[0].all[0].all[0] limitExceeded",
			},
		},
		"a successor that drops one version and changes and revives others": {
			successor: true,
			draft: next(func(d *policy.SnapshotDraft) {
				d.Policies[1].Lifecycle = "active"               // deprecated back to active
				d.Policies[2].Rules[0].Reason = "tenantMismatch" // changed content
				d.Policies = d.Policies[1:]                      // payments/1 dropped
			}),
			want: []string{"policies missing", "policies[0].lifecycle ineligible", "policies[1].rules mismatch"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var err error
			if tc.successor {
				prev := e.publish(t, history())
				_, err = policy.PublishSuccessor(e.admin, prev, tc.draft)
			} else {
				_, err = policy.Publish(e.admin, tc.draft)
			}
			testutil.CheckFaultList(t, err, tc.want)
			if msg := strings.ToLower(err.Error()); strings.Contains(msg, "secret") || strings.Contains(msg, "bad resource") {
				t.Errorf("the rejection echoes a rejected value: %v", err)
			}
		})
	}
}
