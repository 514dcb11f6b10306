package policy_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// facts is a small in-memory policy.Facts. Every field is set directly by
// tests; salt is the only input to Digest, so tests that need a different
// input digest change it explicitly.
type facts struct {
	domain                   boundary.Boundary
	salt                     string
	version                  vocab.Version
	toolID                   ident.ToolID
	toolVersion              ident.Generation
	definitionID             ident.DefinitionID
	registryID               ident.SnapshotID
	registryGen              ident.Generation
	lifecycle                vocab.Lifecycle
	risk                     vocab.Risk
	sideEffect               vocab.SideEffect
	reversibility            vocab.Reversibility
	identity                 principal.Identity
	assurance                vocab.Assurance
	methods                  []vocab.AuthMethod
	requested, intended      []vocab.Capability
	hostCaps                 []vocab.Capability
	requestedRes, hostRes    []ident.Resource
	coverage                 vocab.ProvenanceCoverage
	records                  []evalinput.ProvenanceFact
	collections              []evalinput.InfluenceCollectionFact
	kinds                    []vocab.InfluenceKind
	now, intentAt, contextAt epoch.Time
	renewal                  ident.Generation
	request                  *request.CanonicalRequest
}

func (f *facts) Domain() boundary.Domain { return f.domain.Domain() }
func (f *facts) Digest() digest.Digest {
	b := digest.New("policy-test.facts/1")
	b.String(f.salt)
	return b.Sum()
}
func (f *facts) Request() *request.CanonicalRequest           { return f.request }
func (f *facts) Version() vocab.Version                       { return f.version }
func (f *facts) ToolID() ident.ToolID                         { return f.toolID }
func (f *facts) ToolVersion() ident.Generation                { return f.toolVersion }
func (f *facts) DefinitionID() ident.DefinitionID             { return f.definitionID }
func (f *facts) RegistrySnapshotID() ident.SnapshotID         { return f.registryID }
func (f *facts) RegistrySnapshotGeneration() ident.Generation { return f.registryGen }
func (f *facts) Lifecycle() vocab.Lifecycle                   { return f.lifecycle }
func (f *facts) Risk() vocab.Risk                             { return f.risk }
func (f *facts) SideEffect() vocab.SideEffect                 { return f.sideEffect }
func (f *facts) Reversibility() vocab.Reversibility           { return f.reversibility }

func (f *facts) FactMasks() evalinput.FactMasks {
	return testutil.InputFactMasks(f.methods, f.requested, f.intended, f.hostCaps, f.records, f.collections, f.kinds)
}
func (f *facts) Identity() principal.Identity                              { return f.identity }
func (f *facts) Assurance() vocab.Assurance                                { return f.assurance }
func (f *facts) AuthMethods() []vocab.AuthMethod                           { return f.methods }
func (f *facts) RequestedCapabilities() []vocab.Capability                 { return f.requested }
func (f *facts) RequestedResources() []ident.Resource                      { return f.requestedRes }
func (f *facts) IntendedCapabilities() []vocab.Capability                  { return f.intended }
func (f *facts) HostCapabilities() []vocab.Capability                      { return f.hostCaps }
func (f *facts) HostResources() []ident.Resource                           { return f.hostRes }
func (f *facts) ProvenanceCoverage() vocab.ProvenanceCoverage              { return f.coverage }
func (f *facts) ProvenanceRecords() []evalinput.ProvenanceFact             { return f.records }
func (f *facts) InfluenceCollections() []evalinput.InfluenceCollectionFact { return f.collections }
func (f *facts) InfluenceKinds() []vocab.InfluenceKind                     { return f.kinds }
func (f *facts) NumAuthMethods() int                                       { return len(f.methods) }
func (f *facts) AuthMethodAt(i int) vocab.AuthMethod                       { return f.methods[i] }
func (f *facts) NumRequestedCapabilities() int                             { return len(f.requested) }
func (f *facts) RequestedCapabilityAt(i int) vocab.Capability              { return f.requested[i] }
func (f *facts) NumRequestedResources() int                                { return len(f.requestedRes) }
func (f *facts) RequestedResourceAt(i int) ident.Resource                  { return f.requestedRes[i] }
func (f *facts) NumIntendedCapabilities() int                              { return len(f.intended) }
func (f *facts) IntendedCapabilityAt(i int) vocab.Capability               { return f.intended[i] }
func (f *facts) NumHostCapabilities() int                                  { return len(f.hostCaps) }
func (f *facts) HostCapabilityAt(i int) vocab.Capability                   { return f.hostCaps[i] }
func (f *facts) NumHostResources() int                                     { return len(f.hostRes) }
func (f *facts) HostResourceAt(i int) ident.Resource                       { return f.hostRes[i] }
func (f *facts) NumProvenanceRecords() int                                 { return len(f.records) }
func (f *facts) NumProvenanceTransformations(i int) int                    { return len(f.records[i].Transformations) }
func (f *facts) NumInfluenceCollections() int                              { return len(f.collections) }
func (f *facts) InfluenceCollectionAt(i int) evalinput.InfluenceCollectionFact {
	return f.collections[i]
}
func (f *facts) NumInfluenceKinds() int                    { return len(f.kinds) }
func (f *facts) InfluenceKindAt(i int) vocab.InfluenceKind { return f.kinds[i] }
func (f *facts) ProvenanceRecordAt(i int) (vocab.ProvenanceSource, vocab.Trust) {
	return f.records[i].Source, f.records[i].Trust
}
func (f *facts) ProvenanceTransformationAt(i, j int) vocab.Transformation {
	return f.records[i].Transformations[j]
}
func (f *facts) Summary() evalinput.SummaryView { return evalinput.ViewOf(evalinput.SummaryOf(f)) }
func (f *facts) RequestedResourceHashAt(i int) uint64 {
	return evalinput.HashIdentifier(f.requestedRes[i].String())
}
func (f *facts) EvaluationTime() epoch.Time          { return f.now }
func (f *facts) IntentIssuedAt() epoch.Time          { return f.intentAt }
func (f *facts) ContextIssuedAt() epoch.Time         { return f.contextAt }
func (f *facts) RenewalGeneration() ident.Generation { return f.renewal }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func at(s uint64) epoch.Time                        { return must(epoch.New(s)) }
func gen(v uint64) ident.Generation                 { return must(ident.NewGeneration(v)) }
func res(s string) ident.Resource                   { return must(ident.ParseResource(s)) }
func cid(s string) ident.ControlledID               { return must(ident.ParseControlledID(s)) }
func pid(s string) ident.PolicyID                   { return must(ident.ParsePolicyID(s)) }
func identity(d principal.Draft) principal.Identity { return must(principal.New(d)) }

// baseFacts describes one payment request in domain b: tool payments.submit
// version 3, subject alice of tenant acme in session sess-1 without
// delegation, multi-factor with knowledge and possession factors, requesting
// financial.transfer on acct-1, represented provenance with two records,
// two Influence collections (inbox complete, web partial) and three records,
// evaluated at 1000 with the Intent issued at 900 and the context at 800.
func baseFacts(b boundary.Boundary) *facts {
	return &facts{
		domain:        b,
		salt:          "base",
		version:       vocab.V1,
		toolID:        must(ident.ParseToolID("payments.submit")),
		toolVersion:   gen(3),
		definitionID:  must(ident.ParseDefinitionID("payments-submit-3")),
		registryID:    must(ident.ParseSnapshotID("registry-main")),
		registryGen:   gen(7),
		lifecycle:     vocab.Active,
		risk:          vocab.RiskHigh,
		sideEffect:    vocab.Financial,
		reversibility: vocab.Compensatable,
		identity:      identity(principal.Draft{Subject: "alice", Tenant: "acme", Session: "sess-1"}),
		assurance:     vocab.AssuranceMultiFactor,
		methods:       []vocab.AuthMethod{vocab.AuthMethodKnowledgeFactor, vocab.AuthMethodPossessionFactor},
		requested:     []vocab.Capability{vocab.FinancialTransfer},
		intended:      []vocab.Capability{vocab.DataRead, vocab.FinancialTransfer},
		hostCaps:      []vocab.Capability{vocab.DataRead, vocab.DataWrite, vocab.FinancialTransfer},
		requestedRes:  []ident.Resource{res("acct-1")},
		hostRes:       []ident.Resource{res("acct-1"), res("acct-2")},
		coverage:      vocab.CoverageRepresented,
		records: []evalinput.ProvenanceFact{
			{Source: vocab.SourceDirectUserInput, Trust: vocab.TrustHostVerified, Transformations: []vocab.Transformation{vocab.Extracted}},
			{Source: vocab.SourceToolOutput, Trust: vocab.TrustUntrusted, Transformations: []vocab.Transformation{vocab.Filtered, vocab.Redacted}},
		},
		collections: []evalinput.InfluenceCollectionFact{
			{Boundary: cid("inbox"), Completeness: vocab.CompletenessComplete},
			{Boundary: cid("web"), Completeness: vocab.CompletenessPartial},
		},
		kinds:     []vocab.InfluenceKind{vocab.InfluenceUserPrompt, vocab.InfluenceEmail, vocab.InfluenceToolOutput},
		now:       at(1000),
		intentAt:  at(900),
		contextAt: at(800),
		renewal:   gen(2),
	}
}

// factsWith returns baseFacts in e's domain, changed by modify when it is
// not nil.
func (e env) factsWith(modify func(*facts)) *facts {
	in := baseFacts(e.b)
	if modify != nil {
		modify(in)
	}
	return in
}

// hostResources are the publisher's Resource ceiling: acct-1, acct-2 and
// r00–r13 (16, the Host Authority maximum).
func hostResources() []string {
	rs := []string{"acct-1", "acct-2"}
	for i := range 14 {
		rs = append(rs, "r"+twoDigits(i))
	}
	return rs
}

func twoDigits(i int) string {
	if i < 10 {
		return "0" + strconv.Itoa(i)
	}
	return strconv.Itoa(i)
}

// env is one Host domain with a policy administrator whose ceiling holds
// every Capability and the hostResources.
type env struct {
	b     boundary.Boundary
	host  *authority.HostAuthority
	admin *authority.RoleAuthority
}

func newEnv(t testing.TB) env {
	t.Helper()
	b := boundary.New("policy test host")
	h, err := authority.NewHostAuthority(b, authority.HostAuthorityDraft{
		ID:           "host-authority",
		Capabilities: []string{"communication.external", "data.read", "data.write", "financial.transfer", "resource.delete"},
		Resources:    hostResources(),
		Roles:        []string{"policyAdministrationAuthority", "authenticationAuthority"},
	})
	if err != nil {
		t.Fatalf("NewHostAuthority: %v", err)
	}
	admin, err := authority.Grant(b, h, vocab.PolicyAdministrationAuthority, "policy-admin")
	if err != nil {
		t.Fatalf("Grant: %v", err)
	}
	return env{b: b, host: h, admin: admin}
}

func (e env) publish(t testing.TB, d policy.SnapshotDraft) *policy.Snapshot {
	t.Helper()
	s, err := policy.Publish(e.admin, d)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	return s
}

// --- draft builders ---

func pred(p policy.PredicateDraft) policy.ConditionDraft {
	return policy.ConditionDraft{Predicate: &p}
}

func allOf(cs ...policy.ConditionDraft) policy.ConditionDraft { return policy.ConditionDraft{All: cs} }
func anyOf(cs ...policy.ConditionDraft) policy.ConditionDraft { return policy.ConditionDraft{Any: cs} }

// toolIs is a cheap, always-valid predicate: exactToolID(name).
func toolIs(name string) policy.ConditionDraft {
	return pred(policy.PredicateDraft{Name: "exactToolID", Identifier: name})
}

// matches and misses evaluate to matched and not matched against baseFacts.
var (
	matches = toolIs("payments.submit")
	misses  = toolIs("payments.refund")
	// unknowable is indeterminate against baseFacts: there is no delegation.
	unknowable = pred(policy.PredicateDraft{Name: "exactDelegationID", Identifier: "deleg-1"})
)

// paymentScope permits exactly the base request.
func paymentScope() *policy.ScopeDraft {
	return &policy.ScopeDraft{Capabilities: []string{"financial.transfer"}, Resources: []string{"acct-1"}}
}

func allow(id string, c policy.ConditionDraft) policy.RuleDraft {
	return policy.RuleDraft{ID: id, Effect: "allow", Reason: "allowRuleMatched", Condition: c, Scope: paymentScope()}
}

func confirm(id string, c policy.ConditionDraft) policy.RuleDraft {
	return policy.RuleDraft{ID: id, Effect: "requireConfirmation", Reason: "confirmationRuleMatched", Condition: c, Scope: paymentScope()}
}

func deny(id string, c policy.ConditionDraft) policy.RuleDraft {
	return policy.RuleDraft{ID: id, Effect: "deny", Reason: "denyRuleMatched", Condition: c}
}

// snapshotOf is a generation-1 snapshot "snap" holding one active policy
// "payments" generation 1 with rules.
func snapshotOf(rules ...policy.RuleDraft) policy.SnapshotDraft {
	return policy.SnapshotDraft{ID: "snap", Generation: "1", Policies: []policy.DefinitionDraft{
		{ID: "payments", Generation: "1", Lifecycle: "active", Rules: rules},
	}}
}

func selection(s *policy.Snapshot, policyID string, g uint64) policy.Selection {
	sel := policy.Selection{SnapshotID: s.ID(), SnapshotGeneration: s.Generation()}
	if policyID != "" {
		sel.PolicyID = pid(policyID)
	}
	if g != 0 {
		sel.PolicyGeneration = gen(g)
	}
	return sel
}

func evaluate(t testing.TB, in policy.Facts, s *policy.Snapshot) *policy.Decision {
	t.Helper()
	d, err := policy.EvaluateFacts(in, s, selection(s, "payments", 1), "decision-1")
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return d
}

// wantFault checks err is a *fault.Error of code want (via errors.Is) at
// path (when path is not "-").
func wantFault(t testing.TB, err error, want error, path string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want code %v", err, want)
	}
	var fe *fault.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a *fault.Error", err)
	}
	if path != "-" && fe.Path != path {
		t.Fatalf("error path = %q, want %q (%v)", fe.Path, path, err)
	}
}

func reasons(rs ...vocab.Reason) []vocab.Reason { return rs }

// tokens returns the String of each of vs, in order.
func tokens[T interface{ String() string }](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}
