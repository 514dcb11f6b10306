package authz_test

// One test per protocol invariant P-001 … P-032 (spec Section 35), each
// exercised through the Authorization core and the controlled transitions
// it consumes. P-024, P-025, P-028, P-030, P-031 and P-032 are Host
// integration obligations or production prerequisites: their tests prove
// the strongest structural property the core can offer, and a comment says
// what remains the Host's obligation.

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

func newHost() boundary.Boundary { return boundary.New("payments host") }

// rejectsIssuance issues r and requires a rejection matching want at path
// with no Authorization.
func rejectsIssuance(t *testing.T, b boundary.Boundary, r authz.IssueRequest, want error, path string) {
	t.Helper()
	a, err := authz.Issue(b, r)
	checkFault(t, err, want, path)
	if a != nil {
		t.Error("a rejected issuance returned an Authorization")
	}
}

// rejectsValidation validates and requires a rejection matching want at
// path with no result.
func rejectsValidation(t *testing.T, b boundary.Boundary, a *authz.Authorization, ctx authz.ValidationContext, at uint64, want error, path string) {
	t.Helper()
	r, err := authz.Validate(b, a, ctx, timeAt(at))
	checkFault(t, err, want, path)
	if r != nil {
		t.Error("a failed Validation returned a result")
	}
}

// TestInvariant_P001_ModelOutputNeverHasFinalAuthority: the model controls
// only the raw Proposal. A Proposal the Host did not capture Intent for —
// here the model redirects the payment to another account — yields a
// different Canonical Request that the authenticated Intent does not
// target, so no Evaluation Input, Decision or Authorization can follow.
func TestInvariant_P001_ModelOutputNeverHasFinalAuthority(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	redirected := w.s.Proposal
	redirected.Arguments = []byte(`{"currency":"eur","amount":12500,"debtor-account":"acct-2002","creditor-account":"acct-3003"}`)
	modelRequest, err := request.New(w.reg, redirected, w.asmt)
	if err != nil {
		t.Fatalf("request.New: %v", err)
	}
	d := w.f.Draft
	d.Request = modelRequest
	d.RequestedResources = resourceTokens(modelRequest.Resources())
	in, err := evalinput.New(w.s.B, d)
	checkFault(t, err, fault.ErrMismatch, "intent.target")
	if in != nil {
		t.Error("an Evaluation Input was built for a request the Intent does not target")
	}
}

// TestInvariant_P002_ProposalIsNotAuthenticatedIntent: without the Host's
// authenticated Intent there is no Evaluation Input, whatever the Proposal
// says.
func TestInvariant_P002_ProposalIsNotAuthenticatedIntent(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	d := w.f.Draft
	d.Intent = nil
	_, err := evalinput.New(w.s.B, d)
	checkFault(t, err, fault.ErrMissing, "intent")
}

// TestInvariant_P003_RegistryPresenceIsNotAuthorization: reports.list is
// published, resolves, validates and is intended, but a policy without an
// allow rule for it denies, and the deny is ineligible for issuance.
func TestInvariant_P003_RegistryPresenceIsNotAuthorization(t *testing.T) {
	t.Parallel()
	s := reports(base(newHost()))
	s.Policy = policyWith(allowPayments(singleUse()))
	w := build(t, s)
	if _, err := w.reg.Lookup(w.req.Definition().ToolID(), w.req.Definition().Version()); err != nil {
		t.Fatalf("the tool must be present in the registry: %v", err)
	}
	rejectsIssuance(t, w.s.B, w.issueRequest(), fault.ErrIneligible, "decision.outcome")
}

// TestInvariant_P004_CanonicalRequestIsNotAuthorization: a complete
// Canonical Request bound into a complete Evaluation Input still issues
// nothing without the rest of controlled issuance.
func TestInvariant_P004_CanonicalRequestIsNotAuthorization(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	rejectsIssuance(t, w.s.B, authz.IssueRequest{Input: w.in}, fault.ErrMissing, "policy")
	r := w.issueRequest()
	r.Registry = nil
	rejectsIssuance(t, w.s.B, r, fault.ErrMissing, "registry")
}

// TestInvariant_P005_EvaluationInputIsNotPolicyDecision: issuance never
// synthesizes a Decision from the input and the policy; the Host must
// evaluate explicitly.
func TestInvariant_P005_EvaluationInputIsNotPolicyDecision(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	r := w.issueRequest()
	r.Decision = nil
	rejectsIssuance(t, w.s.B, r, fault.ErrMissing, "decision")
}

// TestInvariant_P006_AllowIsNotAuthorization: an exact allow Decision is
// necessary but not sufficient: every other issuance prerequisite still
// rejects, and the Decision type itself grants nothing.
func TestInvariant_P006_AllowIsNotAuthorization(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	if w.dec.Outcome() != vocab.Allow {
		t.Fatalf("decision %v, want allow", w.dec.Outcome())
	}
	tests := map[string]struct {
		change func(r *authz.IssueRequest)
		want   error
		path   string
	}{
		"no lifetime":                {func(r *authz.IssueRequest) { r.MaxLifetime = 0 }, fault.ErrOutOfRange, "maxLifetime"},
		"no authorization identity":  {func(r *authz.IssueRequest) { r.AuthorizationID = "" }, fault.ErrMalformed, "authorizationID"},
		"no replay identity":         {func(r *authz.IssueRequest) { r.ReplayID = "" }, fault.ErrMalformed, "replayID"},
		"no consumption identity":    {func(r *authz.IssueRequest) { r.ConsumptionID = "" }, fault.ErrMalformed, "consumptionID"},
		"not the renewal generation": {func(r *authz.IssueRequest) { r.Generation = generation(t, 9) }, fault.ErrMismatch, "generation"},
		"issued before evaluation":   {func(r *authz.IssueRequest) { r.IssuedAt = timeAt(evaluatedAt - 1) }, fault.ErrOutOfRange, "issuedAt"},
		"not the request's registry": {func(r *authz.IssueRequest) { r.Registry = sameRegistryIDsOtherContent(t, w) }, fault.ErrMismatch, "registry"},
		"beyond the maximum age": {func(r *authz.IssueRequest) {
			r.IssuedAt, r.ExpiresAt = timeAt(evaluatedAt+defaultMaxAge+1), timeAt(evaluatedAt+defaultMaxAge+100)
		}, fault.ErrOutOfRange, "decision.obligations[0]"},
		"outliving the bound evidence":    {func(r *authz.IssueRequest) { r.ExpiresAt = timeAt(windowEnd + 1) }, fault.ErrOutOfRange, "expiresAt"},
		"under another host's boundary":   {nil, fault.ErrMixedDomain, "domain"},
		"every prerequisite is satisfied": {func(*authz.IssueRequest) {}, nil, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, b := w.issueRequest(), w.s.B
			if tc.change == nil {
				b = newHost()
			} else {
				tc.change(&r)
			}
			a, err := authz.Issue(b, r)
			checkFault(t, err, tc.want, tc.path)
			if (a != nil) != (tc.want == nil) {
				t.Errorf("Authorization returned = %v, want %v", a != nil, tc.want == nil)
			}
		})
	}
}

// TestInvariant_P007_AuthorizationIsNotExecution: the Authorization, its
// Consumption Binding and the Validation result expose no exported field,
// and every method is a pure accessor with no parameter and no callable
// result: there is no side effect, callback or endpoint to invoke.
func TestInvariant_P007_AuthorizationIsNotExecution(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[*authz.Authorization](), reflect.TypeFor[*authz.ConsumptionBinding](), reflect.TypeFor[*authz.Result](),
	} {
		for i := range typ.Elem().NumField() {
			if f := typ.Elem().Field(i); f.IsExported() {
				t.Errorf("%v has exported field %s", typ, f.Name)
			}
		}
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			if m.Type.NumIn() != 1 {
				t.Errorf("%v.%s takes parameters; only accessors are allowed", typ, m.Name)
			}
			for j := range m.Type.NumOut() {
				if k := m.Type.Out(j).Kind(); k == reflect.Func || k == reflect.Chan {
					t.Errorf("%v.%s returns a %v", typ, m.Name, k)
				}
			}
		}
	}
}

// TestInvariant_P008_ValidationIsNotConsumption: Validation reserves and
// consumes nothing — the same artifact validates again and again with the
// same binding, so a Host must consume it separately.
func TestInvariant_P008_ValidationIsNotConsumption(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	for i := range 3 {
		r, err := w.validateAt(t, a, evaluatedAt+uint64(i))
		if err != nil {
			t.Fatalf("Validate #%d: %v", i, err)
		}
		if !authz.EqualBindings(r.Binding(), a.Binding()) {
			t.Fatalf("Validate #%d returned another binding", i)
		}
	}
}

// TestInvariant_P009_AuthorityNeverIncreases: the issued scope lies within
// every ceiling; a request beyond a ceiling never reaches issuance, and an
// expectation broader than the issued scope does not validate it.
func TestInvariant_P009_AuthorityNeverIncreases(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	checkIntersection(t, w, a)

	s := base(newHost())
	s.RequestedCapabilities = []string{"financial.transfer", "data.read", "data.write"}
	if _, err := assemble(t, s); !errors.Is(err, fault.ErrMismatch) {
		t.Errorf("a request beyond the definition and intent ceilings: %v, want a mismatch", err)
	}
	ctx := w.expect(t)
	ctx.Capabilities = widened(ctx.Capabilities)
	rejectsValidation(t, w.s.B, a, ctx, evaluatedAt, fault.ErrMismatch, "capabilities")
}

// TestInvariant_P010_CapabilityScopeIsIntersectionOnly: two matched allow
// constraints intersect; requesting a Capability only one of them permits
// denies, and only the common Capability issues.
func TestInvariant_P010_CapabilityScopeIsIntersectionOnly(t *testing.T) {
	t.Parallel()
	s := base(newHost())
	s.Policy.Policies[0].Rules = append(s.Policy.Policies[0].Rules, policy.RuleDraft{
		ID: "allow-transfer", Effect: "allow", Reason: "allowRuleMatched", Condition: is("exactToolID", "payments.submit"),
		Scope: &policy.ScopeDraft{Capabilities: []string{"financial.transfer"}, Resources: []string{"acct-1001", "acct-2002"}},
	})
	w := build(t, s)
	rejectsIssuance(t, w.s.B, w.issueRequest(), fault.ErrIneligible, "decision.outcome")
	if !slices.Contains(w.dec.Reasons(), vocab.ReasonCapabilityNotPermitted) {
		t.Errorf("reasons %v, want capabilityNotPermitted", w.dec.Reasons())
	}
	s.RequestedCapabilities = []string{"financial.transfer"}
	narrow := build(t, s)
	a := narrow.issue(t)
	checkIntersection(t, narrow, a)
	diffStrings(t, "Capabilities", []string{"financial.transfer"}, capabilityTokens(a.Capabilities()))
}

// TestInvariant_P011_ResourceScopeIsIntersectionOnly: Resource constraints
// of two matched allow rules intersect, never union; a requested Resource
// outside either denies.
func TestInvariant_P011_ResourceScopeIsIntersectionOnly(t *testing.T) {
	t.Parallel()
	second := func(res ...string) setup {
		s := base(newHost())
		s.Policy.Policies[0].Rules = append(s.Policy.Policies[0].Rules, policy.RuleDraft{
			ID: "allow-accounts", Effect: "allow", Reason: "allowRuleMatched", Condition: is("exactToolID", "payments.submit"),
			Scope: &policy.ScopeDraft{Capabilities: []string{"data.read", "financial.transfer"}, Resources: res},
		})
		return s
	}
	w := build(t, second("acct-1001", "acct-2002", "acct-4004"))
	a := w.issue(t)
	checkIntersection(t, w, a)
	diffStrings(t, "Resources", []string{"acct-1001", "acct-2002"}, resourceTokens(a.Resources()))

	denied := build(t, second("acct-1001", "acct-3003", "acct-4004"))
	rejectsIssuance(t, denied.s.B, denied.issueRequest(), fault.ErrIneligible, "decision.outcome")
	if !slices.Contains(denied.dec.Reasons(), vocab.ReasonResourceNotPermitted) {
		t.Errorf("reasons %v, want resourceNotPermitted", denied.dec.Reasons())
	}
}

// TestInvariant_P012_EmptyResourceScopeMeansNoAuthority: a Resource-free
// request issues no Resource and no expectation naming a Resource validates
// it; an empty Resource constraint permits no Resource (it is not a
// wildcard) and denies a Resource-bearing request.
func TestInvariant_P012_EmptyResourceScopeMeansNoAuthority(t *testing.T) {
	t.Parallel()
	w := build(t, reports(base(newHost())))
	a := w.issue(t)
	if len(a.Resources()) != 0 {
		t.Fatalf("Resources = %v, want none", a.Resources())
	}
	ctx := w.expect(t)
	ctx.Resources = parseResources(t, []string{"acct-1001"})
	rejectsValidation(t, w.s.B, a, ctx, evaluatedAt, fault.ErrMismatch, "resources")

	s := base(newHost())
	s.Policy.Policies[0].Rules[0].Scope.Resources = []string{}
	denied := build(t, s)
	rejectsIssuance(t, denied.s.B, denied.issueRequest(), fault.ErrIneligible, "decision.outcome")
}

// TestInvariant_P013_UnknownNeverMeansUnrestricted: unknown Provenance
// makes a provenance condition indeterminate, which denies; absent
// Influence never satisfies a complete-boundary obligation; a zero
// boundary or a zero Validation Context never validates.
func TestInvariant_P013_UnknownNeverMeansUnrestricted(t *testing.T) {
	t.Parallel()
	s := base(newHost())
	s.Assessment.ProvenanceIDs, s.Records = nil, nil
	unknown := build(t, s)
	if unknown.pv.Coverage() != vocab.CoverageUnknown {
		t.Fatal("the fixture must have unknown provenance coverage")
	}
	rejectsIssuance(t, unknown.s.B, unknown.issueRequest(), fault.ErrIneligible, "decision.outcome")
	if !slices.Contains(unknown.dec.Reasons(), vocab.ReasonConditionIndeterminate) {
		t.Errorf("reasons %v, want conditionIndeterminate", unknown.dec.Reasons())
	}

	s = base(newHost())
	s.Assessment.InfluenceIDs, s.Collections, s.Nodes = nil, nil, nil
	s.Policy = realisticPolicy(completeBoundary("chat-session"))
	none := build(t, s)
	rejectsIssuance(t, none.s.B, none.issueRequest(), fault.ErrIneligible, "decision.obligations[0]")

	w := build(t, base(newHost()))
	a := w.issue(t)
	rejectsValidation(t, boundary.Boundary{}, a, w.expect(t), evaluatedAt, fault.ErrMissing, "domain")
	rejectsValidation(t, w.s.B, a, authz.ValidationContext{}, evaluatedAt, fault.ErrUnsupported, "version")
}

// TestInvariant_P014_CompleteContentOutranksIdentifierEquality: values
// with the same identities and different content are different values at
// issuance and at Validation (see also TestValidate_SameIdentitySubstitution).
func TestInvariant_P014_CompleteContentOutranksIdentifierEquality(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	r := w.issueRequest()
	r.Registry = sameRegistryIDsOtherContent(t, w)
	rejectsIssuance(t, w.s.B, r, fault.ErrMismatch, "registry")
	r = w.issueRequest()
	r.Policy = samePolicyIDsOtherContent(t, w)
	rejectsIssuance(t, w.s.B, r, fault.ErrMismatch, "decision.snapshot")
	ctx := w.expect(t)
	ctx.Decision = w.evaluate(t, w.in, samePolicyIDsOtherContent(t, w), w.s.DecisionID)
	if ctx.Decision.ID() != w.dec.ID() || ctx.Decision.Outcome() != w.dec.Outcome() {
		t.Fatal("the substitute decision must share identity and outcome")
	}
	rejectsValidation(t, w.s.B, a, ctx, evaluatedAt, fault.ErrMismatch, "decision")
}

// TestInvariant_P015_CanonicalBytesAreNotCompleteEquality: requests with
// identical canonicalization-v1 bytes but another Proposal Assessment, or
// another Schema content under the same Schema identity, are different
// requests; neither validates as the Host's request.
func TestInvariant_P015_CanonicalBytesAreNotCompleteEquality(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	a := w.issue(t)
	for name, other := range map[string]*request.CanonicalRequest{
		"another assessment":     w.otherAssessmentRequest(t),
		"another schema content": build(t, memoRequired(base(w.s.B))).req,
	} {
		if !bytes.Equal(other.Bytes(), w.req.Bytes()) {
			t.Fatalf("%s: the canonical bytes differ; the test needs byte-identical requests", name)
		}
		if request.Equal(other, w.req) {
			t.Fatalf("%s: the requests are equal", name)
		}
		ctx := w.expect(t)
		ctx.Request = other
		rejectsValidation(t, w.s.B, a, ctx, evaluatedAt, fault.ErrMismatch, "request")
	}
}

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
	if authz.Equal(a, twinA) || authz.EqualBindings(a.Binding(), twinA.Binding()) {
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
	if a1.ReplayID() != a2.ReplayID() || authz.Equal(a1, a2) {
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

// TestInvariant_P028_AtomicConsumptionPrecedesExecution: successful
// Validation hands the Host the complete binding and the mandatory
// atomicSingleUseRequired contract, and performs no Consumption: the
// result offers nothing but those two accessors, and the artifact still
// validates afterwards.
//
// Future Host facility: the durable atomic Consumption store and the
// transition that consumes the binding exactly once before any protected
// side effect do not exist in Phase 1–6; execution MUST remain blocked
// without them.
func TestInvariant_P028_AtomicConsumptionPrecedesExecution(t *testing.T) {
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

// TestInvariant_P031_TimeIsTrustworthyAndRollbackResistant: the core reads
// no clock. Its verdict depends only on the explicit time it is given: the
// same artifact is expired at its expiry and valid when a Host supplies an
// earlier ("rolled-back") time.
//
// Production prerequisite: explicit time is not trusted time. Trusted,
// rollback-resistant time is a future Host facility; production execution
// MUST remain blocked without it.
func TestInvariant_P031_TimeIsTrustworthyAndRollbackResistant(t *testing.T) {
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

// TestInvariant_P032_ArtifactsAreAuthenticAndSingleUseAcrossFailures: no
// public construction path yields a validating artifact (a zero-value
// Authorization never validates), and the core does not make an artifact
// single-use: it validates any number of times, carrying the
// atomicSingleUseRequired contract for the Host.
//
// Production prerequisite: cryptographic authenticity across process
// boundaries and durable single-use Consumption across failures are
// future facilities; production execution MUST remain blocked without them.
func TestInvariant_P032_ArtifactsAreAuthenticAndSingleUseAcrossFailures(t *testing.T) {
	t.Parallel()
	w := build(t, base(newHost()))
	rejectsValidation(t, w.s.B, &authz.Authorization{}, w.expect(t), evaluatedAt, fault.ErrMixedDomain, "domain")
	if authz.Equal(&authz.Authorization{}, &authz.Authorization{}) {
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
