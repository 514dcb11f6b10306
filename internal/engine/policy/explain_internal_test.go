package policy

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

func tokensOf[T interface{ String() string }](all []T) []string {
	out := make([]string, len(all))
	for i, v := range all {
		out[i] = v.String()
	}
	return out
}

// TestExplainedPredicateIsWhatTheAuthorWrote: an explanation names every
// predicate as its author wrote it. For every predicate and every token of
// its vocabulary, the explained draft is the author's draft, normalized
// (closed sets in Section 48 order, Resources in ASCII order), so each
// operand reads in the manifest's words, never as an order number.
func TestExplainedPredicateIsWhatTheAuthorWrote(t *testing.T) {
	t.Parallel()
	// The closed vocabulary of each enum predicate, in Section 48 order.
	words := map[vocab.Predicate][]string{
		vocab.LifecycleIs:                      tokensOf(vocab.AllLifecycle()),
		vocab.RiskIs:                           tokensOf(vocab.AllRisk()),
		vocab.SideEffectIs:                     tokensOf(vocab.AllSideEffect()),
		vocab.ReversibilityIs:                  tokensOf(vocab.AllReversibility()),
		vocab.AssuranceIsOneOf:                 tokensOf(vocab.AllAssurance()),
		vocab.AuthenticationMethodIncludes:     tokensOf(vocab.AllAuthMethod()),
		vocab.AuthenticationMethodsIncludeAll:  tokensOf(vocab.AllAuthMethod()),
		vocab.RequestedCapabilitiesSubsetOf:    tokensOf(vocab.AllCapability()),
		vocab.RequestedCapabilitiesInclude:     tokensOf(vocab.AllCapability()),
		vocab.IntendedCapabilitiesInclude:      tokensOf(vocab.AllCapability()),
		vocab.ProvenanceCoverageIs:             tokensOf(vocab.AllProvenanceCoverage()),
		vocab.ProvenanceContainsSource:         tokensOf(vocab.AllProvenanceSource()),
		vocab.ProvenanceTrustIsOneOf:           tokensOf(vocab.AllTrust()),
		vocab.ProvenanceContainsTransformation: tokensOf(vocab.AllTransformation()),
		vocab.InfluenceBoundaryCompletenessIs:  tokensOf(vocab.AllCompleteness()),
		vocab.InfluenceContainsKind:            tokensOf(vocab.AllInfluenceKind()),
		vocab.InfluenceContainsNoKind:          tokensOf(vocab.AllInfluenceKind()),
	}
	resources := []string{"acct-2002", "acct-1001"} // not in ASCII order
	var rs []ident.Resource
	for _, s := range resources {
		r, err := ident.ParseResource(s)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, ident.Resource.Compare)
	c := &ceiling{capabilities: ^uint32(0), resources: rs}

	for _, name := range vocab.AllPredicate() {
		sig := signatures[name]
		base := PredicateDraft{Name: name.String()}
		switch sig.op {
		case opToolID:
			base.Identifier = "payments.submit"
		case opDefinitionID:
			base.Identifier = "payments-submit-v1"
		case opControlled, opBoundaryCompleteness:
			base.Identifier = "acme"
		case opResource:
			base.Identifier = "acct-1001"
		case opRegistry:
			base.Identifier = "payments-registry"
		}
		switch sig.op {
		case opGeneration, opRegistry:
			base.Generation = "7"
		case opCount:
			base.Count = "12"
		case opSeconds:
			base.Seconds = "60"
		case opWindow:
			base.Window = &WindowDraft{IssuedAt: "100", NotBefore: "200", ExpiresAt: "300"}
		}
		// Each draft and the draft its explanation must give back.
		type pair struct{ in, want PredicateDraft }
		var cases []pair
		switch sig.op {
		case opEnum, opBoundaryCompleteness:
			if len(words[name]) == 0 {
				t.Fatalf("%s: no vocabulary listed in this test", name)
			}
			for _, w := range words[name] {
				d := base
				d.Value = w
				cases = append(cases, pair{d, d})
			}
		case opEnumSet, opCapabilitySet:
			all := words[name]
			if len(all) == 0 {
				t.Fatalf("%s: no vocabulary listed in this test", name)
			}
			if len(all) > sig.vocab.maxSet {
				all = all[:sig.vocab.maxSet]
			}
			in, want := base, base
			in.Values = slices.Clone(all)
			slices.Reverse(in.Values)
			want.Values = all
			cases = append(cases, pair{in, want})
		case opResourceSet:
			in, want := base, base
			in.Values = resources
			want.Values = []string{"acct-1001", "acct-2002"}
			cases = append(cases, pair{in, want})
		default:
			cases = append(cases, pair{base, base})
		}
		for _, tc := range cases {
			p, err := newPredicate(&tc.in, c)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, tc.in, err)
			}
			if diff := cmp.Diff(tc.want, p.draft()); diff != "" {
				t.Errorf("%s: explained draft (-want +got):\n%s", name, diff)
			}
		}
	}
}

// TestExplainedPredicateReadsAsTheManifest: String is the predicate as a
// manifest's flow mapping.
func TestExplainedPredicateReadsAsTheManifest(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		draft PredicateDraft
		want  string
	}{
		"one value": {PredicateDraft{Name: "sideEffectIs", Value: "financial"},
			"{name: sideEffectIs, value: financial}"},
		"a set": {PredicateDraft{Name: "assuranceIsOneOf", Values: []string{"multiFactor", "hardwareBound"}},
			"{name: assuranceIsOneOf, values: [multiFactor, hardwareBound]}"},
		"identifier and generation": {PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "reg", Generation: "3"},
			"{name: exactRegistrySnapshot, identifier: reg, generation: 3}"},
		"a window": {PredicateDraft{Name: "evaluationTimeWithin", Window: &WindowDraft{IssuedAt: "1", NotBefore: "2", ExpiresAt: "3"}},
			"{name: evaluationTimeWithin, window: {issuedAt: 1, notBefore: 2, expiresAt: 3}}"},
		"no operand": {PredicateDraft{Name: "delegationPresent"}, "{name: delegationPresent}"},
	}
	for name, tc := range tests {
		pred, err := vocab.ParsePredicate(tc.draft.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got := (PredicateResult{Predicate: pred, Draft: tc.draft}).String(); got != tc.want {
			t.Errorf("%s: got %q, want %q", name, got, tc.want)
		}
	}
}
