package authz_test

// Issuance eligibility (Section 23), obligations (Section 27) and the
// explicit issuance identities (Sections 25 and 28).

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/testutil"
)

// issueCase is one row of an issuance table: an optional change to the
// base setup, an optional change to the Host's issuance request, and the
// expected rejection (nil: issuance succeeds).
type issueCase struct {
	setup    func(setup) setup
	request  func(t *testing.T, w *world, r *authz.IssueRequest)
	boundary func(w *world) boundary.Boundary // default: the Host's retained boundary
	wantErr  error
	wantPath string
}

func runIssueCases(t *testing.T, tests map[string]issueCase) {
	t.Helper()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := buildChanged(t, tc.setup)
			r := w.issueRequest()
			if tc.request != nil {
				tc.request(t, w, &r)
			}
			b := w.s.B
			if tc.boundary != nil {
				b = tc.boundary(w)
			}
			a, err := authz.Issue(b, r)
			checkFault(t, err, tc.wantErr, tc.wantPath)
			if tc.wantErr != nil {
				if a != nil {
					t.Error("a rejected issuance returned an Authorization")
				}
				return
			}
			if a == nil {
				t.Fatal("Issue returned neither an Authorization nor an error")
			}
			// A successful issuance binds the Decision's obligations exactly.
			diffStrings(t, "Obligations", obligationKeys(w.dec.Obligations()), obligationKeys(a.Obligations()))
			if _, err := authz.Validate(b, a, w.expect(t), r.IssuedAt); err != nil {
				t.Errorf("the issued Authorization does not validate against its independent expectations: %v", err)
			}
		})
	}
}

// TestIssue_Eligibility covers Section 23: only one exact allow Decision for
// the exact Evaluation Input and Policy Snapshot, in the retained Host
// domain, with the exact Registry Snapshot, is eligible. The caller's
// outcome and scope are never trusted.
func TestIssue_Eligibility(t *testing.T) {
	t.Parallel()
	runIssueCases(t, map[string]issueCase{
		"an exact allow decision with every prerequisite issues": {},

		// Non-allow outcomes (Section 23, "Deny and require-confirmation
		// Decisions are ineligible").
		"a deny decision from a matched deny rule is ineligible": {
			setup: func(s setup) setup {
				s.Policy.Policies[0].Rules = append(s.Policy.Policies[0].Rules,
					denyRule("deny-acme-freeze", "tenantMismatch", is("exactTenant", "acme")))
				return s
			},
			wantErr: fault.ErrIneligible, wantPath: "decision.outcome",
		},
		"a deny decision because no allow rule matched is ineligible": {
			setup: func(s setup) setup {
				return withIdentity(s, principal.Draft{Subject: "alice", Tenant: "initech", Session: "session-1"})
			},
			wantErr: fault.ErrIneligible, wantPath: "decision.outcome",
		},
		"a deny decision for a missing policy is ineligible": {
			setup:   func(s setup) setup { s.PolicyID = "absent"; return s },
			wantErr: fault.ErrIneligible, wantPath: "decision.outcome",
		},
		"a deny decision for a retired policy is ineligible": {
			setup:   func(s setup) setup { s.Policy.Policies[0].Lifecycle = "retired"; return s },
			wantErr: fault.ErrIneligible, wantPath: "decision.outcome",
		},
		"a deny decision for lost scope is ineligible": {
			setup: func(s setup) setup {
				s.Policy.Policies[0].Rules[0].Scope.Capabilities = []string{"financial.transfer"}
				return s
			},
			wantErr: fault.ErrIneligible, wantPath: "decision.outcome",
		},
		"a requireConfirmation decision is ineligible": {
			setup: func(s setup) setup {
				s.Policy.Policies[0].Rules = append(s.Policy.Policies[0].Rules, policy.RuleDraft{
					ID: "confirm-payments", Effect: "requireConfirmation", Reason: "confirmationRuleMatched",
					Condition: is("exactToolID", "payments.submit"),
					Scope: &policy.ScopeDraft{
						Capabilities: []string{"data.read", "financial.transfer"},
						Resources:    []string{"acct-1001", "acct-2002"},
					},
				})
				return s
			},
			wantErr: fault.ErrIneligible, wantPath: "decision.outcome",
		},

		// Substitution: a Decision cannot be constructed publicly for
		// another input or snapshot, so the substitute is a genuine
		// Decision evaluated against a different input or snapshot.
		"a decision evaluated against a different evaluation input": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				other := w.rebuild(t, func(s setup) setup { s.EvaluatedAt++; return s })
				r.Decision = w.evaluate(t, other.in, w.pol, w.s.DecisionID)
			},
			wantErr: fault.ErrMismatch, wantPath: "decision.input",
		},
		"the evaluation input substituted under the decision": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				r.Input = w.rebuild(t, func(s setup) setup { s.EvaluatedAt++; return s }).in
			},
			wantErr: fault.ErrMismatch, wantPath: "decision.input",
		},
		"a decision evaluated against a different policy snapshot": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				r.Decision = w.evaluate(t, w.in, samePolicyIDsOtherContent(t, w), w.s.DecisionID)
			},
			wantErr: fault.ErrMismatch, wantPath: "decision.snapshot",
		},
		"the policy snapshot substituted under the decision": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				r.Policy = samePolicyIDsOtherContent(t, w)
			},
			wantErr: fault.ErrMismatch, wantPath: "decision.snapshot",
		},
		"a registry snapshot with the same identity and generation but other content": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				r.Registry = sameRegistryIDsOtherContent(t, w)
			},
			wantErr: fault.ErrMismatch, wantPath: "registry",
		},
		"a registry snapshot of the next generation": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				d := w.s.Registry
				d.Generation = "2"
				r.Registry = testutil.Publish(t, d)
			},
			wantErr: fault.ErrMismatch, wantPath: "registry",
		},

		// Host domains (P-016).
		"issuance under another host's boundary": {
			boundary: func(*world) boundary.Boundary { return boundary.New("payments host") },
			wantErr:  fault.ErrMixedDomain, wantPath: "domain",
		},
		"issuance without the retained boundary": {
			boundary: func(*world) boundary.Boundary { return boundary.Boundary{} },
			wantErr:  fault.ErrMissing, wantPath: "domain",
		},
		"a decision from another host domain": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				r.Decision = build(t, base(boundary.New("payments host"))).dec
			},
			wantErr: fault.ErrMixedDomain, wantPath: "domain",
		},
		"an evaluation input from another host domain": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				r.Input = build(t, base(boundary.New("payments host"))).in
			},
			wantErr: fault.ErrMixedDomain, wantPath: "domain",
		},
		"a policy snapshot from another host domain": {
			request: func(t *testing.T, w *world, r *authz.IssueRequest) {
				r.Policy = build(t, base(boundary.New("payments host"))).pol
			},
			wantErr: fault.ErrMixedDomain, wantPath: "domain",
		},

		// Every bound value is required.
		"no evaluation input": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.Input = nil },
			wantErr: fault.ErrMissing, wantPath: "input",
		},
		"no policy snapshot": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.Policy = nil },
			wantErr: fault.ErrMissing, wantPath: "policy",
		},
		"no registry snapshot": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.Registry = nil },
			wantErr: fault.ErrMissing, wantPath: "registry",
		},
		"no decision": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.Decision = nil },
			wantErr: fault.ErrMissing, wantPath: "decision",
		},
	})
}

// TestIssue_Obligations covers the Section 27 issuance treatment of every
// accepted obligation. The default allow rule carries requireSingleUse and
// a 300 s maximum evaluation age (keys "1:300" and "3"); added obligations
// sort by their Section 50 key, which fixes the rejected index.
func TestIssue_Obligations(t *testing.T) {
	t.Parallel()
	withObligations := func(os ...policy.ObligationDraft) func(setup) setup {
		return func(s setup) setup { s.Policy = realisticPolicy(os...); return s }
	}
	runIssueCases(t, map[string]issueCase{
		"requireConfirmation rejects: confirmation collection does not exist": {
			setup:   withObligations(singleUse(), maxAge(defaultMaxAge), obligation("requireConfirmation")),
			wantErr: fault.ErrUnsupported, wantPath: "decision.obligations[0]",
		},
		"requireAuditEvent rejects: an audit event cannot be proven": {
			setup:   withObligations(singleUse(), maxAge(defaultMaxAge), obligation("requireAuditEvent")),
			wantErr: fault.ErrUnsupported, wantPath: "decision.obligations[2]",
		},
		"requireCompleteInfluenceBoundary on a validated complete boundary issues": {
			setup: withObligations(completeBoundary("chat-session")),
		},
		"requireCompleteInfluenceBoundary on a partial boundary rejects": {
			setup:   func(s setup) setup { return withObligations(completeBoundary("web"))(withWebBoundary(s)) },
			wantErr: fault.ErrIneligible, wantPath: "decision.obligations[0]",
		},
		"requireCompleteInfluenceBoundary on an undeclared boundary rejects": {
			setup:   withObligations(completeBoundary("mailbox")),
			wantErr: fault.ErrIneligible, wantPath: "decision.obligations[0]",
		},
		"requireCompleteInfluenceBoundary on a boundary of unknown completeness rejects": {
			setup: func(s setup) setup {
				s.Collections = []lineage.CollectionDraft{{Boundary: "chat-session", Completeness: "unknown"}}
				return withObligations(completeBoundary("chat-session"))(s)
			},
			wantErr: fault.ErrIneligible, wantPath: "decision.obligations[0]",
		},
		"requireCompleteInfluenceBoundary with no influence collected at all rejects": {
			setup: func(s setup) setup {
				s.Assessment.InfluenceIDs, s.Collections, s.Nodes = nil, nil, nil
				return withObligations(completeBoundary("chat-session"))(s)
			},
			wantErr: fault.ErrIneligible, wantPath: "decision.obligations[0]",
		},
		"requireSingleUseAuthorization is accepted and binds the single-use contract": {
			setup: withObligations(singleUse()),
		},
		"no obligation at all issues": {
			setup: withObligations(),
		},
		"every supported obligation together issues and is retained exactly": {
			setup: withObligations(singleUse(), maxAge(defaultMaxAge), completeBoundary("chat-session")),
		},
		"the confirmation obligation on a rule that did not match does not reach the decision": {
			setup: func(s setup) setup {
				s.Policy.Policies[0].Rules[2].Obligations = []policy.ObligationDraft{obligation("requireConfirmation")}
				return s
			},
		},
	})
}

// TestIssue_Identifiers covers the explicit Authorization, replay and
// Consumption identities (ArtifactID grammar, lower-token(64)) and the
// renewal-bound generation (Section 39: 1–2^64−1, equal to the Intent's).
func TestIssue_Identifiers(t *testing.T) {
	t.Parallel()
	runIssueCases(t, map[string]issueCase{
		"a 64-octet authorization identity is accepted": {
			setup: func(s setup) setup { s.AuthorizationID = strings.Repeat("a", 64); return s },
		},
		"a 65-octet authorization identity rejects": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.AuthorizationID = strings.Repeat("a", 65) },
			wantErr: fault.ErrMalformed, wantPath: "authorizationID",
		},
		"an empty authorization identity rejects": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.AuthorizationID = "" },
			wantErr: fault.ErrMalformed, wantPath: "authorizationID",
		},
		"an upper-case authorization identity rejects (no case folding)": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.AuthorizationID = "Authz-1" },
			wantErr: fault.ErrMalformed, wantPath: "authorizationID",
		},
		"an empty replay identity rejects": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.ReplayID = "" },
			wantErr: fault.ErrMalformed, wantPath: "replayID",
		},
		"a malformed consumption identity rejects": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.ConsumptionID = "-consumption" },
			wantErr: fault.ErrMalformed, wantPath: "consumptionID",
		},
		"a zero generation rejects": {
			request: func(_ *testing.T, _ *world, r *authz.IssueRequest) { r.Generation = ident.Generation{} },
			wantErr: fault.ErrMismatch, wantPath: "generation",
		},
		"a generation other than the intent's renewal generation rejects": {
			request: func(t *testing.T, _ *world, r *authz.IssueRequest) { r.Generation = generation(t, 2) },
			wantErr: fault.ErrMismatch, wantPath: "generation",
		},
		"a renewed intent (generation 7) issues generation 7": {
			setup: func(s setup) setup { s.Intent.RenewalGeneration = "7"; return s },
		},
	})
}

// --- substitutes with the same identifiers and different content ---

// rebuild builds a variant of w in w's boundary.
func (w *world) rebuild(tb testing.TB, change func(setup) setup) *world {
	tb.Helper()
	return build(tb, change(w.s))
}

// samePolicyIDsOtherContent publishes w's policy snapshot again under the
// same snapshot and policy identities and generations, with one more deny
// rule that matches nothing: equal identifiers, different complete content.
func samePolicyIDsOtherContent(tb testing.TB, w *world) *policy.Snapshot {
	tb.Helper()
	d := w.s.Policy
	d.Policies = slices.Clone(d.Policies)
	d.Policies[0].Rules = append(slices.Clone(d.Policies[0].Rules),
		denyRule("zz-deny-substitute", "tenantMismatch", is("exactTenant", "umbrella")))
	p, err := policy.Publish(w.admin, d)
	if err != nil {
		tb.Fatalf("policy.Publish: %v", err)
	}
	if p.ID() != w.pol.ID() || p.Generation() != w.pol.Generation() || p.Equal(w.pol) {
		tb.Fatal("the substitute policy snapshot must share identity and generation and differ in content")
	}
	return p
}

// sameRegistryIDsOtherContent publishes w's registry snapshot again under
// the same identity and generation, with one definition's display title
// changed.
func sameRegistryIDsOtherContent(tb testing.TB, w *world) *registry.Snapshot {
	tb.Helper()
	d := w.s.Registry
	d.Definitions = slices.Clone(d.Definitions)
	d.Definitions[0].Title = "A substituted display title"
	r := testutil.Publish(tb, d)
	if r.ID() != w.reg.ID() || r.Generation() != w.reg.Generation() || r.Equal(w.reg) {
		tb.Fatal("the substitute registry snapshot must share identity and generation and differ in content")
	}
	return r
}
