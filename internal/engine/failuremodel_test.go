package engine_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// pipeline is one complete, valid run through every implemented transition,
// from which each failure-model case mutates exactly one thing.
type pipeline struct {
	f        testutil.InputFixture
	input    *evalinput.Input
	policy   *policy.Snapshot
	sel      policy.Selection
	decision *policy.Decision
	issue    authz.IssueRequest
}

func allowPolicy(extra ...policy.RuleDraft) policy.SnapshotDraft {
	rules := append([]policy.RuleDraft{{
		ID: "allow-payments", Effect: "allow", Reason: "allowRuleMatched",
		Condition: policy.ConditionDraft{Predicate: &policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}},
		Scope: &policy.ScopeDraft{
			Capabilities: []string{"data.read", "financial.transfer"},
			Resources:    []string{"acct-1001", "acct-2002"},
		},
		Obligations: []policy.ObligationDraft{{Kind: "requireSingleUseAuthorization"}},
	}}, extra...)
	return policy.SnapshotDraft{ID: "payments-policies", Generation: "1", Policies: []policy.DefinitionDraft{
		{ID: "payments", Generation: "1", Lifecycle: "active", Rules: rules},
	}}
}

func newPipeline(t *testing.T, pd policy.SnapshotDraft) pipeline {
	t.Helper()
	var p pipeline
	p.input, p.f = testutil.NewInput(t)
	var err error
	if p.policy, err = policy.Publish(p.f.Admin, pd); err != nil {
		t.Fatalf("policy.Publish: %v", err)
	}
	p.sel = policy.Selection{
		SnapshotID: p.policy.ID(), SnapshotGeneration: p.policy.Generation(),
		PolicyID: p.policy.Policy(0).ID(), PolicyGeneration: p.policy.Policy(0).Generation(),
	}
	if p.decision, err = policy.Evaluate(p.input, p.policy, p.sel, "decision-1"); err != nil {
		t.Fatalf("policy.Evaluate: %v", err)
	}
	p.issue = authz.IssueRequest{
		Input: p.input, Policy: p.policy, Registry: p.f.Snapshot, Decision: p.decision, Selection: p.sel,
		AuthorizationID: "authz-1", ReplayID: "replay-1", ConsumptionID: "consume-1",
		Generation: p.input.RenewalGeneration(),
		IssuedAt:   testutil.EvidenceTimeAt(t, testutil.EvidenceTime), ExpiresAt: testutil.EvidenceTimeAt(t, testutil.EvidenceTime+60), MaxLifetime: 300,
	}
	return p
}

func (p pipeline) context() authz.ValidationContext {
	return authz.ValidationContext{
		AuthorizationID: "authz-1", Version: vocab.V1, Generation: p.input.RenewalGeneration(),
		Decision: p.decision, Input: p.input, Request: p.f.Request, Definition: p.f.Request.Definition(),
		Registry: p.f.Snapshot, Policy: p.policy, Identity: p.input.Identity(),
		Capabilities: p.input.RequestedCapabilities(), Resources: p.input.RequestedResources(),
		IssuedAt: p.issue.IssuedAt, ExpiresAt: p.issue.ExpiresAt, MaxLifetime: p.issue.MaxLifetime,
		ReplayID: "replay-1", ConsumptionID: "consume-1",
	}
}

// hostOwnedStages are the Section 37 rows whose transition the protocol core
// deliberately does not implement (Section 41): the service's atomic
// Consumption store and the Host's Executor.
var hostOwnedStages = map[string]bool{"Consumption": true, "Execution": true}

// TestSection37FailureModel proves, for every stage of the Section 37
// failure table that the core implements, that a fail-closed condition of
// that stage produces no successor artifact (or, for Policy, a complete
// deny Decision with empty scope). The stage list is read from the spec, so
// a stage added to the table without a case here fails the test.
func TestSection37FailureModel(t *testing.T) {
	t.Parallel()
	wantCode := map[string]fault.Code{
		"Registry resolution":            fault.Ineligible,   // retired definition
		"Schema validation":              fault.Duplicate,    // duplicate argument key
		"Canonical Request construction": fault.Mismatch,     // assessment of another proposal
		"Proposal Assessment":            fault.Mismatch,     // assessment identity is the proposal identity
		"Host evidence":                  fault.Unauthorized, // role substitution
		"Evaluation Input":               fault.Expired,      // stale evidence
		"Policy":                         fault.Ineligible,   // deny Decision never issues
		"Issuance":                       fault.OutOfRange,   // lifetime beyond the requested maximum
		"Validation":                     fault.Mismatch,     // replay identity substitution
	}
	cases := map[string]func(t *testing.T) (produced bool, err error){
		"Registry resolution": func(t *testing.T) (bool, error) {
			p := newPipeline(t, allowPolicy())
			snap := testutil.Publish(t, testutil.RegistryDraft(testutil.PaymentsDefinition(testutil.WithLifecycle("retired"))))
			r, err := request.New(snap, p.f.Spec.Proposal, p.f.Assessment)
			return r != nil, err
		},
		"Schema validation": func(t *testing.T) (bool, error) {
			p := newPipeline(t, allowPolicy())
			prop := p.f.Spec.Proposal
			prop.Arguments = []byte(`{"amount":1,"amount":2}`)
			r, err := request.New(p.f.Snapshot, prop, p.f.Assessment)
			return r != nil, err
		},
		"Canonical Request construction": func(t *testing.T) (bool, error) {
			p := newPipeline(t, allowPolicy())
			other, err := assessment.New(p.f.Boundary, assessment.Draft{ProposalID: "proposal-2", AssessmentID: "assessment-2"})
			if err != nil {
				t.Fatal(err)
			}
			r, err := request.New(p.f.Snapshot, p.f.Spec.Proposal, other)
			return r != nil, err
		},
		"Proposal Assessment": func(t *testing.T) (bool, error) {
			a, err := assessment.New(boundary.New("host"), assessment.Draft{ProposalID: "proposal-1", AssessmentID: "proposal-1"})
			return a != nil, err
		},
		"Host evidence": func(t *testing.T) (bool, error) {
			p := newPipeline(t, allowPolicy())
			// Role substitution: the authentication authority cannot capture Intent.
			i, err := evidence.NewIntent(p.f.Authn, "intent-x", p.f.Validity, evidence.ExactRequest(p.f.Request), p.f.IntentDraft)
			return i != nil, err
		},
		"Evaluation Input": func(t *testing.T) (bool, error) {
			p := newPipeline(t, allowPolicy())
			d := p.f.Draft
			d.EvaluationTime = testutil.EvidenceTimeAt(t, testutil.EvidenceExpiresAt)
			in, err := evalinput.New(p.f.Boundary, d)
			return in != nil, err
		},
		"Policy": func(t *testing.T) (bool, error) {
			deny := policy.RuleDraft{
				ID: "deny-model-output", Effect: "deny", Reason: "influenceKindDenied",
				Condition: policy.ConditionDraft{Predicate: &policy.PredicateDraft{Name: "influenceContainsKind", Value: "modelOutput"}},
			}
			p := newPipeline(t, allowPolicy(deny))
			if p.decision.Outcome() != vocab.Deny || len(p.decision.Capabilities()) != 0 || len(p.decision.Resources()) != 0 {
				t.Fatalf("a matched deny must give a complete deny Decision with empty scope, got %v", p.decision.Outcome())
			}
			a, err := authz.Issue(p.f.Boundary, p.issue)
			return a != nil, err
		},
		"Issuance": func(t *testing.T) (bool, error) {
			p := newPipeline(t, allowPolicy())
			p.issue.ExpiresAt = testutil.EvidenceTimeAt(t, testutil.EvidenceTime+301) // beyond the requested maximum lifetime
			a, err := authz.Issue(p.f.Boundary, p.issue)
			return a != nil, err
		},
		"Validation": func(t *testing.T) (bool, error) {
			p := newPipeline(t, allowPolicy())
			a, err := authz.Issue(p.f.Boundary, p.issue)
			if err != nil {
				t.Fatalf("Issue: %v", err)
			}
			ctx := p.context()
			ctx.ReplayID = "replay-2"
			res, err := authz.Validate(p.f.Boundary, a, ctx, p.issue.IssuedAt)
			return res != nil, err
		},
	}
	rows := specStages(t)
	for _, stage := range rows {
		if hostOwnedStages[stage] {
			continue
		}
		run, ok := cases[stage]
		if !ok {
			t.Errorf("Section 37 stage %q has no failure-model case", stage)
			continue
		}
		t.Run(stage, func(t *testing.T) {
			t.Parallel()
			produced, err := run(t)
			if produced || err == nil {
				t.Fatalf("stage %s: produced=%v err=%v; want rejection with no successor artifact", stage, produced, err)
			}
			if got := fault.CodeOf(err); got != wantCode[stage] {
				t.Fatalf("stage %s: error %v has code %v, want %v", stage, err, got, wantCode[stage])
			}
		})
	}
	if len(rows) != len(cases)+len(hostOwnedStages) {
		t.Errorf("spec lists %d stages; %d core cases + %d host-owned", len(rows), len(cases), len(hostOwnedStages))
	}
}

// TestSection37HappyPathValidates guards the failure model: the unmutated
// pipeline issues and validates, so every rejection above is caused by its
// one mutation.
func TestSection37HappyPathValidates(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, allowPolicy())
	a, err := authz.Issue(p.f.Boundary, p.issue)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	res, err := authz.Validate(p.f.Boundary, a, p.context(), p.issue.IssuedAt)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if res.Contract() != vocab.AtomicSingleUseRequired || !res.Binding().Equal(a.Binding()) {
		t.Fatal("successful Validation must carry the complete binding and the single-use contract")
	}
}

// specStages reads the stage column of the Section 37 failure table.
func specStages(t *testing.T) []string {
	t.Helper()
	lines := testutil.SpecSection(t, "| Stage | Fail-closed conditions |", "A rejected transition produces no successor")
	row := regexp.MustCompile(`^\| ([A-Z][A-Za-z ]+) \|`)
	var out []string
	for _, l := range lines[1:] {
		if m := row.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "Stage") {
			out = append(out, strings.TrimSpace(m[1]))
		}
	}
	if len(out) == 0 {
		t.Fatal("no Section 37 stages found in the spec")
	}
	return out
}
