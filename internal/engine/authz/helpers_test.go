package authz_test

// The authz tests build one complete, realistic Host scenario — a payments
// tool in a Registry Snapshot, a model Proposal, the Host's assessment and
// evidence, an Evaluation Input, a published Policy Snapshot and its
// Decision — from a declarative setup, so that a test can change exactly
// one aspect of it and rebuild everything downstream through the controlled
// transitions. The Evaluation Input pieces come from testutil.BuildInput
// (internal/testutil/input.go); this file adds what issuance needs on top:
// per-piece validity windows, the evaluation time, the policy, the Decision
// and the explicit issuance parameters.
//
// Two builds of the same setup in the same boundary produce values with
// equal complete content. That is what makes the same-identity substitution
// tests possible: a setup that differs in one field yields values whose
// identifiers are all the same but whose content differs in exactly that
// field.
//
// The Validation expectations (world.expect) are built only from what the
// Host itself retained — its setup, its own Registry resolution and the
// controlled values it constructed — never from the artifact under
// Validation (Section 29, P-024, P-025).

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// Explicit fixture times (epoch seconds). Every evidence window is
// [windowStart, windowEnd), issued at windowStart; evaluation happens at
// evaluatedAt inside it.
const (
	windowStart = testutil.EvidenceNotBefore // 1000
	evaluatedAt = testutil.EvidenceTime      // 1500
	windowEnd   = testutil.EvidenceExpiresAt // 2000

	// The default Authorization lifetime: issued at evaluation, valid for
	// 300 s under a requested maximum of 600 s.
	defaultLifetime    = 300
	defaultMaxLifetime = 600
	// defaultMaxAge is the maximum-evaluation-age obligation of the default
	// allow rule.
	defaultMaxAge = 300
)

// window is an explicit validity window: issuedAt <= notBefore < expiresAt.
type window struct{ issuedAt, notBefore, expiresAt uint64 }

var fixtureWindow = window{windowStart, windowStart, windowEnd}

// setup is the complete declarative description of one Host issuance. The
// embedded testutil.InputSpec holds every Evaluation Input draft (registry,
// proposal, assessment, Host Authority, Security Context, Intent, optional
// Delegation, Provenance, Influence, requested Capabilities).
type setup struct {
	testutil.InputSpec
	B boundary.Boundary

	// Validity windows of the attested evidence (the fixture window by
	// default); a piece whose window differs is re-attested under its
	// original attestation identity.
	ContextWindow, IntentWindow, DelegationWindow, ProvenanceWindow, InfluenceWindow window

	RequestedResources []string
	EvaluatedAt        uint64

	Policy                     policy.SnapshotDraft
	PolicyID, PolicyGeneration string
	DecisionID                 string

	AuthorizationID, ReplayID, ConsumptionID string
	IssuedAt, ExpiresAt, MaxLifetime         uint64
}

// base is the realistic default in the domain of b, on top of
// testutil.DefaultInputSpec: alice (tenant acme, session session-1) asks
// the model to pay invoice 2026-114; the model proposes payments.submit v1
// moving money from acct-2002 to acct-1001. The registry also holds the
// resource-free reports.list v1, and the Host Authority holds every
// Capability and acct-1001..acct-4004 (the policy names acct-3003 and
// acct-4004). The policy "tools" v1 of snapshot "payments-policy" v1 allows
// the payment with requireSingleUse and a 300 s maximum evaluation age.
// Evaluation at 1500; issuance at 1500 for 300 s under a 600 s maximum.
func base(b boundary.Boundary) setup {
	in := testutil.DefaultInputSpec()
	in.Registry = testutil.RegistryDraft(testutil.PaymentsDefinition(), reportsDefinition())
	in.Host.Resources = []string{"acct-1001", "acct-2002", "acct-3003", "acct-4004"}
	return setup{
		InputSpec: in,
		B:         b,

		ContextWindow: fixtureWindow, IntentWindow: fixtureWindow, DelegationWindow: fixtureWindow,
		ProvenanceWindow: fixtureWindow, InfluenceWindow: fixtureWindow,

		RequestedResources: []string{"acct-2002", "acct-1001"},
		EvaluatedAt:        evaluatedAt,

		Policy:   realisticPolicy(singleUse(), maxAge(defaultMaxAge)),
		PolicyID: "tools", PolicyGeneration: "1",
		DecisionID: "decision-1",

		AuthorizationID: "authz-1", ReplayID: "replay-1", ConsumptionID: "consumption-1",
		IssuedAt: evaluatedAt, ExpiresAt: evaluatedAt + defaultLifetime, MaxLifetime: defaultMaxLifetime,
	}
}

// withWebBoundary adds a second, partial Influence collection "web"
// holding one document node.
func withWebBoundary(s setup) setup {
	s.Assessment.InfluenceIDs = append(slices.Clone(s.Assessment.InfluenceIDs), "web")
	s.Collections = append(slices.Clone(s.Collections), lineage.CollectionDraft{Boundary: "web", Completeness: "partial"})
	s.Nodes = append(slices.Clone(s.Nodes), lineage.NodeDraft{ID: "n-invoice", Kind: "document", Boundary: "web"})
	return s
}

// reportsDefinition is a resource-free, read-only tool: reports.list v1
// with data.read and an empty argument object.
func reportsDefinition() registry.DefinitionDraft {
	return testutil.Definition("reports-list-1", "reports.list", "1")
}

// reports turns s into a resource-free request: the model proposes
// reports.list with no arguments; the Intent and the request carry no
// Resource.
func reports(s setup) setup {
	s.Proposal = request.Proposal{ProposalID: "proposal-1", ToolID: "reports.list", Version: "1", Arguments: []byte(`{}`)}
	s.Intent.Capabilities = []string{"data.read"}
	s.Intent.Resources = nil
	s.RequestedCapabilities = []string{"data.read"}
	s.RequestedResources = nil
	return s
}

// withIdentity sets the identity every piece of evidence names.
func withIdentity(s setup, id principal.Draft) setup {
	s.Context.Identity, s.Intent.Identity = id, id
	return s
}

// withDelegation makes alice act under delegation deleg-1.
func withDelegation(s setup) setup {
	s.InputSpec = s.WithDelegation("deleg-1")
	return s
}

// longWindows widens every evidence window to [1000, 10000) so that an
// Authorization may live the full 3,600 s.
func longWindows(s setup) setup {
	w := window{windowStart, windowStart, 10_000}
	s.ContextWindow, s.IntentWindow, s.DelegationWindow, s.ProvenanceWindow, s.InfluenceWindow = w, w, w, w, w
	return s
}

// --- policy drafts ---

func pred(p policy.PredicateDraft) policy.ConditionDraft { return policy.ConditionDraft{Predicate: &p} }

func allOf(cs ...policy.ConditionDraft) policy.ConditionDraft { return policy.ConditionDraft{All: cs} }

func anyOf(cs ...policy.ConditionDraft) policy.ConditionDraft { return policy.ConditionDraft{Any: cs} }

func is(name, identifier string) policy.ConditionDraft {
	return pred(policy.PredicateDraft{Name: name, Identifier: identifier})
}

func valueIs(name, value string) policy.ConditionDraft {
	return pred(policy.PredicateDraft{Name: name, Value: value})
}

func valuesAre(name string, values ...string) policy.ConditionDraft {
	return pred(policy.PredicateDraft{Name: name, Values: values})
}

func singleUse() policy.ObligationDraft {
	return policy.ObligationDraft{Kind: "requireSingleUseAuthorization"}
}

func maxAge(seconds uint64) policy.ObligationDraft {
	return policy.ObligationDraft{Kind: "maximumEvaluationAgeSeconds", Seconds: strconv.FormatUint(seconds, 10)}
}

func completeBoundary(b string) policy.ObligationDraft {
	return policy.ObligationDraft{Kind: "requireCompleteInfluenceBoundary", Boundary: b}
}

func obligation(kind string) policy.ObligationDraft { return policy.ObligationDraft{Kind: kind} }

// allowPayments is the one allow rule for the payments tool: an exact tool,
// tenant, assurance, possession factor and scope check, permitting
// data.read and financial.transfer on acct-1001..acct-3003.
func allowPayments(obligations ...policy.ObligationDraft) policy.RuleDraft {
	return policy.RuleDraft{
		ID: "allow-payments", Effect: "allow", Reason: "allowRuleMatched",
		Condition: allOf(
			is("exactToolID", "payments.submit"),
			pred(policy.PredicateDraft{Name: "exactToolVersion", Generation: "1"}),
			is("exactTenant", "acme"),
			valuesAre("assuranceIsOneOf", "multiFactor", "phishingResistant", "hardwareBound"),
			valueIs("authenticationMethodIncludes", "possessionFactor"),
			valuesAre("requestedCapabilitiesSubsetOf", "data.read", "financial.transfer"),
			valuesAre("requestedResourcesSubsetOf", "acct-1001", "acct-2002", "acct-3003"),
			pred(policy.PredicateDraft{Name: "maximumIntentAge", Seconds: "3600"}),
		),
		Scope: &policy.ScopeDraft{
			Capabilities: []string{"data.read", "financial.transfer"},
			Resources:    []string{"acct-1001", "acct-2002", "acct-3003"},
		},
		Obligations: obligations,
	}
}

func denyRule(id, reason string, c policy.ConditionDraft) policy.RuleDraft {
	return policy.RuleDraft{ID: id, Effect: "deny", Reason: reason, Condition: c}
}

func confirmRule(id string, c policy.ConditionDraft, caps ...string) policy.RuleDraft {
	return policy.RuleDraft{
		ID: id, Effect: "requireConfirmation", Reason: "confirmationRuleMatched", Condition: c,
		Scope: &policy.ScopeDraft{Capabilities: caps},
	}
}

// realisticRules is a 20-rule payments policy: the allow rule with the given
// obligations, an allow rule for reports.list, and 18 deny and
// requireConfirmation guards that do not match the default scenario but are
// all evaluated (there is no short-circuit).
func realisticRules(obligations ...policy.ObligationDraft) []policy.RuleDraft {
	return []policy.RuleDraft{
		allowPayments(obligations...),
		{
			ID: "allow-reports", Effect: "allow", Reason: "allowRuleMatched",
			Condition: allOf(is("exactToolID", "reports.list"), valuesAre("requestedCapabilitiesSubsetOf", "data.read")),
			Scope:     &policy.ScopeDraft{Capabilities: []string{"data.read"}, Resources: []string{}},
		},
		denyRule("deny-memory-influence", "influenceKindDenied", valueIs("influenceContainsKind", "memory")),
		denyRule("deny-model-provenance", "provenanceInsufficient", valueIs("provenanceContainsSource", "modelOutput")),
		denyRule("deny-generated-provenance", "provenanceInsufficient",
			allOf(is("exactToolID", "payments.submit"), valueIs("provenanceContainsTransformation", "generatedByModel"))),
		denyRule("deny-other-tenant", "tenantMismatch", is("exactTenant", "globex")),
		denyRule("deny-blocked-subject", "subjectMismatch", is("exactSubject", "mallory")),
		denyRule("deny-weak-assurance", "assuranceInsufficient", valuesAre("assuranceIsOneOf", "unknown", "unauthenticated")),
		denyRule("deny-deprecated-tool", "lifecycleDenied", valueIs("lifecycleIs", "deprecated")),
		denyRule("deny-irreversible", "lifecycleDenied", valueIs("reversibilityIs", "irreversible")),
		denyRule("deny-delete", "capabilityNotPermitted", valuesAre("requestedCapabilitiesInclude", "resource.delete")),
		denyRule("deny-session-independent", "sessionMismatch", pred(policy.PredicateDraft{Name: "sessionIsIndependent"})),
		denyRule("deny-foreign-registry", "toolMismatch",
			pred(policy.PredicateDraft{Name: "exactRegistrySnapshot", Identifier: "shadow-registry", Generation: "1"})),
		denyRule("deny-web-influence", "influenceKindDenied",
			allOf(is("exactToolID", "payments.submit"), valueIs("influenceContainsKind", "retrievedContent"))),
		denyRule("deny-maintenance-window", "evaluationTooOld", pred(policy.PredicateDraft{
			Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "0", NotBefore: "0", ExpiresAt: "500"},
		})),
		denyRule("deny-escrow-account", "resourceNotPermitted", valuesAre("requestedResourcesInclude", "acct-4004")),
		denyRule("deny-critical-risk", "lifecycleDenied", valueIs("riskIs", "critical")),
		confirmRule("confirm-external", valuesAre("requestedCapabilitiesInclude", "communication.external"), "communication.external"),
		confirmRule("confirm-write", anyOf(
			valuesAre("requestedCapabilitiesInclude", "data.write"),
			valueIs("sideEffectIs", "irreversibleMutation"),
		), "data.write"),
		confirmRule("confirm-many-influences", allOf(
			is("exactToolID", "payments.submit"),
			anyOf(is("exactInfluenceBoundary", "shared-inbox"), valueIs("influenceContainsKind", "externalEvent")),
		), "financial.transfer"),
	}
}

// realisticPolicy is snapshot "payments-policy" v1 holding the active
// policy "tools" v1 with realisticRules.
func realisticPolicy(obligations ...policy.ObligationDraft) policy.SnapshotDraft {
	return policyWith(realisticRules(obligations...)...)
}

func policyWith(rules ...policy.RuleDraft) policy.SnapshotDraft {
	return policy.SnapshotDraft{ID: "payments-policy", Generation: "1", Policies: []policy.DefinitionDraft{
		{ID: "tools", Generation: "1", Lifecycle: "active", Rules: rules},
	}}
}

// --- building ---

// world is everything one Host retains for one issuance.
type world struct {
	s setup
	f testutil.InputFixture // the pieces, the role authorities and the input draft

	host                                         *authority.HostAuthority
	authn, capture, prov, infl, delegator, admin *authority.RoleAuthority

	reg    *registry.Snapshot
	asmt   *assessment.Assessment
	req    *request.CanonicalRequest
	sc     *evidence.SecurityContext
	intent *evidence.Intent
	deleg  *evidence.Delegation
	pv     *lineage.Provenance
	iv     *lineage.Influence
	in     *evalinput.Input
	pol    *policy.Snapshot
	dec    *policy.Decision
}

// assemble builds the pieces with testutil.BuildInput (which fails the test
// if a piece's constructor rejects), re-attests every piece whose window
// differs from the fixture window, then runs the controlled transitions
// Evaluation Input, policy publication and evaluation; the first of those
// to reject is returned wrapped with its stage.
func assemble(tb testing.TB, s setup) (*world, error) {
	tb.Helper()
	f := testutil.BuildInput(tb, s.B, s.InputSpec)
	w := &world{
		s: s, f: f,
		host: f.Host, authn: f.Authn, capture: f.Capture, prov: f.Provenance, infl: f.Influence,
		delegator: f.Delegation, admin: f.Admin,
		reg: f.Snapshot, asmt: f.Assessment, req: f.Request,
	}
	stage := func(name string, err error) error { return fmt.Errorf("%s: %w", name, err) }
	d := f.Draft
	var err error
	if v, ok := w.reattest(tb, s.ContextWindow); ok {
		if d.SecurityContext, err = evidence.NewSecurityContext(f.Authn, testutil.InputContextAttestation, v, s.Context); err != nil {
			return nil, stage("security context", err)
		}
	}
	if v, ok := w.reattest(tb, s.IntentWindow); ok {
		target := evidence.ExactRequest(f.Request)
		if s.BoundedToolIntent {
			if target, err = evidence.BoundedTool(f.Snapshot, f.Request.Definition()); err != nil {
				return nil, stage("intent target", err)
			}
		}
		if d.Intent, err = evidence.NewIntent(f.Capture, testutil.InputIntentAttestation, v, target, s.Intent); err != nil {
			return nil, stage("intent", err)
		}
	}
	if v, ok := w.reattest(tb, s.DelegationWindow); ok && s.Delegation != nil {
		if d.Delegation, err = evidence.NewDelegation(f.Delegation, testutil.InputDelegationAttestation, v, *s.Delegation); err != nil {
			return nil, stage("delegation", err)
		}
	}
	if v, ok := w.reattest(tb, s.ProvenanceWindow); ok && len(s.Records) > 0 {
		if d.Provenance, err = lineage.NewProvenance(f.Provenance, testutil.InputProvenanceAttestation, v,
			f.Assessment, f.Identity, s.Records); err != nil {
			return nil, stage("provenance", err)
		}
	}
	if v, ok := w.reattest(tb, s.InfluenceWindow); ok && (len(s.Collections) > 0 || len(s.Nodes) > 0) {
		if d.Influence, err = lineage.NewInfluence(f.Influence, testutil.InputInfluenceAttestation, v,
			f.Assessment, f.Identity, s.Collections, s.Nodes); err != nil {
			return nil, stage("influence", err)
		}
	}
	d.RequestedResources = slices.Clone(s.RequestedResources)
	d.EvaluationTime = timeAt(s.EvaluatedAt)
	w.sc, w.intent, w.deleg, w.pv, w.iv = d.SecurityContext, d.Intent, d.Delegation, d.Provenance, d.Influence
	w.f.Draft = d
	if w.in, err = evalinput.New(s.B, d); err != nil {
		return nil, stage("evaluation input", err)
	}
	if w.pol, err = policy.Publish(w.admin, s.Policy); err != nil {
		return nil, stage("policy", err)
	}
	if w.dec, err = policy.Evaluate(w.in, w.pol, selection(w.pol, s.PolicyID, s.PolicyGeneration), s.DecisionID); err != nil {
		return nil, stage("decision", err)
	}
	return w, nil
}

// reattest returns the validity of v when it differs from the fixture
// window BuildInput used.
func (w *world) reattest(tb testing.TB, v window) (epoch.Validity, bool) {
	tb.Helper()
	if v == fixtureWindow {
		return epoch.Validity{}, false
	}
	return testutil.EvidenceValidity(tb, v.issuedAt, v.notBefore, v.expiresAt), true
}

// build is assemble for a setup that must be valid.
func build(tb testing.TB, s setup) *world {
	tb.Helper()
	w, err := assemble(tb, s)
	if err != nil {
		tb.Fatalf("building the scenario: %v", err)
	}
	return w
}

// buildChanged builds base in a fresh "payments host" domain, changed by
// change when it is not nil.
func buildChanged(tb testing.TB, change func(setup) setup) *world {
	tb.Helper()
	s := base(boundary.New("payments host"))
	if change != nil {
		s = change(s)
	}
	return build(tb, s)
}

func selection(s *policy.Snapshot, policyID, generation string) policy.Selection {
	sel := policy.Selection{SnapshotID: s.ID(), SnapshotGeneration: s.Generation()}
	sel.PolicyID, _ = ident.ParsePolicyID(policyID)
	sel.PolicyGeneration, _ = ident.ParseGeneration(generation)
	return sel
}

// evaluate evaluates the world's selection of pol for in under decisionID.
func (w *world) evaluate(tb testing.TB, in *evalinput.Input, pol *policy.Snapshot, decisionID string) *policy.Decision {
	tb.Helper()
	d, err := policy.Evaluate(in, pol, selection(pol, w.s.PolicyID, w.s.PolicyGeneration), decisionID)
	if err != nil {
		tb.Fatalf("policy.Evaluate: %v", err)
	}
	return d
}

// issueRequest is the controlled issuance request the Host makes for w.
func (w *world) issueRequest() authz.IssueRequest {
	g, _ := ident.ParseGeneration(w.s.Intent.RenewalGeneration)
	return authz.IssueRequest{
		Input: w.in, Policy: w.pol, Registry: w.reg, Decision: w.dec,
		Selection:       selection(w.pol, w.s.PolicyID, w.s.PolicyGeneration),
		AuthorizationID: w.s.AuthorizationID, ReplayID: w.s.ReplayID, ConsumptionID: w.s.ConsumptionID,
		Generation: g,
		IssuedAt:   timeAt(w.s.IssuedAt), ExpiresAt: timeAt(w.s.ExpiresAt), MaxLifetime: w.s.MaxLifetime,
	}
}

// issue issues w's Authorization, failing the test if issuance rejects.
func (w *world) issue(tb testing.TB) *authz.Authorization {
	tb.Helper()
	if w.dec.Outcome() != vocab.Allow {
		tb.Fatalf("the scenario's decision is %v (reasons %v), want allow", w.dec.Outcome(), w.dec.Reasons())
	}
	a, err := authz.Issue(w.s.B, w.issueRequest())
	if err != nil {
		tb.Fatalf("Issue: %v", err)
	}
	return a
}

// expect is the Host's independent Validation Context for w: built from
// the setup the Host wrote, the Host's own exact Registry resolution of the
// tool it asked for and the controlled values it constructed — never read
// from an Authorization.
func (w *world) expect(tb testing.TB) authz.ValidationContext {
	tb.Helper()
	tool, err := ident.ParseToolID(w.s.Proposal.ToolID)
	if err != nil {
		tb.Fatalf("ParseToolID: %v", err)
	}
	version, err := ident.ParseGeneration(w.s.Proposal.Version)
	if err != nil {
		tb.Fatalf("ParseGeneration: %v", err)
	}
	res, err := w.reg.Lookup(tool, version)
	if err != nil {
		tb.Fatalf("Lookup: %v", err)
	}
	id, err := principal.New(w.s.Context.Identity)
	if err != nil {
		tb.Fatalf("principal.New: %v", err)
	}
	g, err := ident.ParseGeneration(w.s.Intent.RenewalGeneration)
	if err != nil {
		tb.Fatalf("ParseGeneration: %v", err)
	}
	return authz.ValidationContext{
		AuthorizationID: w.s.AuthorizationID,
		Version:         vocab.V1,
		Generation:      g,
		Decision:        w.dec,
		Input:           w.in,
		Request:         w.req,
		Definition:      res.Definition(),
		Registry:        w.reg,
		Policy:          w.pol,
		Identity:        id,
		Capabilities:    parseCapabilities(tb, w.s.RequestedCapabilities),
		Resources:       parseResources(tb, w.s.RequestedResources),
		IssuedAt:        timeAt(w.s.IssuedAt),
		ExpiresAt:       timeAt(w.s.ExpiresAt),
		MaxLifetime:     w.s.MaxLifetime,
		ReplayID:        w.s.ReplayID,
		ConsumptionID:   w.s.ConsumptionID,
	}
}

// copiedFrom is what a NON-conforming Host does: it copies every
// expectation from the artifact under Validation (Section 29, "Self-
// consistency is insufficient"). Only the negative test of P-024/P-025
// uses it.
func copiedFrom(a *authz.Authorization) authz.ValidationContext {
	return authz.ValidationContext{
		AuthorizationID: a.ID().String(), Version: a.Version(), Generation: a.Generation(),
		Decision: a.Decision(), Input: a.Input(), Request: a.Input().Request(),
		Definition: a.Input().Request().Definition(), Registry: a.RegistrySnapshot(), Policy: a.PolicySnapshot(),
		Identity: a.Identity(), Capabilities: a.Capabilities(), Resources: a.Resources(),
		IssuedAt: a.IssuedAt(), ExpiresAt: a.ExpiresAt(), MaxLifetime: a.MaxLifetime(),
		ReplayID: a.ReplayID().String(), ConsumptionID: a.ConsumptionID().String(),
	}
}

// --- small helpers ---

// timeAt returns the explicit time s; fixture times are always in range.
func timeAt(s uint64) epoch.Time {
	t, err := epoch.New(s)
	if err != nil {
		panic(err)
	}
	return t
}

func generation(tb testing.TB, v uint64) ident.Generation {
	tb.Helper()
	g, err := ident.NewGeneration(v)
	if err != nil {
		tb.Fatalf("NewGeneration: %v", err)
	}
	return g
}

func parseCapabilities(tb testing.TB, tokens []string) []vocab.Capability {
	tb.Helper()
	out := make([]vocab.Capability, 0, len(tokens))
	for _, s := range tokens {
		c, err := vocab.ParseCapability(s)
		if err != nil {
			tb.Fatalf("ParseCapability(%q): %v", s, err)
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

func parseResources(tb testing.TB, ids []string) []ident.Resource {
	tb.Helper()
	out := make([]ident.Resource, 0, len(ids))
	for _, s := range ids {
		r, err := ident.ParseResource(s)
		if err != nil {
			tb.Fatalf("ParseResource(%q): %v", s, err)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, ident.Resource.Compare)
	return out
}

func capabilityTokens(cs []vocab.Capability) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}

func resourceTokens(rs []ident.Resource) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

func obligationKeys(os []policy.Obligation) []string {
	out := make([]string, 0, len(os))
	for _, o := range os {
		out = append(out, o.Key())
	}
	return out
}

// checkFault is testutil.CheckFault: err matches want with errors.Is and
// is a *fault.Error at path (errors.As).
func checkFault(tb testing.TB, err, want error, path string) {
	tb.Helper()
	testutil.CheckFault(tb, err, want, path)
}

// diffStrings reports a test error when got differs from want.
func diffStrings(tb testing.TB, what string, want, got []string) {
	tb.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		tb.Errorf("%s (-want +got):\n%s", what, diff)
	}
}
