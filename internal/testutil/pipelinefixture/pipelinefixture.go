// Package pipelinefixture runs the complete Phase 1–6 structural path for
// one model Proposal, for the tests and benchmarks that measure it end to
// end (authz BenchmarkPipeline, digest TestPipelineDigestCount). Like
// internal/testutil, whose part it is, it is for tests only. It is a package
// of its own because it imports authz and policy: internal/testutil does
// not, so the in-package tests of those packages can still use it.
package pipelinefixture

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
	"github.com/toolgate/toolgate/internal/testutil"
)

// The identities, lifetime and times of one Pipeline run: the Decision is
// evaluated at testutil.EvidenceTime, the Authorization is issued then for
// Lifetime seconds under a requested maximum of MaxLifetime, and validated
// one second later.
const (
	DecisionID      = "decision-1"
	AuthorizationID = "authz-1"
	ReplayID        = "replay-1"
	ConsumptionID   = "consumption-1"
	Lifetime        = 300
	MaxLifetime     = 600
)

// Pipeline is the Host configuration that exists before a Proposal
// arrives — the Registry Snapshot, the Host Authority and its Role
// Authorities, the Security Context, a bounded-tool Intent (it names the
// tool, not one request, so it can precede the Proposal) and the published
// Policy Snapshot with its selection — and the Host's own retained
// expectations. Run takes the raw Proposal of Spec through the whole path.
type Pipeline struct {
	Boundary  boundary.Boundary
	Spec      testutil.InputSpec
	Fixture   testutil.InputFixture
	Policy    *policy.Snapshot
	Selection policy.Selection

	// The Host's own retained expectations and the run's times.
	capabilities           []vocab.Capability
	tool                   ident.ToolID
	version                ident.Generation
	evaluatedAt, issuedAt  epoch.Time
	expiresAt, validatedAt epoch.Time
}

// New builds spec in b with a bounded-tool Intent, publishes
// snapshot under the fixture's Policy Administration Authority and selects
// its policy policyID at generation, failing the test if any step rejects.
func New(tb testing.TB, b boundary.Boundary, spec testutil.InputSpec, snapshot policy.SnapshotDraft, policyID, generation string) *Pipeline {
	tb.Helper()
	spec.BoundedToolIntent = true
	p := &Pipeline{Boundary: b, Spec: spec, Fixture: testutil.BuildInput(tb, b, spec)}
	p.Policy = testutil.Must[*policy.Snapshot](tb)(policy.Publish(p.Fixture.Admin, snapshot))
	p.Selection = policy.Selection{
		SnapshotID: p.Policy.ID(), SnapshotGeneration: p.Policy.Generation(),
		PolicyID:         testutil.Must[ident.PolicyID](tb)(ident.ParsePolicyID(policyID)),
		PolicyGeneration: testutil.Must[ident.Generation](tb)(ident.ParseGeneration(generation)),
	}
	for _, s := range spec.RequestedCapabilities {
		p.capabilities = append(p.capabilities, testutil.Must[vocab.Capability](tb)(vocab.ParseCapability(s)))
	}
	slices.Sort(p.capabilities)
	p.tool = testutil.Must[ident.ToolID](tb)(ident.ParseToolID(spec.Proposal.ToolID))
	p.version = testutil.Must[ident.Generation](tb)(ident.ParseGeneration(spec.Proposal.Version))
	p.evaluatedAt = testutil.EvidenceTimeAt(tb, testutil.EvidenceTime)
	p.issuedAt = p.evaluatedAt
	p.expiresAt = testutil.EvidenceTimeAt(tb, testutil.EvidenceTime+Lifetime)
	p.validatedAt = testutil.EvidenceTimeAt(tb, testutil.EvidenceTime+1)
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
	prov, err := lineage.NewProvenance(f.Provenance, testutil.InputProvenanceAttestation, f.Validity, asmt, f.Identity, p.Spec.Records)
	if err != nil {
		return fmt.Errorf("provenance: %w", err)
	}
	infl, err := lineage.NewInfluence(f.Influence, testutil.InputInfluenceAttestation, f.Validity, asmt, f.Identity,
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
	dec, err := policy.Evaluate(in, p.Policy, p.Selection, DecisionID)
	if err != nil {
		return fmt.Errorf("evaluate: %w", err)
	}
	if dec.Outcome() != vocab.Allow {
		return fmt.Errorf("outcome %v, reasons %v", dec.Outcome(), dec.Reasons())
	}
	a, err := authz.Issue(p.Boundary, authz.IssueRequest{
		Input: in, Policy: p.Policy, Registry: f.Snapshot, Decision: dec, Selection: p.Selection,
		AuthorizationID: AuthorizationID, ReplayID: ReplayID, ConsumptionID: ConsumptionID,
		Generation: f.Intent.Renewal(), IssuedAt: p.issuedAt, ExpiresAt: p.expiresAt, MaxLifetime: MaxLifetime,
	})
	if err != nil {
		return fmt.Errorf("issue: %w", err)
	}
	def, err := f.Snapshot.Lookup(p.tool, p.version)
	if err != nil {
		return fmt.Errorf("lookup: %w", err)
	}
	_, err = authz.Validate(p.Boundary, a, authz.ValidationContext{
		AuthorizationID: AuthorizationID, Version: vocab.V1, Generation: f.Intent.Renewal(),
		Decision: dec, Input: in, Request: req, Definition: def.Definition(), Registry: f.Snapshot, Policy: p.Policy,
		Identity: f.Identity, Capabilities: p.capabilities, Resources: resources,
		IssuedAt: p.issuedAt, ExpiresAt: p.expiresAt, MaxLifetime: MaxLifetime,
		ReplayID: ReplayID, ConsumptionID: ConsumptionID,
	}, p.validatedAt)
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	return nil
}
