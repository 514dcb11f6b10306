package digest_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// countingPipeline is the Host configuration of one pipeline run, built as
// in the authz tests (BenchmarkPipeline): everything that exists before a
// Proposal arrives.
type countingPipeline struct {
	b    boundary.Boundary
	f    testutil.InputFixture
	spec testutil.InputSpec
	pol  *policy.Snapshot
	sel  policy.Selection
}

func newCountingPipeline(t *testing.T) *countingPipeline {
	t.Helper()
	spec := testutil.DefaultInputSpec()
	spec.BoundedToolIntent = true
	p := &countingPipeline{b: boundary.New("counting host"), spec: spec}
	p.f = testutil.BuildInput(t, p.b, spec)
	pred := func(d policy.PredicateDraft) policy.ConditionDraft { return policy.ConditionDraft{Predicate: &d} }
	var err error
	p.pol, err = policy.Publish(p.f.Admin, policy.SnapshotDraft{ID: "payments-policy", Generation: "1", Policies: []policy.DefinitionDraft{{
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
	}}})
	if err != nil {
		t.Fatalf("policy.Publish: %v", err)
	}
	p.sel = policy.Selection{
		SnapshotID: p.pol.ID(), SnapshotGeneration: p.pol.Generation(),
		PolicyID: p.pol.Policy(0).ID(), PolicyGeneration: p.pol.Policy(0).Generation(),
	}
	return p
}

// run takes one raw Proposal through assessment, Canonical Request,
// Provenance and Influence, Evaluation Input, Policy Decision,
// Authorization issuance and Validation.
func (p *countingPipeline) run(t *testing.T) {
	t.Helper()
	must := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	at := func(s uint64) epoch.Time {
		e, err := epoch.New(s)
		must("epoch.New", err)
		return e
	}
	asmt, err := assessment.New(p.b, p.spec.Assessment)
	must("assessment", err)
	req, err := request.New(p.f.Snapshot, p.spec.Proposal, asmt)
	must("request", err)
	prov, err := lineage.NewProvenance(p.f.Provenance, testutil.InputProvenanceAttestation, p.f.Validity, asmt, p.f.Identity, p.spec.Records)
	must("provenance", err)
	infl, err := lineage.NewInfluence(p.f.Influence, testutil.InputInfluenceAttestation, p.f.Validity, asmt, p.f.Identity,
		p.spec.Collections, p.spec.Nodes)
	must("influence", err)
	resources := req.Resources()
	requested := make([]string, len(resources))
	for i, r := range resources {
		requested[i] = r.String()
	}
	in, err := evalinput.New(p.b, evalinput.Draft{
		Request: req, Host: p.f.Host, SecurityContext: p.f.SecurityContext, Intent: p.f.Intent,
		Provenance: prov, Influence: infl,
		RequestedCapabilities: p.spec.RequestedCapabilities, RequestedResources: requested,
		EvaluationTime: at(testutil.EvidenceTime), ExpectedRenewal: p.f.Intent.Renewal(),
	})
	must("evaluation input", err)
	dec, err := policy.Evaluate(in, p.pol, p.sel, "decision-1")
	must("evaluate", err)
	if dec.Outcome() != vocab.Allow {
		t.Fatalf("outcome %v, reasons %v", dec.Outcome(), dec.Reasons())
	}
	issuedAt, expiresAt := at(testutil.EvidenceTime), at(testutil.EvidenceTime+300)
	a, err := authz.Issue(p.b, authz.IssueRequest{
		Input: in, Policy: p.pol, Registry: p.f.Snapshot, Decision: dec, Selection: p.sel,
		AuthorizationID: "authz-1", ReplayID: "replay-1", ConsumptionID: "consumption-1",
		Generation: p.f.Intent.Renewal(), IssuedAt: issuedAt, ExpiresAt: expiresAt, MaxLifetime: 600,
	})
	must("issue", err)
	tool, _ := ident.ParseToolID(p.spec.Proposal.ToolID)
	version, _ := ident.ParseGeneration(p.spec.Proposal.Version)
	def, err := p.f.Snapshot.Lookup(tool, version)
	must("lookup", err)
	caps := make([]vocab.Capability, len(p.spec.RequestedCapabilities))
	for i, s := range p.spec.RequestedCapabilities {
		caps[i], err = vocab.ParseCapability(s)
		must("capability", err)
	}
	_, err = authz.Validate(p.b, a, authz.ValidationContext{
		AuthorizationID: "authz-1", Version: vocab.V1, Generation: p.f.Intent.Renewal(),
		Decision: dec, Input: in, Request: req, Definition: def.Definition(), Registry: p.f.Snapshot, Policy: p.pol,
		Identity: p.f.Identity, Capabilities: caps, Resources: resources,
		IssuedAt: issuedAt, ExpiresAt: expiresAt, MaxLifetime: 600,
		ReplayID: "replay-1", ConsumptionID: "consumption-1",
	}, at(testutil.EvidenceTime+1))
	must("validate", err)
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
	stop := digest.Observe(func(octets []byte) {
		seen[string(octets)]++
		byLabel[labelOf(octets)]++
	})
	p.run(t)
	stop()

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
		"toolgate.policy-decision/1": 1,
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
