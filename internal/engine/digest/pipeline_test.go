package digest_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/pipelinefixture"
)

// newCountingPipeline is the default input fixture as a pipelinefixture.Pipeline
// with one allow rule for payments.submit by tenant acme, built as in the
// authz tests (BenchmarkPipeline): everything that exists before a
// Proposal arrives.
func newCountingPipeline(t *testing.T) *pipelinefixture.Pipeline {
	t.Helper()
	pred := func(d policy.PredicateDraft) policy.ConditionDraft { return policy.ConditionDraft{Predicate: &d} }
	snapshot := policy.SnapshotDraft{ID: "payments-policy", Generation: "1", Policies: []policy.DefinitionDraft{{
		ID: "tools", Generation: "1", Lifecycle: "active", Rules: []policy.RuleDraft{{
			ID: "allow-payments", Effect: "allow", Reason: "allowRuleMatched",
			Condition: policy.ConditionDraft{All: []policy.ConditionDraft{
				pred(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}),
				pred(policy.PredicateDraft{Name: "exactTenant", Identifier: "acme"}),
			}},
			Scope: &policy.ScopeDraft{
				Capabilities: []string{"data.read", "financial.transfer"}, Resources: []string{"acct-1001", "acct-2002"},
			},
			Obligations: []policy.ObligationDraft{{Kind: "requireSingleUseAuthorization"}},
		}},
	}}}
	return pipelinefixture.New(t, boundary.New("counting host"), testutil.DefaultInputSpec(), snapshot, "tools", "1")
}

// labelOf reads the domain label, the first item of every digest encoding.
func labelOf(octets []byte) string {
	n := binary.BigEndian.Uint64(octets[1:9])
	return string(octets[9 : 9+n])
}

// TestPipelineDigestCount counts the digests one complete pipeline run
// computes, by domain label, and checks that no content is hashed twice.
// It must not run in parallel: digest.Observe sees every digest of the
// process.
func TestPipelineDigestCount(t *testing.T) {
	p := newCountingPipeline(t)
	seen := map[string]int{}
	byLabel := map[string]int{}
	decisionOctets := 0
	stop := digest.Observe(func(octets []byte) {
		seen[string(octets)]++
		byLabel[labelOf(octets)]++
		if labelOf(octets) == policy.DecisionDigestLabel {
			decisionOctets = len(octets)
		}
	})
	err := p.Run()
	stop()
	if err != nil {
		t.Fatalf("pipeline: %v", err)
	}

	// One construction per immutable value built from the Proposal, each
	// hashing its complete content once:
	want := map[string]int{
		"toolgate.assessment/1":        1, // assessment.New
		"toolgate.canonical-request/1": 1, // request.New (the canonical bytes are not hashed separately)
		// lineage.NewProvenance and NewInfluence: each value's attested
		// content, the attestation over that content digest, and the complete
		// value (content digest plus attestation digest).
		"toolgate.provenance.content/1": 1,
		"toolgate.influence.content/1":  1,
		"toolgate.attestation/1":        2,
		"toolgate.provenance/1":         1,
		"toolgate.influence/1":          1,
		// evalinput.New: the composition of the five attestations, then the
		// input.
		"toolgate.attestation-composition/1": 1,
		"toolgate.evaluation-input/1":        1,
		// One Decision: policy.Evaluate. Issue re-evaluates the policy
		// (Section 23: issuance must not trust the caller's outcome) and
		// Validate re-derives it again from the independent context (Section
		// 30), but each re-evaluated Decision exists only to be compared with
		// the supplied one, and policy.Reproduces compares its complete
		// content field by field instead of hashing it.
		"toolgate.policy-decision/2": 1,
		// Issue builds and seals the Consumption Binding and its replay
		// scope. Validate re-derives the binding from the independent context
		// and compares every bound value with the artifact's directly.
		"toolgate.replay-scope/1":        1,
		"toolgate.consumption-binding/1": 1,
	}
	if diff := cmp.Diff(want, byLabel); diff != "" {
		t.Errorf("digests per label in one pipeline run (-want +got):\n%s", diff)
	}
	total := 0
	for _, n := range byLabel {
		total += n
	}
	// assessment 1 + request 1 + lineage 2 × 3 + composition and input 2 +
	// Decision 1 + replay scope and binding 2 = 13 digests per run.
	if total != 13 {
		t.Errorf("one pipeline run computes %d digests, want 13", total)
	}
	// SHA-256 costs one compression per 64-octet block of the message and
	// its padding (at least 9 octets): the Decision's encoding, hashed on
	// every authorize, fits in 3 blocks (version 1 took 395 octets, 7).
	if decisionOctets == 0 || decisionOctets > 3*64-9 {
		t.Errorf("the Decision encoding is %d octets, want 1 to %d (3 SHA-256 blocks)", decisionOctets, 3*64-9)
	}
	t.Logf("the Decision encoding: %d octets", decisionOctets)
	// No content is hashed more than once: the protocol's independent
	// re-derivations (the Decision twice, the binding once) are compared by
	// content, not re-hashed.
	var repeated []string
	for octets, n := range seen {
		if n > 1 {
			repeated = append(repeated, labelOf([]byte(octets))+" ×"+string(rune('0'+n)))
		}
	}
	slices.Sort(repeated)
	if diff := cmp.Diff([]string(nil), repeated); diff != "" {
		t.Errorf("content hashed more than once (-want +got):\n%s", diff)
	}
}
