package authz_test

// Invariants P-016 … P-032 (spec Section 35): Host domains, roles,
// assessment and policy continuity, precedence, obligations, lifetime,
// Validation, replay and Consumption. P-001 … P-015 and the shared helpers
// are in conformance_test.go.

import (
	"errors"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestInvariant_P016_HostDomainsNeverComposeImplicitly: identical content
// in another Host domain is another domain at issuance and Validation, and
// the Consumption Bindings of the two domains are not equal.
func TestInvariant_P016_HostDomainsNeverComposeImplicitly(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	twin := build(t, base(newHost()))
	a, twinA := w.issue(t), twin.issue(t)
	rejectsIssuance(t, twin.s.B, w.issueRequest(), fault.ErrMixedDomain, "domain")
	r := w.issueRequest()
	r.Decision = twin.dec
	rejectsIssuance(t, w.s.B, r, fault.ErrMixedDomain, "domain")
	rejectsValidation(t, w.s.B, twinA, w.expect(t), evaluatedAt, fault.ErrMixedDomain, "domain")
	rejectsValidation(t, twin.s.B, a, twin.expect(t), evaluatedAt, fault.ErrMixedDomain, "domain")
	if a.Equal(twinA) || a.Binding().Equal(twinA.Binding()) {
		t.Error("artifacts of two Host domains compare equal")
	}
}

// TestInvariant_P017_RoleAuthorityIsAttenuated: only a
// policyAdministrationAuthority publishes policy, and the publishing Role
// Authority is bound into the snapshot: the same rules published by
// another administrator are another policy, which does not validate.
func TestInvariant_P017_RoleAuthorityIsAttenuated(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	_, err := policy.Publish(w.authn, w.s.Policy)
	checkFault(t, err, fault.ErrUnauthorized, "admin")

	admin2, err := authority.Grant(w.s.B, w.host, vocab.PolicyAdministrationAuthority, "admin-issuer-2")
	if err != nil {
		t.Fatalf("Grant: %v", err)
	}
	p2, err := policy.Publish(admin2, w.s.Policy)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	ctx := w.expect(t)
	ctx.Policy = p2
	rejectsValidation(t, w.s.B, a, ctx, evaluatedAt, fault.ErrMismatch, "policy")
}

// TestInvariant_P018_ProposalAssessmentContinuityIsExact: the same
// proposal under another assessment is another request, input and
// Decision; its genuine artifact does not validate as the Host's.
func TestInvariant_P018_ProposalAssessmentContinuityIsExact(t *testing.T) {
	t.Parallel()
	b := newHost()
	w := build(t, base(b))
	s := base(b)
	s.Assessment.AssessmentID = "assessment-2"
	other := build(t, s).issue(t)
	rejectsValidation(t, b, other, w.expect(t), evaluatedAt, fault.ErrMismatch, "decision")
	ctx := w.expect(t)
	ctx.Request = w.otherAssessmentRequest(t)
	rejectsValidation(t, b, w.issue(t), ctx, evaluatedAt, fault.ErrMismatch, "request")
}

// TestInvariant_P019_PolicyContentIsImmutableAndExact: a published
// snapshot does not change when its draft does, and a same-identity content
// substitution rejects at issuance and Validation.
func TestInvariant_P019_PolicyContentIsImmutableAndExact(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	before := w.pol.Digest()
	w.s.Policy.Policies[0].Rules[0].Scope.Capabilities[0] = "resource.delete" // the Host's draft, after publication
	if !w.pol.Digest().Equal(before) {
		t.Fatal("changing the draft changed the published snapshot")
	}
	if _, err := w.validateAt(t, a, evaluatedAt); err != nil {
		t.Fatalf("Validate after the draft changed: %v", err)
	}
	sub := samePolicyIDsOtherContent(t, w)
	r := w.issueRequest()
	r.Policy = sub
	rejectsIssuance(t, w.s.B, r, fault.ErrMismatch, "decision.snapshot")
	ctx := w.expect(t)
	ctx.Policy = sub
	rejectsValidation(t, w.s.B, a, ctx, evaluatedAt, fault.ErrMismatch, "policy")
}

// TestInvariant_P020_DenyTakesPrecedence: a matched deny dominates matched
// requireConfirmation and allow rules; requireConfirmation dominates allow;
// neither issues.
func TestInvariant_P020_DenyTakesPrecedence(t *testing.T) {
	t.Parallel()
	confirm := policy.RuleDraft{
		ID: "confirm-payments", Effect: "requireConfirmation", Reason: "confirmationRuleMatched",
		Condition: is("exactToolID", "payments.submit"),
		Scope:     &policy.ScopeDraft{Capabilities: []string{"data.read", "financial.transfer"}, Resources: []string{"acct-1001", "acct-2002"}},
	}
	deny := denyRule("deny-acme", "tenantMismatch", is("exactTenant", "acme"))
	for name, tc := range map[string]struct {
		extra []policy.RuleDraft
		want  vocab.Effect
	}{
		"allow and deny match: deny":                        {[]policy.RuleDraft{deny}, vocab.Deny},
		"allow, confirmation and deny match: deny":          {[]policy.RuleDraft{confirm, deny}, vocab.Deny},
		"allow and confirmation match: requireConfirmation": {[]policy.RuleDraft{confirm}, vocab.RequireConfirmation},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := base(newHost())
			s.Policy.Policies[0].Rules = append(s.Policy.Policies[0].Rules, tc.extra...)
			w := build(t, s)
			if w.dec.Outcome() != tc.want {
				t.Fatalf("outcome %v, want %v", w.dec.Outcome(), tc.want)
			}
			rejectsIssuance(t, w.s.B, w.issueRequest(), fault.ErrIneligible, "decision.outcome")
		})
	}
}

// TestInvariant_P021_UnsupportedObligationsFailClosed: requireConfirmation
// and requireAuditEvent reject at issuance, an unknown obligation kind
// rejects at publication, and a weakened (removed) obligation rejects at
// Validation.
func TestInvariant_P021_UnsupportedObligationsFailClosed(t *testing.T) {
	t.Parallel()
	for kind, path := range map[string]string{
		"requireConfirmation": "decision.obligations[0]",
		"requireAuditEvent":   "decision.obligations[2]",
	} {
		s := base(newHost())
		s.Policy = realisticPolicy(singleUse(), maxAge(defaultMaxAge), obligation(kind))
		w := build(t, s)
		rejectsIssuance(t, w.s.B, w.issueRequest(), fault.ErrUnsupported, path)
	}
	s := base(newHost())
	s.Policy = realisticPolicy(obligation("requireHumanReview"))
	if _, err := assemble(t, s); !errors.Is(err, fault.ErrUnknownToken) {
		t.Errorf("publishing an unknown obligation: %v, want an unknown-token rejection", err)
	}
	w := build(t, base(newHost()))
	weakened := w.rebuild(t, func(s setup) setup { s.Policy = realisticPolicy(singleUse()); return s })
	rejectsValidation(t, w.s.B, weakened.issue(t), w.expect(t), evaluatedAt, fault.ErrMismatch, "decision")
}

// TestInvariant_P022_AuthorizationLifetimeIsFinite: a zero or excessive
// requested maximum and an empty lifetime reject at issuance; Validation
// at or after expiry rejects (see also TestLifetime_Bounds).
func TestInvariant_P022_AuthorizationLifetimeIsFinite(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	for name, tc := range map[string]struct {
		maxLifetime, duration uint64
		path                  string
	}{
		"a zero maximum rejects":                             {0, 1, "maxLifetime"},
		"a 3,601 s maximum rejects":                          {3601, 300, "maxLifetime"},
		"an empty lifetime rejects":                          {600, 0, "expiresAt"},
		"a lifetime beyond the maximum rejects":              {60, 61, "expiresAt"},
		"a lifetime beyond the bound evidence rejects":       {3600, 3600, "expiresAt"},
		"a lifetime ending exactly with the evidence issues": {3600, windowEnd - evaluatedAt, ""},
	} {
		r := w.issueRequest()
		r.MaxLifetime, r.ExpiresAt = tc.maxLifetime, timeAt(evaluatedAt+tc.duration)
		a, err := authz.Issue(w.s.B, r)
		if tc.path == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		checkFault(t, err, fault.ErrOutOfRange, tc.path)
		if a != nil {
			t.Errorf("%s: an Authorization was returned", name)
		}
	}
	a := w.issue(t)
	rejectsValidation(t, w.s.B, a, w.expect(t), w.s.ExpiresAt, fault.ErrExpired, "validationTime")
	rejectsValidation(t, w.s.B, a, w.expect(t), epoch.Max, fault.ErrExpired, "validationTime")
}

// TestInvariant_P023_IssuanceCannotPrecedeEvaluation: issuance one second
// before evaluation rejects before any subtraction; an expectation claiming
// such an issuance does not validate the genuine artifact.
func TestInvariant_P023_IssuanceCannotPrecedeEvaluation(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	r := w.issueRequest()
	r.IssuedAt = timeAt(evaluatedAt - 1)
	rejectsIssuance(t, w.s.B, r, fault.ErrOutOfRange, "issuedAt")
	r.IssuedAt = timeAt(0)
	rejectsIssuance(t, w.s.B, r, fault.ErrOutOfRange, "issuedAt")
	ctx := w.expect(t)
	ctx.IssuedAt = timeAt(evaluatedAt - 1)
	rejectsValidation(t, w.s.B, w.issue(t), ctx, evaluatedAt, fault.ErrMismatch, "issuedAt")
}

// TestInvariant_P024_ValidationExpectationsAreIndependentlySupplied shows
// why this is a Host obligation: the Host expects authz-1, but is handed
// authz-2 — a genuine artifact for the same request, issued to someone who
// must not use it here. Expectations copied from the artifact under
// Validation are self-consistent and validate it; only expectations the
// Host supplies independently reject it.
//
// Host obligation: the core cannot tell copied expectations from
// independent ones. The Host MUST source every expectation, in particular
// the Authorization identity, from its own records (Section 29).
func TestInvariant_P024_ValidationExpectationsAreIndependentlySupplied(t *testing.T) {
	t.Parallel()
	b := newHost()
	host := build(t, base(b))
	presented := build(t, func(s setup) setup {
		s.AuthorizationID, s.ReplayID, s.ConsumptionID = "authz-2", "replay-2", "consumption-2"
		return s
	}(base(b))).issue(t)

	// Non-conforming: copying from the artifact validates the wrong one.
	if _, err := authz.Validate(b, presented, copiedFrom(presented), timeAt(evaluatedAt)); err != nil {
		t.Fatalf("copied expectations are self-consistent and should validate: %v", err)
	}
	// Conforming: independent expectations reject it.
	rejectsValidation(t, b, presented, host.expect(t), evaluatedAt, fault.ErrMismatch, "authorizationID")
}

// TestInvariant_P025_ExpectedAuthorizationIdentityIsIndependent: an
// artifact whose identity differs from the independently expected one
// rejects even when every other value agrees.
//
// Host obligation: sourcing the expected identity independently of the
// artifact (P-024); the core enforces only the comparison.
func TestInvariant_P025_ExpectedAuthorizationIdentityIsIndependent(t *testing.T) {
	t.Parallel()
	b := newHost()
	w := build(t, base(b))
	other := build(t, func(s setup) setup { s.AuthorizationID = "authz-2"; return s }(base(b))).issue(t)
	rejectsValidation(t, b, other, w.expect(t), evaluatedAt, fault.ErrMismatch, "authorizationID")
	ctx := w.expect(t)
	ctx.AuthorizationID = ""
	rejectsValidation(t, b, w.issue(t), ctx, evaluatedAt, fault.ErrMismatch, "authorizationID")
}

// TestInvariant_P026_ValidationIsPureAndRepeatable: identical inputs give
// identical results, success or failure, and nothing observable changes
// (see also TestBinding_ValidationPerformsNoMutation).
func TestInvariant_P026_ValidationIsPureAndRepeatable(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	ok1, err1 := w.validateAt(t, a, evaluatedAt)
	ok2, err2 := w.validateAt(t, a, evaluatedAt)
	if err1 != nil || err2 != nil || summarize(ok1).Binding != summarize(ok2).Binding {
		t.Fatalf("repeated successful Validation differs: %v %v", err1, err2)
	}
	_, bad1 := w.validateAt(t, a, w.s.ExpiresAt)
	_, bad2 := w.validateAt(t, a, w.s.ExpiresAt)
	if bad1 == nil || bad1.Error() != bad2.Error() {
		t.Fatalf("repeated failed Validation differs: %v / %v", bad1, bad2)
	}
}

// TestInvariant_P027_ReplayIdentityIsCorrelationOnly: equal replay
// identities never make Authorizations equal, and Validation reserves no
// replay identity (see also TestBinding_ReplayIdentityIsCorrelationOnly).
func TestInvariant_P027_ReplayIdentityIsCorrelationOnly(t *testing.T) {
	t.Parallel()
	b := newHost()
	w1 := build(t, base(b))
	w2 := build(t, func(s setup) setup { s.AuthorizationID = "authz-2"; return s }(base(b)))
	a1, a2 := w1.issue(t), w2.issue(t)
	if a1.ReplayID() != a2.ReplayID() || a1.Equal(a2) {
		t.Fatal("equal replay identities must not make the Authorizations equal")
	}
	for _, x := range []struct {
		w *world
		a *authz.Authorization
	}{{w1, a1}, {w2, a2}, {w1, a1}} {
		if _, err := x.w.validateAt(t, x.a, evaluatedAt); err != nil {
			t.Errorf("Validate %s: %v (a replay identity was reserved)", x.a.ID(), err)
		}
	}
}

// TestInvariant_P028_CoreRequiresAtomicConsumptionButDefersIt: successful
// Validation hands the Host the complete binding and the mandatory
// atomicSingleUseRequired contract, and performs no Consumption: the
// result offers nothing but those two accessors, and the artifact still
// validates afterwards.
//
// Future Host facility: the durable atomic Consumption store and the
// transition that consumes the binding exactly once before any protected
// side effect do not exist in Phase 1–6; execution MUST remain blocked
// without them.
func TestInvariant_P028_CoreRequiresAtomicConsumptionButDefersIt(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	r, err := w.validateAt(t, a, evaluatedAt)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if r.Contract() != vocab.AtomicSingleUseRequired || r.Binding().Contract() != vocab.AtomicSingleUseRequired {
		t.Errorf("contract %v, want atomicSingleUseRequired", r.Contract())
	}
	var methods []string
	typ := reflect.TypeFor[*authz.Result]()
	for i := range typ.NumMethod() {
		methods = append(methods, typ.Method(i).Name)
	}
	diffStrings(t, "Result methods", []string{"Binding", "Contract"}, methods)
	if _, err := w.validateAt(t, a, evaluatedAt); err != nil {
		t.Errorf("Validation consumed the artifact: %v", err)
	}
}

// TestInvariant_P029_NoPartialAuthorityBearingArtifact: every rejected
// issuance returns no Authorization and every failed Validation returns no
// result, and a deny Decision carries no scope.
func TestInvariant_P029_NoPartialAuthorityBearingArtifact(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	for field, mutate := range expectationMutations(t, w) {
		r := w.issueRequest()
		switch field {
		case "AuthorizationID":
			r.AuthorizationID = "-"
		case "Decision":
			r.Decision = w.evaluate(t, w.in, samePolicyIDsOtherContent(t, w), w.s.DecisionID)
		case "Input":
			r.Input = w.shiftedInput(t)
		case "Registry":
			r.Registry = sameRegistryIDsOtherContent(t, w)
		case "Policy":
			r.Policy = samePolicyIDsOtherContent(t, w)
		case "ExpiresAt":
			r.ExpiresAt = r.IssuedAt
		case "MaxLifetime":
			r.MaxLifetime = 0
		case "IssuedAt":
			r.IssuedAt = timeAt(evaluatedAt - 1)
		default:
			r.Generation = generation(t, 5)
		}
		if got, err := authz.Issue(w.s.B, r); err == nil || got != nil {
			t.Errorf("%s: issuance returned (%v, %v), want (nil, error)", field, got != nil, err)
		}
		ctx := w.expect(t)
		mutate(&ctx)
		if got, err := authz.Validate(w.s.B, a, ctx, timeAt(evaluatedAt)); err == nil || got != nil {
			t.Errorf("%s: Validation returned (%v, %v), want (nil, error)", field, got != nil, err)
		}
	}
	s := base(newHost())
	s.PolicyID = "absent"
	denied := build(t, s)
	if denied.dec.Outcome() != vocab.Deny || len(denied.dec.Capabilities()) != 0 || len(denied.dec.Resources()) != 0 {
		t.Error("a deny Decision carries scope")
	}
}

// TestInvariant_P030_HostEvidenceIsAuthenticAndAccuratelyScoped: the core
// accepts Host evidence only from the Role Authority of its fact class and
// only within one Host domain.
//
// Host obligation: the core cannot know whether the Host really
// authenticated alice or captured her Intent truthfully; the Host MUST
// withhold trusted construction for evidence it did not authenticate.
func TestInvariant_P030_HostEvidenceIsAuthenticAndAccuratelyScoped(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	_, err := evidence.NewSecurityContext(w.capture, testutil.InputContextAttestation, w.sc.Validity(), w.s.Context)
	checkFault(t, err, fault.ErrUnauthorized, "authority")
	_, err = evidence.NewIntent(w.authn, testutil.InputIntentAttestation, w.intent.Validity(), evidence.ExactRequest(w.req), w.s.Intent)
	checkFault(t, err, fault.ErrUnauthorized, "authority")

	foreign := build(t, base(newHost()))
	d := w.f.Draft
	d.SecurityContext = foreign.sc
	_, err = evalinput.New(w.s.B, d)
	checkFault(t, err, fault.ErrMixedDomain, "securityContext")
}

// TestInvariant_P031_CoreReadsNoClockAndDefersTrustedTime: the core reads
// no clock. Its verdict depends only on the explicit time it is given: the
// same artifact is expired at its expiry and valid when a Host supplies an
// earlier ("rolled-back") time.
//
// Production prerequisite: explicit time is not trusted time. Trusted,
// rollback-resistant time is a future Host facility; production execution
// MUST remain blocked without it.
func TestInvariant_P031_CoreReadsNoClockAndDefersTrustedTime(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	rejectsValidation(t, w.s.B, a, w.expect(t), w.s.ExpiresAt, fault.ErrExpired, "validationTime")
	if _, err := w.validateAt(t, a, w.s.ExpiresAt-1); err != nil {
		t.Errorf("the rolled-back explicit time should validate structurally: %v", err)
	}
	if _, err := epoch.New(epoch.Max + 1); !errors.Is(err, fault.ErrOutOfRange) {
		t.Errorf("explicit time beyond the epoch bound: %v", err)
	}
}

// TestInvariant_P032_CoreDefersAuthenticityAndDurableSingleUse: no
// public construction path yields a validating artifact (a zero-value
// Authorization never validates), and the core does not make an artifact
// single-use: it validates any number of times, carrying the
// atomicSingleUseRequired contract for the Host.
//
// Production prerequisite: cryptographic authenticity across process
// boundaries and durable single-use Consumption across failures are
// future facilities; production execution MUST remain blocked without them.
func TestInvariant_P032_CoreDefersAuthenticityAndDurableSingleUse(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	rejectsValidation(t, w.s.B, &authz.Authorization{}, w.expect(t), evaluatedAt, fault.ErrMixedDomain, "domain")
	if (&authz.Authorization{}).Equal(&authz.Authorization{}) {
		t.Error("two zero-value Authorizations are Equal")
	}
	a := w.issue(t)
	for range 3 {
		r, err := w.validateAt(t, a, evaluatedAt)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if r.Contract() != vocab.AtomicSingleUseRequired {
			t.Fatal("the single-use contract is missing")
		}
	}
}
