package engine_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// outcome is what one Section 33 case produced: a Decision (for policy-stage
// rows), an error from the rejecting transition, and whether any
// authority-bearing artifact (Authorization or Validation result) resulted.
type outcome struct {
	decision *policy.Decision
	err      error
	artifact bool
}

func rule(id, effect, reason string, cond policy.ConditionDraft, scope *policy.ScopeDraft, obligations ...policy.ObligationDraft) policy.RuleDraft {
	return policy.RuleDraft{ID: id, Effect: effect, Reason: reason, Condition: cond, Scope: scope, Obligations: obligations}
}

func pred(d policy.PredicateDraft) policy.ConditionDraft { return policy.ConditionDraft{Predicate: &d} }

var fullScope = &policy.ScopeDraft{
	Capabilities: []string{"data.read", "financial.transfer"},
	Resources:    []string{"acct-1001", "acct-2002"},
}

func policyWith(rules ...policy.RuleDraft) policy.SnapshotDraft {
	return policy.SnapshotDraft{ID: "payments-policies", Generation: "1", Policies: []policy.DefinitionDraft{
		{ID: "payments", Generation: "1", Lifecycle: "active", Rules: rules},
	}}
}

// issueOutcome evaluates p and issues from the Decision.
func issueOutcome(t *testing.T, p pipeline) outcome {
	t.Helper()
	a, err := authz.Issue(p.f.Boundary, p.issue)
	return outcome{decision: p.decision, err: err, artifact: a != nil}
}

// validateOutcome issues p's Authorization and validates it against ctx at time t.
func validateOutcome(t *testing.T, p pipeline, mutate func(*authz.ValidationContext), when epoch.Time) outcome {
	t.Helper()
	a, err := authz.Issue(p.f.Boundary, p.issue)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	ctx := p.context()
	mutate(&ctx)
	res, err := authz.Validate(p.f.Boundary, a, ctx, when)
	return outcome{err: err, artifact: res != nil}
}

// TestSection33FailureModel has one case per row of the Section 33 failure
// table, read from the spec text, and checks each against the row's
// required result: a complete deny Decision with empty scope where the row
// says Deny, a typed rejection with no artifact where it says Reject, and
// never a partial authority-bearing artifact.
func TestSection33FailureModel(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T) outcome{
		"Missing Policy Snapshot or Policy": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			if _, err := policy.Evaluate(p.input, nil, p.sel, "decision-1"); !errors.Is(err, fault.ErrMissing) {
				t.Errorf("a missing snapshot must reject: %v", err)
			}
			p.sel.PolicyID = mustPolicyID(t, "absent-policy")
			return reissue(t, p)
		},
		"Unknown Policy version or unsupported Policy content": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			p.sel.PolicyGeneration = testutil.InputGeneration(t, 2)
			return reissue(t, p)
		},
		"Policy-content or Snapshot substitution": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			extra := rule("deny-never", "deny", "denyRuleMatched", pred(policy.PredicateDraft{Name: "riskIs", Value: "critical"}), nil)
			other, err := policy.Publish(p.f.Admin, allowPolicy(extra))
			if err != nil {
				t.Fatal(err)
			}
			p.issue.Policy = other // same snapshot identity and generation, different content
			return issueOutcome(t, p)
		},
		"Mixed Host authority domains": func(t *testing.T) outcome {
			p, q := newPipeline(t, allowPolicy()), newPipeline(t, allowPolicy())
			d, err := policy.Evaluate(q.input, p.policy, p.sel, "decision-1")
			return outcome{decision: d, err: err}
		},
		"Unsupported or indeterminate condition": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			unsupported := policyWith(rule("regex", "deny", "denyRuleMatched", pred(policy.PredicateDraft{Name: "matchesRegex", Value: ".*"}), nil))
			if s, err := policy.Publish(p.f.Admin, unsupported); s != nil || !errors.Is(err, fault.ErrUnknownToken) {
				t.Errorf("an unsupported predicate must reject publication: %v", err)
			}
			// The input has no delegation, so exactDelegationID is indeterminate.
			indeterminate := rule("delegated", "allow", "allowRuleMatched", pred(policy.PredicateDraft{Name: "exactDelegationID", Identifier: "d-1"}), fullScope)
			p = newPipeline(t, allowPolicy(indeterminate))
			if !hasReason(p.decision, vocab.ReasonConditionIndeterminate) {
				t.Errorf("reasons %v, want conditionIndeterminate", p.decision.Reasons())
			}
			return issueOutcome(t, p)
		},
		"No matching eligible allow": func(t *testing.T) outcome {
			p := newPipeline(t, policyWith(rule("other-tool", "allow", "allowRuleMatched",
				pred(policy.PredicateDraft{Name: "exactToolID", Identifier: "accounts.lookup"}), fullScope)))
			if !hasReason(p.decision, vocab.ReasonNoAllowRuleMatched) {
				t.Errorf("reasons %v, want noAllowRuleMatched", p.decision.Reasons())
			}
			return issueOutcome(t, p)
		},
		"Matched deny": func(t *testing.T) outcome {
			tool := pred(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"})
			p := newPipeline(t, allowPolicy(
				rule("confirm", "requireConfirmation", "confirmationRuleMatched", tool, fullScope),
				rule("deny-high-risk", "deny", "denyRuleMatched", pred(policy.PredicateDraft{Name: "riskIs", Value: "high"}), nil),
			))
			return issueOutcome(t, p)
		},
		"Require-confirmation outcome": func(t *testing.T) outcome {
			tool := pred(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"})
			p := newPipeline(t, allowPolicy(rule("confirm", "requireConfirmation", "confirmationRuleMatched", tool, fullScope)))
			if p.decision.Outcome() != vocab.RequireConfirmation {
				t.Fatalf("outcome %v, want requireConfirmation", p.decision.Outcome())
			}
			o := issueOutcome(t, p)
			o.decision = nil // not a deny, but never issuable
			return o
		},
		"Unsupported, removed, or weakened obligation": func(t *testing.T) outcome {
			tool := pred(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"})
			p := newPipeline(t, policyWith(rule("allow-audited", "allow", "allowRuleMatched", tool, fullScope,
				policy.ObligationDraft{Kind: "requireAuditEvent"})))
			return issueOutcome(t, p)
		},
		"Stale Evaluation Input or excessive evaluation age": func(t *testing.T) outcome {
			tool := pred(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"})
			p := newPipeline(t, policyWith(rule("allow-fresh", "allow", "allowRuleMatched", tool, fullScope,
				policy.ObligationDraft{Kind: "maximumEvaluationAgeSeconds", Seconds: "10"})))
			p.issue.IssuedAt = testutil.EvidenceTimeAt(t, testutil.EvidenceTime+11)
			p.issue.ExpiresAt = testutil.EvidenceTimeAt(t, testutil.EvidenceTime+60)
			return issueOutcome(t, p)
		},
		"Issuance before evaluation, invalid expiry, or excessive lifetime": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			p.issue.IssuedAt = testutil.EvidenceTimeAt(t, testutil.EvidenceTime-1)
			return issueOutcome(t, p)
		},
		"Arithmetic overflow or invalid subtraction ordering": func(t *testing.T) outcome {
			if _, err := testutil.EvidenceTimeAt(t, epoch.Max).Add(1); !errors.Is(err, fault.ErrOutOfRange) {
				t.Errorf("time arithmetic past the bound must reject: %v", err)
			}
			p := newPipeline(t, allowPolicy())
			p.issue.ExpiresAt = testutil.EvidenceTimeAt(t, testutil.EvidenceTime-30) // expiry before issuance: never subtracted
			return issueOutcome(t, p)
		},
		"Capability or Resource scope excess or mismatch": func(t *testing.T) outcome {
			tool := pred(policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"})
			narrow := &policy.ScopeDraft{Capabilities: []string{"data.read"}, Resources: []string{"acct-1001", "acct-2002"}}
			p := newPipeline(t, policyWith(rule("allow-read-only", "allow", "allowRuleMatched", tool, narrow)))
			if !hasReason(p.decision, vocab.ReasonCapabilityNotPermitted) {
				t.Errorf("reasons %v, want capabilityNotPermitted", p.decision.Reasons())
			}
			return issueOutcome(t, p)
		},
		"Authorization identity mismatch": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			return validateOutcome(t, p, func(c *authz.ValidationContext) { c.AuthorizationID = "authz-2" }, p.issue.IssuedAt)
		},
		"Request, Proposal Assessment, Tool, Registry, Schema, Intent, or identity substitution": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			a, err := assessment.New(p.f.Boundary, p.f.Spec.Assessment)
			if err != nil {
				t.Fatal(err)
			}
			prop := p.f.Spec.Proposal
			prop.Arguments = []byte(strings.Replace(testutil.PaymentsArguments, "12500", "99999", 1))
			other, err := request.New(p.f.Snapshot, prop, a)
			if err != nil {
				t.Fatal(err)
			}
			return validateOutcome(t, p, func(c *authz.ValidationContext) { c.Request = other }, p.issue.IssuedAt)
		},
		"Policy or Policy Decision substitution": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			other, err := policy.Evaluate(p.input, p.policy, p.sel, "decision-2")
			if err != nil {
				t.Fatal(err)
			}
			return validateOutcome(t, p, func(c *authz.ValidationContext) { c.Decision = other }, p.issue.IssuedAt)
		},
		"Capability or Resource substitution": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			return validateOutcome(t, p, func(c *authz.ValidationContext) { c.Resources = c.Resources[:1] }, p.issue.IssuedAt)
		},
		"Replay identity or Consumption identity substitution": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			return validateOutcome(t, p, func(c *authz.ValidationContext) { c.ConsumptionID = "consume-2" }, p.issue.IssuedAt)
		},
		"Complete Consumption Binding substitution": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			longer := p.issue
			longer.ExpiresAt = testutil.EvidenceTimeAt(t, testutil.EvidenceTime+61) // same identities, different binding
			sub, err := authz.Issue(p.f.Boundary, longer)
			if err != nil {
				t.Fatal(err)
			}
			res, err := authz.Validate(p.f.Boundary, sub, p.context(), p.issue.IssuedAt)
			return outcome{err: err, artifact: res != nil}
		},
		"Validation at or after expiry, or before issuance": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			if o := validateOutcome(t, p, func(*authz.ValidationContext) {}, testutil.EvidenceTimeAt(t, testutil.EvidenceTime-1)); o.err == nil {
				t.Error("validation before issuance must reject")
			}
			return validateOutcome(t, p, func(*authz.ValidationContext) {}, p.issue.ExpiresAt)
		},
		"Required future atomic Consumption facility absent or unavailable": func(t *testing.T) outcome {
			p := newPipeline(t, allowPolicy())
			a, err := authz.Issue(p.f.Boundary, p.issue)
			if err != nil {
				t.Fatal(err)
			}
			res, err := authz.Validate(p.f.Boundary, a, p.context(), p.issue.IssuedAt)
			if err != nil {
				t.Fatalf("structural Validation can succeed without the facility: %v", err)
			}
			// The core's obligation ends here: it hands the Host the complete
			// binding and the mandatory single-use contract; the execution
			// gate on a successful atomic Consumption is the service's.
			if res.Contract() != vocab.AtomicSingleUseRequired || res.Binding().Digest().IsZero() {
				t.Fatal("a successful Validation must carry the complete binding and atomicSingleUseRequired")
			}
			return outcome{artifact: true}
		},
	}
	// The exact rejection of each Reject row, and of issuance from each Deny
	// row's Decision: every failure names its code and the value at fault.
	ineligible := want{fault.Ineligible, "decision.outcome"}
	wants := map[string]want{
		"Missing Policy Snapshot or Policy":                                                      ineligible,
		"Unknown Policy version or unsupported Policy content":                                   ineligible,
		"Policy-content or Snapshot substitution":                                                {fault.Mismatch, "decision.snapshot"},
		"Mixed Host authority domains":                                                           {fault.MixedDomain, "input"},
		"Unsupported or indeterminate condition":                                                 ineligible,
		"No matching eligible allow":                                                             ineligible,
		"Matched deny":                                                                           ineligible,
		"Require-confirmation outcome":                                                           ineligible,
		"Unsupported, removed, or weakened obligation":                                           {fault.Unsupported, "decision.obligations[0]"},
		"Stale Evaluation Input or excessive evaluation age":                                     {fault.OutOfRange, "decision.obligations[0]"},
		"Issuance before evaluation, invalid expiry, or excessive lifetime":                      {fault.OutOfRange, "issuedAt"},
		"Arithmetic overflow or invalid subtraction ordering":                                    {fault.OutOfRange, "expiresAt"},
		"Capability or Resource scope excess or mismatch":                                        ineligible,
		"Authorization identity mismatch":                                                        {fault.Mismatch, "authorizationID"},
		"Request, Proposal Assessment, Tool, Registry, Schema, Intent, or identity substitution": {fault.Mismatch, "request"},
		"Policy or Policy Decision substitution":                                                 {fault.Mismatch, "decision"},
		"Capability or Resource substitution":                                                    {fault.Mismatch, "resources"},
		"Replay identity or Consumption identity substitution":                                   {fault.Mismatch, "consumptionID"},
		// The substitute differs from the expectation in its expiry before
		// the complete binding is even compared.
		"Complete Consumption Binding substitution":         {fault.Mismatch, "expiresAt"},
		"Validation at or after expiry, or before issuance": {fault.Expired, "validationTime"},
	}
	for _, r := range specFailureRows(t) {
		run, ok := cases[r.failure]
		if !ok {
			t.Errorf("Section 33 row %q has no case", r.failure)
			continue
		}
		t.Run(r.failure, func(t *testing.T) {
			t.Parallel()
			o := run(t)
			if o.decision != nil {
				t.Logf("decision %v %v", o.decision.Outcome(), o.decision.Reasons())
			}
			t.Logf("rejection: %v", o.err)
			switch {
			case strings.HasPrefix(r.required, "Structural Validation can succeed"):
				return // checked inside the case
			case o.artifact:
				t.Fatalf("required %q, but an authority-bearing artifact resulted", r.required)
			case o.decision != nil && o.decision.Outcome() == vocab.Deny:
				if !strings.Contains(r.required, "Deny") && !strings.Contains(r.required, "deny") && !strings.HasPrefix(r.required, "No Authorization") {
					t.Fatalf("required %q, got a deny Decision", r.required)
				}
				if len(o.decision.Capabilities()) != 0 || len(o.decision.Resources()) != 0 {
					t.Fatal("a deny Decision carries empty constrained scope")
				}
				if o.err == nil {
					t.Fatal("issuance from a deny Decision must reject")
				}
			case o.err == nil:
				t.Fatalf("required %q, but nothing rejected", r.required)
			}
			w, ok := wants[r.failure]
			var fe *fault.Error
			switch {
			case !ok:
				t.Fatalf("no expected rejection for row %q", r.failure)
			case !errors.As(o.err, &fe):
				t.Fatalf("rejection %v is not a typed engine fault", o.err)
			case fe.Code != w.code || fe.Path != w.path:
				t.Fatalf("rejection %s at %q, want %s at %q", fe.Code, fe.Path, w.code, w.path)
			}
		})
	}
}

// reissue re-evaluates p with its current selection and issues.
func reissue(t *testing.T, p pipeline) outcome {
	t.Helper()
	d, err := policy.Evaluate(p.input, p.policy, p.sel, "decision-1")
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	p.decision, p.issue.Decision, p.issue.Selection = d, d, p.sel
	return issueOutcome(t, p)
}

func hasReason(d *policy.Decision, r vocab.Reason) bool {
	for _, x := range d.Reasons() {
		if x == r {
			return true
		}
	}
	return false
}

func mustPolicyID(t *testing.T, s string) ident.PolicyID {
	t.Helper()
	id, err := ident.ParsePolicyID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

type failureRow struct{ failure, required string }

// want is the exact typed rejection of one Section 33 row.
type want struct {
	code fault.Code
	path string
}

// specFailureRows reads the Section 33 failure table.
func specFailureRows(t *testing.T) []failureRow {
	t.Helper()
	lines := testutil.SpecSection(t, "| Failure | Required result |", "No failure MAY return a partial authority-bearing")
	row := regexp.MustCompile(`^\| ([^|]+) \| ([^|]+) \|$`)
	var out []failureRow
	for _, l := range lines[2:] {
		if m := row.FindStringSubmatch(l); m != nil {
			out = append(out, failureRow{strings.TrimSpace(m[1]), strings.TrimSpace(m[2])})
		}
	}
	if len(out) != 21 {
		t.Fatalf("found %d Section 33 rows, want 21", len(out))
	}
	return out
}
