package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
)

// TestPublishReportsEveryObligationViolation: every obligation of a rule is
// checked, and each rejection is reported at its own index.
func TestPublishReportsEveryObligationViolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := deny("deny-all", pred(policy.PredicateDraft{Name: "riskIs", Value: "critical"}))
	r.Obligations = []policy.ObligationDraft{
		{Kind: "bogus"},
		{Kind: "requireSingleUseAuthorization"},
		{Kind: "maximumEvaluationAgeSeconds", Seconds: "0"},
		{Kind: "requireSingleUseAuthorization"},
	}
	_, err := policy.Publish(e.admin, snapshotOf(r))
	var got []string
	for _, f := range fault.All(err) {
		got = append(got, f.Path+" "+f.Code.String())
	}
	want := []string{
		"policies[0].rules[0].obligations[0].kind unknownToken",
		"policies[0].rules[0].obligations[2].seconds outOfRange",
		"policies[0].rules[0].obligations[3] duplicate",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
}
