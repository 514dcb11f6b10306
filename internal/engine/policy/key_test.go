package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// conditionKeys publishes one deny rule per condition and returns each
// rule's normalized condition key by rule identity.
func conditionKeys(t *testing.T, conds map[string]policy.ConditionDraft) map[string]string {
	t.Helper()
	e := newEnv(t)
	var rules []policy.RuleDraft
	ids := map[string]string{}
	i := 0
	for name, c := range conds {
		id := "rule-" + twoDigits(i)
		ids[id] = name
		rules = append(rules, deny(id, c))
		i++
	}
	s := e.publish(t, snapshotOf(rules...))
	got := map[string]string{}
	def := s.Policy(0)
	for j := range def.Len() {
		r := def.Rule(j)
		got[ids[r.ID().String()]] = r.Condition().Key()
	}
	return got
}

// TestConditionKeys checks Condition.Key against keys derived by hand from
// the Section 50 normalization rules: "2:" + two-digit predicate order, then
// ":" and the normalized operand; identifiers exact, generations, counts and
// seconds canonical decimal, enum operands their 0-based Section 48 order
// number, lists normalized then comma-joined; 03 joins identity:generation,
// 28 boundary:completeness order, 34 issuedAt:notBefore:expiresAt;
// all -> "0[...]", any -> "1[...]" over ASCII-sorted child keys (whole-key
// ASCII order: "-" sorts before ".", unlike Tool Identifier segment order).
func TestConditionKeys(t *testing.T) {
	t.Parallel()
	p := func(d policy.PredicateDraft) policy.ConditionDraft { return pred(d) }
	conds := map[string]policy.ConditionDraft{
		"2:00:payments.submit":              p(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}),
		"2:01:3":                            p(policy.PredicateDraft{Name: "exactToolVersion", Generation: "3"}),
		"2:02:payments-submit-3":            p(policy.PredicateDraft{Name: "exactDefinitionID", Identifier: "payments-submit-3"}),
		"2:03:registry-main:7":              p(policy.PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "registry-main", Generation: "7"}),
		"2:04:1":                            p(policy.PredicateDraft{Name: "lifecycleIs", Value: "deprecated"}),
		"2:05:3":                            p(policy.PredicateDraft{Name: "riskIs", Value: "critical"}),
		"2:06:4":                            p(policy.PredicateDraft{Name: "sideEffectIs", Value: "financial"}),
		"2:07:3":                            p(policy.PredicateDraft{Name: "reversibilityIs", Value: "irreversible"}),
		"2:08:alice":                        p(policy.PredicateDraft{Name: "exactSubject", Identifier: "alice"}),
		"2:09:acme":                         p(policy.PredicateDraft{Name: "exactTenant", Identifier: "acme"}),
		"2:10:sess-1":                       p(policy.PredicateDraft{Name: "exactSession", Identifier: "sess-1"}),
		"2:11":                              p(policy.PredicateDraft{Name: "sessionIsIndependent"}),
		"2:12":                              p(policy.PredicateDraft{Name: "delegationPresent"}),
		"2:13:deleg-1":                      p(policy.PredicateDraft{Name: "exactDelegationID", Identifier: "deleg-1"}),
		"2:14:2,5":                          p(policy.PredicateDraft{Name: "assuranceIsOneOf", Values: []string{"hardwareBound", "singleFactor"}}),
		"2:15:4":                            p(policy.PredicateDraft{Name: "authenticationMethodIncludes", Value: "federated"}),
		"2:16:1,2":                          p(policy.PredicateDraft{Name: "authenticationMethodsIncludeAll", Values: []string{"possessionFactor", "knowledgeFactor"}}),
		"2:17:1,3":                          p(policy.PredicateDraft{Name: "requestedCapabilitiesSubsetOf", Values: []string{"financial.transfer", "data.read"}}),
		"2:18:4":                            p(policy.PredicateDraft{Name: "requestedCapabilitiesInclude", Values: []string{"resource.delete"}}),
		"2:19:0":                            p(policy.PredicateDraft{Name: "intendedCapabilitiesInclude", Values: []string{"communication.external"}}),
		"2:20:acct-1":                       p(policy.PredicateDraft{Name: "exactRequestedResource", Identifier: "acct-1"}),
		"2:21:acct-1,acct-2":                p(policy.PredicateDraft{Name: "requestedResourcesSubsetOf", Values: []string{"acct-2", "acct-1"}}),
		"2:22:r01":                          p(policy.PredicateDraft{Name: "requestedResourcesInclude", Values: []string{"r01"}}),
		"2:23:1":                            p(policy.PredicateDraft{Name: "provenanceCoverageIs", Value: "represented"}),
		"2:24:9":                            p(policy.PredicateDraft{Name: "provenanceContainsSource", Value: "importedExternalData"}),
		"2:25:0,2":                          p(policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"hostVerified", "unknown"}}),
		"2:26:6":                            p(policy.PredicateDraft{Name: "provenanceContainsTransformation", Value: "combined"}),
		"2:27":                              p(policy.PredicateDraft{Name: "provenanceContainsNoSemanticTransformation"}),
		"2:28:inbox:1":                      p(policy.PredicateDraft{Name: "influenceBoundaryCompletenessIs", Identifier: "inbox", Value: "partial"}),
		"2:29":                              p(policy.PredicateDraft{Name: "allInfluenceBoundariesComplete"}),
		"2:30:10":                           p(policy.PredicateDraft{Name: "influenceContainsKind", Value: "externalEvent"}),
		"2:31:4":                            p(policy.PredicateDraft{Name: "influenceContainsNoKind", Value: "email"}),
		"2:32:web":                          p(policy.PredicateDraft{Name: "exactInfluenceBoundary", Identifier: "web"}),
		"2:33:64":                           p(policy.PredicateDraft{Name: "maximumInfluenceCount", Count: "64"}),
		"2:34:0:10:4102444800":              p(policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "0", NotBefore: "10", ExpiresAt: "4102444800"}}),
		"2:35:18446744073709551615":         p(policy.PredicateDraft{Name: "renewalGenerationIs", Generation: "18446744073709551615"}),
		"2:36:0":                            p(policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "0"}),
		"2:37:3600":                         p(policy.PredicateDraft{Name: "maximumContextAge", Seconds: "3600"}),
		"0[2:00:a.b,2:05:2]":                allOf(p(policy.PredicateDraft{Name: "riskIs", Value: "high"}), toolIs("a.b")),
		"1[0[2:11,2:12],2:08:bob]":          anyOf(p(policy.PredicateDraft{Name: "exactSubject", Identifier: "bob"}), allOf(p(policy.PredicateDraft{Name: "delegationPresent"}), p(policy.PredicateDraft{Name: "sessionIsIndependent"}))),
		"0[1[2:00:a.b],2:00:a.b]":           allOf(toolIs("a.b"), anyOf(toolIs("a.b"))),
		"1[0[2:00:x.y],1[2:00:x.y]]":        anyOf(anyOf(toolIs("x.y")), allOf(toolIs("x.y"))),
		"0[2:00:a-b.c,2:00:a.b,2:00:a.b.c]": allOf(toolIs("a-b.c"), toolIs("a.b.c"), toolIs("a.b")),
	}
	got := conditionKeys(t, conds)
	want := map[string]string{}
	for k := range conds {
		want[k] = k
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("condition keys (-want +got):\n%s", diff)
	}
}

// TestConditionNormalization proves that compound children are held in key
// order whatever the draft order, with the accessor view matching the key.
func TestConditionNormalization(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	risk := pred(policy.PredicateDraft{Name: "riskIs", Value: "high"})
	s := e.publish(t, snapshotOf(deny("r", anyOf(risk, allOf(misses, matches), toolIs("a.b")))))
	c := s.Policy(0).Rule(0).Condition()
	if c.Kind() != vocab.ConditionAny || c.Len() != 3 {
		t.Fatalf("root = %v with %d children, want any with 3", c.Kind(), c.Len())
	}
	var got []string
	for i := range c.Len() {
		got = append(got, c.Child(i).Key())
	}
	want := []string{"0[2:00:payments.refund,2:00:payments.submit]", "2:00:a.b", "2:05:2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("children (-want +got):\n%s", diff)
	}
	if c.Child(2).Kind() != vocab.ConditionPredicate || c.Child(2).Predicate() != vocab.RiskIs {
		t.Errorf("child 2 = %v %v, want predicate riskIs", c.Child(2).Kind(), c.Child(2).Predicate())
	}
}

// TestObligationOrder checks the Section 50 obligation key and order: ASCII
// order of "0", "1:<seconds>", "2:<boundary>", "3", "4", with seconds
// compared lexically within kind 1.
func TestObligationOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := allow("r", matches)
	r.Obligations = []policy.ObligationDraft{
		{Kind: "requireAuditEvent"},
		{Kind: "maximumEvaluationAgeSeconds", Seconds: "60"},
		{Kind: "requireCompleteInfluenceBoundary", Boundary: "inbox"},
		{Kind: "maximumEvaluationAgeSeconds", Seconds: "3600"},
		{Kind: "requireSingleUseAuthorization"},
		{Kind: "maximumEvaluationAgeSeconds", Seconds: "30"},
		{Kind: "requireConfirmation"},
	}
	s := e.publish(t, snapshotOf(r))
	var got []string
	for _, o := range s.Policy(0).Rule(0).Obligations() {
		got = append(got, o.Key())
	}
	want := []string{"0", "1:30", "1:3600", "1:60", "2:inbox", "3", "4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("obligation order (-want +got):\n%s", diff)
	}
	o := s.Policy(0).Rule(0).Obligations()[4]
	if o.Kind() != vocab.ObligationRequireCompleteInfluenceBoundary || o.Boundary().String() != "inbox" || o.Seconds() != 0 {
		t.Errorf("obligation 4 = %v %q %d", o.Kind(), o.Boundary(), o.Seconds())
	}
	if o := s.Policy(0).Rule(0).Obligations()[2]; o.Seconds() != 3600 {
		t.Errorf("obligation 2 seconds = %d, want 3600", o.Seconds())
	}
}
