package policy_test

import (
	"github.com/toolgate/toolgate/internal/engine/policy"
)

func p(name string, mod ...func(*policy.PredicateDraft)) policy.ConditionDraft {
	d := policy.PredicateDraft{Name: name}
	for _, m := range mod {
		m(&d)
	}
	return pred(d)
}

func withID(s string) func(*policy.PredicateDraft) {
	return func(d *policy.PredicateDraft) { d.Identifier = s }
}
func withGen(s string) func(*policy.PredicateDraft) {
	return func(d *policy.PredicateDraft) { d.Generation = s }
}
func withValue(s string) func(*policy.PredicateDraft) {
	return func(d *policy.PredicateDraft) { d.Value = s }
}
func withValues(s ...string) func(*policy.PredicateDraft) {
	return func(d *policy.PredicateDraft) { d.Values = s }
}
func withSeconds(s string) func(*policy.PredicateDraft) {
	return func(d *policy.PredicateDraft) { d.Seconds = s }
}
func withCount(s string) func(*policy.PredicateDraft) {
	return func(d *policy.PredicateDraft) { d.Count = s }
}

// realisticDraft is a two-policy snapshot whose selected policy "payments"
// has 20 rules mixing most predicate families, nested compounds, scopes and
// obligations. Against baseFacts exactly one rule (allow-payments) matches.
func realisticDraft() policy.SnapshotDraft {
	scope := func(caps []string, resources ...string) *policy.ScopeDraft {
		return &policy.ScopeDraft{Capabilities: caps, Resources: resources}
	}
	fin := []string{"financial.transfer"}
	rule := func(id, effect, reason string, c policy.ConditionDraft, s *policy.ScopeDraft, obs ...policy.ObligationDraft) policy.RuleDraft {
		return policy.RuleDraft{ID: id, Effect: effect, Reason: reason, Condition: c, Scope: s, Obligations: obs}
	}
	rules := []policy.RuleDraft{
		rule("deny-retired-tool", "deny", "lifecycleDenied", p("lifecycleIs", withValue("retired")), nil),
		rule("deny-deprecated-high", "deny", "lifecycleDenied", allOf(p("lifecycleIs", withValue("deprecated")), p("riskIs", withValue("high"))), nil),
		rule("deny-critical-unverified", "deny", "provenanceInsufficient", allOf(
			p("riskIs", withValue("critical")),
			anyOf(p("provenanceTrustIsOneOf", withValues("untrusted", "unknown")), p("provenanceCoverageIs", withValue("unknown"))),
		), nil),
		rule("deny-other-tenant", "deny", "tenantMismatch", allOf(
			p("exactToolID", withID("payments.submit")),
			anyOf(p("exactTenant", withID("globex")), p("exactTenant", withID("initech"))),
		), nil),
		rule("deny-model-output", "deny", "provenanceInsufficient", p("provenanceContainsSource", withValue("modelOutput")), nil),
		rule("deny-translated", "deny", "provenanceInsufficient", allOf(p("provenanceContainsTransformation", withValue("translated")), p("riskIs", withValue("high"))), nil),
		rule("deny-unknown-coverage", "deny", "provenanceInsufficient", p("provenanceCoverageIs", withValue("unknown")), nil),
		rule("deny-memory", "deny", "influenceKindDenied", p("influenceContainsKind", withValue("memory")), nil),
		rule("deny-web-instructions", "deny", "influenceKindDenied", allOf(p("exactInfluenceBoundary", withID("web")), p("influenceContainsKind", withValue("systemInstruction"))), nil),
		rule("deny-partial-inbox", "deny", "influenceIncomplete", p("influenceBoundaryCompletenessIs", withID("inbox"), withValue("partial")), nil),
		rule("deny-weak-auth", "deny", "assuranceInsufficient", p("assuranceIsOneOf", withValues("unknown", "unauthenticated")), nil),
		rule("deny-other-session", "deny", "sessionMismatch", allOf(p("exactSubject", withID("alice")), p("exactSession", withID("sess-x"))), nil),
		rule("deny-delegated-critical", "deny", "delegationRequired", allOf(p("delegationPresent"), p("riskIs", withValue("critical"))), nil),
		rule("deny-irreversible", "deny", "toolMismatch", p("reversibilityIs", withValue("irreversible")), nil),
		rule("confirm-second-account", "requireConfirmation", "confirmationRuleMatched", allOf(
			p("exactToolID", withID("payments.submit")), p("requestedResourcesInclude", withValues("acct-2")),
		), scope(fin, "acct-1", "acct-2"), policy.ObligationDraft{Kind: "requireConfirmation"}),
		rule("confirm-external", "requireConfirmation", "confirmationRuleMatched", p("requestedCapabilitiesInclude", withValues("communication.external")),
			scope([]string{"communication.external"})),
		rule("confirm-refund", "requireConfirmation", "confirmationRuleMatched", p("exactToolID", withID("payments.refund")), scope(fin, "acct-1")),
		rule("allow-payments", "allow", "allowRuleMatched", allOf(
			p("exactToolID", withID("payments.submit")),
			p("exactToolVersion", withGen("3")),
			p("exactRegistrySnapshot", withID("registry-main"), withGen("7")),
			p("sideEffectIs", withValue("financial")),
			anyOf(
				p("assuranceIsOneOf", withValues("multiFactor", "phishingResistant", "hardwareBound")),
				p("authenticationMethodIncludes", withValue("hardwareAuthenticator")),
			),
			p("authenticationMethodsIncludeAll", withValues("knowledgeFactor", "possessionFactor")),
			p("intendedCapabilitiesInclude", withValues("financial.transfer")),
			p("requestedCapabilitiesSubsetOf", withValues("financial.transfer", "data.read")),
			p("requestedResourcesSubsetOf", withValues("acct-1", "acct-2")),
			p("provenanceContainsNoSemanticTransformation"),
			p("influenceBoundaryCompletenessIs", withID("inbox"), withValue("complete")),
			p("maximumInfluenceCount", withCount("16")),
			p("maximumIntentAge", withSeconds("300")),
			p("maximumContextAge", withSeconds("600")),
			p("renewalGenerationIs", withGen("2")),
			pred(policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "0", NotBefore: "500", ExpiresAt: "100000"}}),
		), scope(fin, "acct-1", "acct-2"),
			policy.ObligationDraft{Kind: "maximumEvaluationAgeSeconds", Seconds: "60"},
			policy.ObligationDraft{Kind: "requireSingleUseAuthorization"}),
		rule("allow-reads", "allow", "allowRuleMatched", allOf(
			p("requestedCapabilitiesSubsetOf", withValues("data.read")), p("riskIs", withValue("low")),
		), scope([]string{"data.read"}, "acct-1", "acct-2", "r00")),
		rule("allow-lookup", "allow", "allowRuleMatched", allOf(
			p("exactToolID", withID("accounts.lookup")), p("sessionIsIndependent"), p("exactDefinitionID", withID("accounts-lookup-1")),
		), scope([]string{"data.read"})),
	}
	return policy.SnapshotDraft{ID: "snap", Generation: "1", Policies: []policy.DefinitionDraft{
		{ID: "payments", Generation: "1", Lifecycle: "active", Rules: rules},
		{ID: "audit", Generation: "4", Lifecycle: "deprecated", Rules: []policy.RuleDraft{
			rule("deny-all", "deny", "denyRuleMatched", p("exactToolID", withID("payments.submit")), nil),
		}},
	}}
}
