package testutil

// The complete Phase 1–6 structural path for one model Proposal, for the
// tests and benchmarks that measure it end to end (authz BenchmarkPipeline,
// digest TestPipelineDigestCount).
//
// Import note: this file imports authz, which imports every engine package
// Run calls. Only black-box (package x_test) tests of those packages can
// import testutil.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// The identities, lifetime and times of one Pipeline run: the Decision is
// evaluated at EvidenceTime, the Authorization is issued then for
// PipelineLifetime seconds under a requested maximum of
// PipelineMaxLifetime, and validated one second later.
const (
	PipelineDecisionID      = "decision-1"
	PipelineAuthorizationID = "authz-1"
	PipelineReplayID        = "replay-1"
	PipelineConsumptionID   = "consumption-1"
	PipelineLifetime        = 300
	PipelineMaxLifetime     = 600
)

// Pipeline is the Host configuration that exists before a Proposal
// arrives — the Registry Snapshot, the Host Authority and its Role
// Authorities, the Security Context, a bounded-tool Intent (it names the
// tool, not one request, so it can precede the Proposal) and the published
// Policy Snapshot with its selection — and the Host's own retained
// expectations. Run takes the raw Proposal of Spec through the whole path.
type Pipeline struct {
	Boundary  boundary.Boundary
	Spec      InputSpec
	Fixture   InputFixture
	Policy    *policy.Snapshot
	Selection policy.Selection

	// The Host's own retained expectations and the run's times.
	capabilities           []vocab.Capability
	tool                   ident.ToolID
	version                ident.Generation
	evaluatedAt, issuedAt  epoch.Time
	expiresAt, validatedAt epoch.Time
}

// NewPipeline builds spec in b with a bounded-tool Intent, publishes
// snapshot under the fixture's Policy Administration Authority and selects
// its policy policyID at generation, failing the test if any step rejects.
func NewPipeline(tb testing.TB, b boundary.Boundary, spec InputSpec, snapshot policy.SnapshotDraft, policyID, generation string) *Pipeline {
	tb.Helper()
	spec.BoundedToolIntent = true
	p := &Pipeline{Boundary: b, Spec: spec, Fixture: BuildInput(tb, b, spec)}
	p.Policy = evidenceMust(policy.Publish(p.Fixture.Admin, snapshot))(tb, "policy.Publish")
	p.Selection = policy.Selection{
		SnapshotID: p.Policy.ID(), SnapshotGeneration: p.Policy.Generation(),
		PolicyID:         evidenceMust(ident.ParsePolicyID(policyID))(tb, "ParsePolicyID"),
		PolicyGeneration: evidenceMust(ident.ParseGeneration(generation))(tb, "ParseGeneration"),
	}
	for _, s := range spec.RequestedCapabilities {
		p.capabilities = append(p.capabilities, evidenceMust(vocab.ParseCapability(s))(tb, "ParseCapability"))
	}
	slices.Sort(p.capabilities)
	p.tool = evidenceMust(ident.ParseToolID(spec.Proposal.ToolID))(tb, "ParseToolID")
	p.version = evidenceMust(ident.ParseGeneration(spec.Proposal.Version))(tb, "ParseGeneration")
	p.evaluatedAt = EvidenceTimeAt(tb, EvidenceTime)
	p.issuedAt = p.evaluatedAt
	p.expiresAt = EvidenceTimeAt(tb, EvidenceTime+PipelineLifetime)
	p.validatedAt = EvidenceTimeAt(tb, EvidenceTime+1)
	return p
}

// Run takes the raw Proposal through Proposal Assessment, Canonical
// Request, Provenance and Influence, Evaluation Input, Policy Decision,
// Authorization issuance and Validation. It reports the first step that
// rejects, or a Decision that does not allow.
func (p *Pipeline) Run() error {
	f := &p.Fixture
	asmt, err := assessment.New(p.Boundary, p.Spec.Assessment)
	if err != nil {
		return fmt.Errorf("assessment: %w", err)
	}
	req, err := request.New(f.Snapshot, p.Spec.Proposal, asmt)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	prov, err := lineage.NewProvenance(f.Provenance, InputProvenanceAttestation, f.Validity, asmt, f.Identity, p.Spec.Records)
	if err != nil {
		return fmt.Errorf("provenance: %w", err)
	}
	infl, err := lineage.NewInfluence(f.Influence, InputInfluenceAttestation, f.Validity, asmt, f.Identity,
		p.Spec.Collections, p.Spec.Nodes)
	if err != nil {
		return fmt.Errorf("influence: %w", err)
	}
	resources := req.Resources()
	requested := make([]string, len(resources))
	for i, r := range resources {
		requested[i] = r.String()
	}
	in, err := evalinput.New(p.Boundary, evalinput.Draft{
		Request: req, Host: f.Host, SecurityContext: f.SecurityContext, Intent: f.Intent,
		Provenance: prov, Influence: infl,
		RequestedCapabilities: p.Spec.RequestedCapabilities, RequestedResources: requested,
		EvaluationTime: p.evaluatedAt, ExpectedRenewal: f.Intent.Renewal(),
	})
	if err != nil {
		return fmt.Errorf("evaluation input: %w", err)
	}
	dec, err := policy.Evaluate(in, p.Policy, p.Selection, PipelineDecisionID)
	if err != nil {
		return fmt.Errorf("evaluate: %w", err)
	}
	if dec.Outcome() != vocab.Allow {
		return fmt.Errorf("outcome %v, reasons %v", dec.Outcome(), dec.Reasons())
	}
	a, err := authz.Issue(p.Boundary, authz.IssueRequest{
		Input: in, Policy: p.Policy, Registry: f.Snapshot, Decision: dec, Selection: p.Selection,
		AuthorizationID: PipelineAuthorizationID, ReplayID: PipelineReplayID, ConsumptionID: PipelineConsumptionID,
		Generation: f.Intent.Renewal(), IssuedAt: p.issuedAt, ExpiresAt: p.expiresAt, MaxLifetime: PipelineMaxLifetime,
	})
	if err != nil {
		return fmt.Errorf("issue: %w", err)
	}
	def, err := f.Snapshot.Lookup(p.tool, p.version)
	if err != nil {
		return fmt.Errorf("lookup: %w", err)
	}
	_, err = authz.Validate(p.Boundary, a, authz.ValidationContext{
		AuthorizationID: PipelineAuthorizationID, Version: vocab.V1, Generation: f.Intent.Renewal(),
		Decision: dec, Input: in, Request: req, Definition: def.Definition(), Registry: f.Snapshot, Policy: p.Policy,
		Identity: f.Identity, Capabilities: p.capabilities, Resources: resources,
		IssuedAt: p.issuedAt, ExpiresAt: p.expiresAt, MaxLifetime: PipelineMaxLifetime,
		ReplayID: PipelineReplayID, ConsumptionID: PipelineConsumptionID,
	}, p.validatedAt)
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	return nil
}
