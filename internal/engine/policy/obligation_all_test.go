package policy_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/testutil"
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
	testutil.CheckFaultList(t, err, []string{
		"policies[0].rules[0].obligations[0].kind unknownToken",
		"policies[0].rules[0].obligations[2].seconds outOfRange",
		"policies[0].rules[0].obligations[3] duplicate",
	})
}
