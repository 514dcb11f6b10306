package authz_test

// One test per protocol invariant P-001 … P-032 (spec Section 35), each
// exercised through the Authorization core and the controlled transitions
// it consumes. P-024, P-025, P-028, P-030, P-031 and P-032 are Host
// integration obligations or production prerequisites: their tests prove
// the strongest structural property the core can offer, and a comment says
// what remains the Host's obligation. P-001 … P-015 are here, P-016 …
// P-032 in invariants_domain_test.go.

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
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
// result (besides Equal, the comparison with another value of the same
// type): there is no side effect, callback or endpoint to invoke.
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
			isEqual := m.Name == "Equal" && m.Type.NumIn() == 2 && m.Type.In(1) == typ && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Bool
			if m.Type.NumIn() != 1 && !isEqual {
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
		if !r.Binding().Equal(a.Binding()) {
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
		if other.Equal(w.req) {
			t.Fatalf("%s: the requests are equal", name)
		}
		ctx := w.expect(t)
		ctx.Request = other
		rejectsValidation(t, w.s.B, a, ctx, evaluatedAt, fault.ErrMismatch, "request")
	}
}
