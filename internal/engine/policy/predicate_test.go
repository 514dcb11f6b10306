package policy_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

const (
	isMatched       = "matched"
	isNotMatched    = "not matched"
	isIndeterminate = "indeterminate"
)

// broadScope permits every Capability and every ceiling Resource, so that a
// single allow rule's outcome reflects only its condition.
func broadScope() *policy.ScopeDraft {
	return &policy.ScopeDraft{
		Capabilities: []string{"communication.external", "data.read", "data.write", "financial.transfer", "resource.delete"},
		Resources:    hostResources(),
	}
}

// classify evaluates p as the only condition of one broad allow rule and
// reads the predicate's three-valued result from the Decision: allow is
// matched, noAllowRuleMatched is not matched, conditionIndeterminate is
// indeterminate.
func classify(t *testing.T, e env, p policy.PredicateDraft, in *facts) string {
	t.Helper()
	r := allow("rule", pred(p))
	r.Scope = broadScope()
	d := evaluate(t, in, e.publish(t, snapshotOf(r)))
	switch rs := d.Reasons(); {
	case d.Outcome() == vocab.Allow:
		return isMatched
	case len(rs) == 1 && rs[0] == vocab.ReasonNoAllowRuleMatched:
		return isNotMatched
	case len(rs) == 1 && rs[0] == vocab.ReasonConditionIndeterminate:
		return isIndeterminate
	default:
		t.Fatalf("unexpected decision %v %v", d.Outcome(), rs)
		return ""
	}
}

// TestPredicates derives one row per result of each of the 38 predicates
// from the Section 20 condition-family table, including every case of its
// "Indeterminate case" column; every other comparison is matched or not
// matched and never indeterminate.
func TestPredicates(t *testing.T) {
	t.Parallel()
	independent := func(f *facts) {
		f.identity = identity(principal.Draft{Subject: "alice", Tenant: "acme", SessionIndependent: true})
	}
	delegated := func(f *facts) {
		f.identity = identity(principal.Draft{Subject: "alice", Tenant: "acme", Session: "sess-1", Delegation: "deleg-1"})
	}
	noCoverage := func(f *facts) { f.coverage, f.records = vocab.CoverageUnknown, nil }
	noCollections := func(f *facts) { f.collections, f.kinds = nil, nil }
	cases := map[string]struct {
		pred   policy.PredicateDraft
		modify func(*facts)
		want   string
	}{
		"00 exactToolID: equal Tool Identifier matches": {
			pred: policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}, want: isMatched},
		"00 exactToolID: another Tool Identifier does not match": {
			pred: policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.refund"}, want: isNotMatched},
		"01 exactToolVersion: equal Tool Version matches": {
			pred: policy.PredicateDraft{Name: "exactToolVersion", Generation: "3"}, want: isMatched},
		"01 exactToolVersion: another version does not match": {
			pred: policy.PredicateDraft{Name: "exactToolVersion", Generation: "4"}, want: isNotMatched},
		"02 exactDefinitionID: equal definition identity matches": {
			pred: policy.PredicateDraft{Name: "exactDefinitionID", Identifier: "payments-submit-3"}, want: isMatched},
		"02 exactDefinitionID: another definition does not match": {
			pred: policy.PredicateDraft{Name: "exactDefinitionID", Identifier: "payments-submit-4"}, want: isNotMatched},
		"03 exactRegistrySnapshot: equal identity and generation match": {
			pred: policy.PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "registry-main", Generation: "7"}, want: isMatched},
		"03 exactRegistrySnapshot: same identity, other generation does not match": {
			pred: policy.PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "registry-main", Generation: "8"}, want: isNotMatched},
		"03 exactRegistrySnapshot: other identity, same generation does not match": {
			pred: policy.PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "registry-other", Generation: "7"}, want: isNotMatched},
		"04 lifecycleIs: equal lifecycle matches": {
			pred: policy.PredicateDraft{Name: "lifecycleIs", Value: "active"}, want: isMatched},
		"04 lifecycleIs: other lifecycle does not match": {
			pred: policy.PredicateDraft{Name: "lifecycleIs", Value: "deprecated"}, want: isNotMatched},
		"05 riskIs: equal risk matches": {
			pred: policy.PredicateDraft{Name: "riskIs", Value: "high"}, want: isMatched},
		"05 riskIs: other risk does not match (no ordering)": {
			pred: policy.PredicateDraft{Name: "riskIs", Value: "critical"}, want: isNotMatched},
		"06 sideEffectIs: equal side effect matches": {
			pred: policy.PredicateDraft{Name: "sideEffectIs", Value: "financial"}, want: isMatched},
		"06 sideEffectIs: other side effect does not match": {
			pred: policy.PredicateDraft{Name: "sideEffectIs", Value: "readOnly"}, want: isNotMatched},
		"07 reversibilityIs: equal reversibility matches": {
			pred: policy.PredicateDraft{Name: "reversibilityIs", Value: "compensatable"}, want: isMatched},
		"07 reversibilityIs: other reversibility does not match": {
			pred: policy.PredicateDraft{Name: "reversibilityIs", Value: "irreversible"}, want: isNotMatched},
		"08 exactSubject: equal subject matches": {
			pred: policy.PredicateDraft{Name: "exactSubject", Identifier: "alice"}, want: isMatched},
		"08 exactSubject: other subject does not match": {
			pred: policy.PredicateDraft{Name: "exactSubject", Identifier: "bob"}, want: isNotMatched},
		"09 exactTenant: equal tenant matches": {
			pred: policy.PredicateDraft{Name: "exactTenant", Identifier: "acme"}, want: isMatched},
		"09 exactTenant: other tenant does not match": {
			pred: policy.PredicateDraft{Name: "exactTenant", Identifier: "globex"}, want: isNotMatched},
		"09 exactTenant: absent tenancy does not match and is not indeterminate": {
			pred: policy.PredicateDraft{Name: "exactTenant", Identifier: "acme"},
			modify: func(f *facts) {
				f.identity = identity(principal.Draft{Subject: "alice", Session: "sess-1"})
			}, want: isNotMatched},
		"10 exactSession: equal session matches": {
			pred: policy.PredicateDraft{Name: "exactSession", Identifier: "sess-1"}, want: isMatched},
		"10 exactSession: other session does not match": {
			pred: policy.PredicateDraft{Name: "exactSession", Identifier: "sess-2"}, want: isNotMatched},
		"10 exactSession: a session-independent input is indeterminate, not a wildcard": {
			pred: policy.PredicateDraft{Name: "exactSession", Identifier: "sess-1"}, modify: independent, want: isIndeterminate},
		"11 sessionIsIndependent: a bound session does not match": {
			pred: policy.PredicateDraft{Name: "sessionIsIndependent"}, want: isNotMatched},
		"11 sessionIsIndependent: explicit independence matches": {
			pred: policy.PredicateDraft{Name: "sessionIsIndependent"}, modify: independent, want: isMatched},
		"12 delegationPresent: no delegation does not match": {
			pred: policy.PredicateDraft{Name: "delegationPresent"}, want: isNotMatched},
		"12 delegationPresent: a delegation matches": {
			pred: policy.PredicateDraft{Name: "delegationPresent"}, modify: delegated, want: isMatched},
		"13 exactDelegationID: absent delegation is indeterminate": {
			pred: policy.PredicateDraft{Name: "exactDelegationID", Identifier: "deleg-1"}, want: isIndeterminate},
		"13 exactDelegationID: equal delegation matches": {
			pred: policy.PredicateDraft{Name: "exactDelegationID", Identifier: "deleg-1"}, modify: delegated, want: isMatched},
		"13 exactDelegationID: other delegation does not match": {
			pred: policy.PredicateDraft{Name: "exactDelegationID", Identifier: "deleg-2"}, modify: delegated, want: isNotMatched},
		"14 assuranceIsOneOf: membership matches": {
			pred: policy.PredicateDraft{Name: "assuranceIsOneOf", Values: []string{"phishingResistant", "multiFactor"}}, want: isMatched},
		"14 assuranceIsOneOf: non-membership does not match (no ordering)": {
			pred: policy.PredicateDraft{Name: "assuranceIsOneOf", Values: []string{"singleFactor", "hardwareBound"}}, want: isNotMatched},
		"15 authenticationMethodIncludes: a present method matches": {
			pred: policy.PredicateDraft{Name: "authenticationMethodIncludes", Value: "possessionFactor"}, want: isMatched},
		"15 authenticationMethodIncludes: an absent method does not match": {
			pred: policy.PredicateDraft{Name: "authenticationMethodIncludes", Value: "federated"}, want: isNotMatched},
		"16 authenticationMethodsIncludeAll: every method present matches": {
			pred: policy.PredicateDraft{Name: "authenticationMethodsIncludeAll", Values: []string{"possessionFactor", "knowledgeFactor"}}, want: isMatched},
		"16 authenticationMethodsIncludeAll: one missing method does not match": {
			pred: policy.PredicateDraft{Name: "authenticationMethodsIncludeAll", Values: []string{"possessionFactor", "hardwareAuthenticator"}}, want: isNotMatched},
		"17 requestedCapabilitiesSubsetOf: requested within operand matches": {
			pred: policy.PredicateDraft{Name: "requestedCapabilitiesSubsetOf", Values: []string{"financial.transfer", "data.read"}}, want: isMatched},
		"17 requestedCapabilitiesSubsetOf: requested outside operand does not match": {
			pred: policy.PredicateDraft{Name: "requestedCapabilitiesSubsetOf", Values: []string{"data.read"}}, want: isNotMatched},
		"18 requestedCapabilitiesInclude: requested includes operand matches": {
			pred: policy.PredicateDraft{Name: "requestedCapabilitiesInclude", Values: []string{"financial.transfer"}}, want: isMatched},
		"18 requestedCapabilitiesInclude: a missing operand member does not match": {
			pred: policy.PredicateDraft{Name: "requestedCapabilitiesInclude", Values: []string{"financial.transfer", "data.read"}}, want: isNotMatched},
		"19 intendedCapabilitiesInclude: Intent ceiling includes operand matches": {
			pred: policy.PredicateDraft{Name: "intendedCapabilitiesInclude", Values: []string{"data.read", "financial.transfer"}}, want: isMatched},
		"19 intendedCapabilitiesInclude: a member outside the Intent ceiling does not match": {
			pred: policy.PredicateDraft{Name: "intendedCapabilitiesInclude", Values: []string{"data.write"}}, want: isNotMatched},
		"20 exactRequestedResource: the exact singleton matches": {
			pred: policy.PredicateDraft{Name: "exactRequestedResource", Identifier: "acct-1"}, want: isMatched},
		"20 exactRequestedResource: another resource does not match": {
			pred: policy.PredicateDraft{Name: "exactRequestedResource", Identifier: "acct-2"}, want: isNotMatched},
		"20 exactRequestedResource: a non-singleton request does not match": {
			pred:   policy.PredicateDraft{Name: "exactRequestedResource", Identifier: "acct-1"},
			modify: func(f *facts) { f.requestedRes = []ident.Resource{res("acct-1"), res("acct-2")} }, want: isNotMatched},
		"21 requestedResourcesSubsetOf: requested within operand matches": {
			pred: policy.PredicateDraft{Name: "requestedResourcesSubsetOf", Values: []string{"acct-2", "acct-1"}}, want: isMatched},
		"21 requestedResourcesSubsetOf: requested outside operand does not match": {
			pred: policy.PredicateDraft{Name: "requestedResourcesSubsetOf", Values: []string{"acct-2"}}, want: isNotMatched},
		"22 requestedResourcesInclude: requested includes operand matches": {
			pred: policy.PredicateDraft{Name: "requestedResourcesInclude", Values: []string{"acct-1"}}, want: isMatched},
		"22 requestedResourcesInclude: a missing operand member does not match": {
			pred: policy.PredicateDraft{Name: "requestedResourcesInclude", Values: []string{"acct-1", "acct-2"}}, want: isNotMatched},
		"23 provenanceCoverageIs: represented equals represented": {
			pred: policy.PredicateDraft{Name: "provenanceCoverageIs", Value: "represented"}, want: isMatched},
		"23 provenanceCoverageIs: represented is not unknown": {
			pred: policy.PredicateDraft{Name: "provenanceCoverageIs", Value: "unknown"}, want: isNotMatched},
		"23 provenanceCoverageIs: unknown coverage equals unknown, never indeterminate": {
			pred: policy.PredicateDraft{Name: "provenanceCoverageIs", Value: "unknown"}, modify: noCoverage, want: isMatched},
		"24 provenanceContainsSource: a record with the source matches": {
			pred: policy.PredicateDraft{Name: "provenanceContainsSource", Value: "toolOutput"}, want: isMatched},
		"24 provenanceContainsSource: no record with the source does not match": {
			pred: policy.PredicateDraft{Name: "provenanceContainsSource", Value: "emailContent"}, want: isNotMatched},
		"24 provenanceContainsSource: unrepresented coverage is indeterminate": {
			pred: policy.PredicateDraft{Name: "provenanceContainsSource", Value: "toolOutput"}, modify: noCoverage, want: isIndeterminate},
		"25 provenanceTrustIsOneOf: every record's trust in the set matches": {
			pred: policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"untrusted", "hostVerified"}}, want: isMatched},
		"25 provenanceTrustIsOneOf: one record outside the set does not match": {
			pred: policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"hostVerified"}}, want: isNotMatched},
		"25 provenanceTrustIsOneOf: unrepresented coverage is indeterminate": {
			pred: policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"hostVerified"}}, modify: noCoverage, want: isIndeterminate},
		"25 provenanceTrustIsOneOf: an empty represented record set is indeterminate, not vacuously true": {
			pred:   policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"hostVerified"}},
			modify: func(f *facts) { f.records = nil }, want: isIndeterminate},
		"25 provenanceTrustIsOneOf: a record with an invalid trust class fails closed": {
			pred:   policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: []string{"untrusted", "hostVerified", "unknown"}},
			modify: func(f *facts) { f.records[0].Trust = 200 }, want: isNotMatched},
		"26 provenanceContainsTransformation: a record with the transformation matches": {
			pred: policy.PredicateDraft{Name: "provenanceContainsTransformation", Value: "redacted"}, want: isMatched},
		"26 provenanceContainsTransformation: no record with it does not match": {
			pred: policy.PredicateDraft{Name: "provenanceContainsTransformation", Value: "summarized"}, want: isNotMatched},
		"26 provenanceContainsTransformation: unrepresented coverage is indeterminate": {
			pred: policy.PredicateDraft{Name: "provenanceContainsTransformation", Value: "redacted"}, modify: noCoverage, want: isIndeterminate},
		"27 provenanceContainsNoSemanticTransformation: only structural transformations match": {
			pred: policy.PredicateDraft{Name: "provenanceContainsNoSemanticTransformation"}, want: isMatched},
		"27 provenanceContainsNoSemanticTransformation: a translated record does not match": {
			pred: policy.PredicateDraft{Name: "provenanceContainsNoSemanticTransformation"},
			modify: func(f *facts) {
				f.records = append(f.records, evalinput.ProvenanceFact{Source: vocab.SourceEmailContent, Trust: vocab.TrustUntrusted,
					Transformations: []vocab.Transformation{vocab.Extracted, vocab.Translated}})
			}, want: isNotMatched},
		"27 provenanceContainsNoSemanticTransformation: unrepresented coverage is indeterminate": {
			pred: policy.PredicateDraft{Name: "provenanceContainsNoSemanticTransformation"}, modify: noCoverage, want: isIndeterminate},
		"28 influenceBoundaryCompletenessIs: the boundary's exact completeness matches": {
			pred: policy.PredicateDraft{Name: "influenceBoundaryCompletenessIs", Identifier: "inbox", Value: "complete"}, want: isMatched},
		"28 influenceBoundaryCompletenessIs: other completeness does not match": {
			pred: policy.PredicateDraft{Name: "influenceBoundaryCompletenessIs", Identifier: "web", Value: "complete"}, want: isNotMatched},
		"28 influenceBoundaryCompletenessIs: an absent boundary is indeterminate": {
			pred: policy.PredicateDraft{Name: "influenceBoundaryCompletenessIs", Identifier: "mail", Value: "complete"}, want: isIndeterminate},
		"29 allInfluenceBoundariesComplete: one partial boundary does not match": {
			pred: policy.PredicateDraft{Name: "allInfluenceBoundariesComplete"}, want: isNotMatched},
		"29 allInfluenceBoundariesComplete: every declared boundary complete matches": {
			pred:   policy.PredicateDraft{Name: "allInfluenceBoundariesComplete"},
			modify: func(f *facts) { f.collections = f.collections[:1] }, want: isMatched},
		"29 allInfluenceBoundariesComplete: no collection is indeterminate, never global completeness": {
			pred: policy.PredicateDraft{Name: "allInfluenceBoundariesComplete"}, modify: noCollections, want: isIndeterminate},
		"30 influenceContainsKind: a record of the kind matches": {
			pred: policy.PredicateDraft{Name: "influenceContainsKind", Value: "email"}, want: isMatched},
		"30 influenceContainsKind: no record of the kind does not match": {
			pred: policy.PredicateDraft{Name: "influenceContainsKind", Value: "memory"}, want: isNotMatched},
		"30 influenceContainsKind: no collection does not match and is not indeterminate": {
			pred: policy.PredicateDraft{Name: "influenceContainsKind", Value: "email"}, modify: noCollections, want: isNotMatched},
		"31 influenceContainsNoKind: no record of the kind matches": {
			pred: policy.PredicateDraft{Name: "influenceContainsNoKind", Value: "memory"}, want: isMatched},
		"31 influenceContainsNoKind: a record of the kind does not match": {
			pred: policy.PredicateDraft{Name: "influenceContainsNoKind", Value: "email"}, want: isNotMatched},
		"31 influenceContainsNoKind: no collection is indeterminate, absence is not proven": {
			pred: policy.PredicateDraft{Name: "influenceContainsNoKind", Value: "memory"}, modify: noCollections, want: isIndeterminate},
		"32 exactInfluenceBoundary: an existing boundary matches": {
			pred: policy.PredicateDraft{Name: "exactInfluenceBoundary", Identifier: "web"}, want: isMatched},
		"32 exactInfluenceBoundary: an absent boundary does not match": {
			pred: policy.PredicateDraft{Name: "exactInfluenceBoundary", Identifier: "mail"}, want: isNotMatched},
		"33 maximumInfluenceCount: a count equal to the bound matches": {
			pred: policy.PredicateDraft{Name: "maximumInfluenceCount", Count: "3"}, want: isMatched},
		"33 maximumInfluenceCount: a count above the bound does not match": {
			pred: policy.PredicateDraft{Name: "maximumInfluenceCount", Count: "2"}, want: isNotMatched},
		"33 maximumInfluenceCount: zero records within a zero bound match": {
			pred: policy.PredicateDraft{Name: "maximumInfluenceCount", Count: "0"}, modify: noCollections, want: isMatched},
		"34 evaluationTimeWithin: evaluation at notBefore matches (inclusive)": {
			pred: policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "900", NotBefore: "1000", ExpiresAt: "1001"}}, want: isMatched},
		"34 evaluationTimeWithin: evaluation at expiresAt does not match (exclusive)": {
			pred: policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "0", NotBefore: "900", ExpiresAt: "1000"}}, want: isNotMatched},
		"34 evaluationTimeWithin: evaluation before notBefore does not match": {
			pred: policy.PredicateDraft{Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "1000", NotBefore: "1001", ExpiresAt: "2000"}}, want: isNotMatched},
		"35 renewalGenerationIs: equal renewal generation matches": {
			pred: policy.PredicateDraft{Name: "renewalGenerationIs", Generation: "2"}, want: isMatched},
		"35 renewalGenerationIs: other generation does not match": {
			pred: policy.PredicateDraft{Name: "renewalGenerationIs", Generation: "3"}, want: isNotMatched},
		"36 maximumIntentAge: an age equal to the bound matches (inclusive)": {
			pred: policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "100"}, want: isMatched},
		"36 maximumIntentAge: an age above the bound does not match": {
			pred: policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "99"}, want: isNotMatched},
		"36 maximumIntentAge: evaluation before the Intent issue time is indeterminate": {
			pred:   policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "18446744073709551615"},
			modify: func(f *facts) { f.intentAt = at(1001) }, want: isIndeterminate},
		"37 maximumContextAge: an age equal to the bound matches (inclusive)": {
			pred: policy.PredicateDraft{Name: "maximumContextAge", Seconds: "200"}, want: isMatched},
		"37 maximumContextAge: an age above the bound does not match": {
			pred: policy.PredicateDraft{Name: "maximumContextAge", Seconds: "199"}, want: isNotMatched},
		"37 maximumContextAge: evaluation before the context issue time is indeterminate": {
			pred:   policy.PredicateDraft{Name: "maximumContextAge", Seconds: "0"},
			modify: func(f *facts) { f.contextAt = at(1001) }, want: isIndeterminate},
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.pred.Name] = true
	}
	for _, p := range vocab.AllPredicate() {
		if !covered[p.String()] {
			t.Errorf("no row for predicate %s", p)
		}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			in := e.factsWith(tc.modify)
			if got := classify(t, e, tc.pred, in); got != tc.want {
				t.Errorf("predicate result = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestCompoundIndeterminate proves the Section 20 compound rule: within both
// all and any, any indeterminate child makes the compound indeterminate,
// whatever the other children are; otherwise all needs every child and any
// one child.
func TestCompoundIndeterminate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		cond policy.ConditionDraft
		want string
	}{
		"all of matched children matches":                              {allOf(matches, pred(policy.PredicateDraft{Name: "exactToolVersion", Generation: "3"})), isMatched},
		"all with one unmatched child does not match":                  {allOf(matches, misses), isNotMatched},
		"all with a false and an indeterminate child is indeterminate": {allOf(misses, unknowable), isIndeterminate},
		"any with one matched child matches":                           {anyOf(misses, matches), isMatched},
		"any with no matched child does not match":                     {anyOf(misses, toolIs("a.b")), isNotMatched},
		"any with a true and an indeterminate child is indeterminate":  {anyOf(matches, unknowable), isIndeterminate},
		"an indeterminate leaf deep in the tree is indeterminate":      {anyOf(matches, allOf(misses, anyOf(toolIs("a.b"), unknowable))), isIndeterminate},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := allow("rule", tc.cond)
			d := evaluate(t, baseFacts(e.b), e.publish(t, snapshotOf(r)))
			var got string
			switch {
			case d.Outcome() == vocab.Allow:
				got = isMatched
			case d.Reasons()[0] == vocab.ReasonConditionIndeterminate:
				got = isIndeterminate
			default:
				got = isNotMatched
			}
			if got != tc.want {
				t.Errorf("compound result = %s, want %s", got, tc.want)
			}
		})
	}
}
