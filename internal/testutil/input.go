package testutil

// Evaluation Input fixtures (spec Section 17) for tests of evalinput and of
// the packages that consume an *evalinput.Input: policy, authz. Every name
// here contains Input. Typical use:
//
//	in, f := testutil.NewInput(t)          // a complete valid input and its pieces
//	d := f.Draft                           // change one field ...
//	d.EvaluationTime = testutil.EvidenceTimeAt(t, testutil.EvidenceExpiresAt)
//	_, err := evalinput.New(f.Boundary, d) // ... and construct again
//
//	s := testutil.DefaultInputSpec()       // or change a draft, and rebuild
//	s.Intent.RenewalGeneration = "2"       // every dependent piece consistently
//	g := testutil.BuildInput(t, boundary.New("host"), s.WithDelegation("delegation-1"))
//
// One NewInput takes about 0.1 ms.
//
// Import note: this file imports evalinput, which imports policy, evidence,
// lineage, authority and request. Only black-box (package x_test) tests of
// those packages can import testutil.

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Attestation identities BuildInput gives each attested piece, so a test
// can rebuild one piece under its original attestation identity.
const (
	InputContextAttestation    = "context-attestation"
	InputIntentAttestation     = "intent-attestation"
	InputDelegationAttestation = "delegation-attestation"
	InputProvenanceAttestation = "provenance-attestation"
	InputInfluenceAttestation  = "influence-attestation"
)

// InputSpec is the declarative description of one complete Evaluation
// Input: every draft BuildInput feeds to the engine's constructors. Change
// a field, then call BuildInput, to get a complete variant in which every
// dependent piece is rebuilt consistently (for example a narrower Host
// Authority with every Role Authority re-granted from it).
type InputSpec struct {
	Registry   registry.Draft   // published as the request's Registry Snapshot
	Proposal   request.Proposal // resolved in Registry
	Assessment assessment.Draft // the Proposal Assessment; ProposalID must be Proposal's
	Host       authority.HostAuthorityDraft
	Context    evidence.SecurityContextDraft
	// Delegation, when not nil, is attested by the delegationAuthority and
	// bound as the draft's Delegation; Context.Identity must then name it.
	Delegation *evidence.DelegationDraft
	Intent     evidence.IntentDraft
	// BoundedToolIntent makes the Intent target the request's exact
	// Snapshot-bound Tool Definition instead of the exact request.
	BoundedToolIntent bool
	// Records, when empty, give unknown Provenance coverage
	// (lineage.UnknownProvenance); otherwise they are attested.
	Records []lineage.RecordDraft
	// Collections and Nodes, when both empty, give lineage.NoInfluence;
	// otherwise they are attested.
	Collections           []lineage.CollectionDraft
	Nodes                 []lineage.NodeDraft
	RequestedCapabilities []string
}

// DefaultInputSpec returns fresh drafts of the default complete input:
//
//   - Registry: primary-registry generation 1 holding PaymentsDefinition
//     (maximum data.read and financial.transfer); Proposal proposal-1 with
//     PaymentsArguments (Resources acct-1001 and acct-2002).
//   - Assessment assessment-1 of proposal-1, expecting Provenance records
//     prov-accounts and prov-memo and the Influence collection chat-session.
//   - Host Authority host-authority: every Capability, exactly the
//     request's Resources, all six roles.
//   - Security Context context-1: subject alice, tenant acme, session
//     session-1, no delegation; multiFactor with knowledgeFactor and
//     possessionFactor.
//   - Intent intent-1 for the exact request: the definition's Capabilities,
//     the request's Resources, renewal generation 1.
//   - Provenance: prov-accounts (directUserInput, extracted, hostVerified:
//     trust hostVerified) and prov-memo (emailContent, summarized,
//     unverified: trust untrusted).
//   - Influence: chat-session complete (evidence collector-evidence-1) with
//     nodes n-email (email), n-prompt (userPrompt) and n-model (modelOutput,
//     parents n-email and n-prompt).
//   - Requested Capabilities financial.transfer and data.read.
func DefaultInputSpec() InputSpec {
	var caps, roles []string
	for _, c := range vocab.AllCapability() {
		caps = append(caps, c.String())
	}
	for _, r := range vocab.AllRole() {
		roles = append(roles, r.String())
	}
	return InputSpec{
		Registry: RegistryDraft(PaymentsDefinition()),
		Proposal: request.Proposal{
			ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1", Arguments: []byte(PaymentsArguments),
		},
		Assessment: assessment.Draft{
			ProposalID: "proposal-1", AssessmentID: "assessment-1",
			ProvenanceIDs: []string{"prov-accounts", "prov-memo"}, InfluenceIDs: []string{"chat-session"},
		},
		Host: authority.HostAuthorityDraft{
			ID: "host-authority", Capabilities: caps, Resources: []string{"acct-1001", "acct-2002"}, Roles: roles,
		},
		Context: evidence.SecurityContextDraft{
			ID: "context-1", Identity: inputIdentity(), Assurance: "multiFactor",
			Methods: []string{"possessionFactor", "knowledgeFactor"},
		},
		Intent: evidence.IntentDraft{
			ID: "intent-1", Identity: inputIdentity(), Capabilities: []string{"data.read", "financial.transfer"},
			Resources: []string{"acct-1001", "acct-2002"}, RenewalGeneration: "1", Display: "Pay invoice 2026-114",
		},
		Records: []lineage.RecordDraft{
			{ID: "prov-accounts", Source: "directUserInput", Custody: "custody-form-1",
				Transformations: []string{"extracted"}, Verification: "hostVerified"},
			{ID: "prov-memo", Source: "emailContent", Custody: "custody-mail-7",
				Transformations: []string{"summarized"}, Verification: "unverified"},
		},
		Collections: []lineage.CollectionDraft{
			{Boundary: "chat-session", Completeness: "complete", Evidence: "collector-evidence-1"},
		},
		Nodes: []lineage.NodeDraft{
			{ID: "n-prompt", Kind: "userPrompt", Boundary: "chat-session"},
			{ID: "n-email", Kind: "email", Boundary: "chat-session"},
			{ID: "n-model", Kind: "modelOutput", Boundary: "chat-session", Parents: []string{"n-prompt", "n-email"}},
		},
		RequestedCapabilities: []string{"financial.transfer", "data.read"},
	}
}

// WithDelegation returns s with the identity of the Security Context and
// the Intent naming delegation id, and Delegation evidence for id and the
// context's subject.
func (s InputSpec) WithDelegation(id string) InputSpec {
	s.Context.Identity.Delegation = id
	s.Intent.Identity.Delegation = id
	s.Delegation = &evidence.DelegationDraft{ID: id, Subject: s.Context.Identity.Subject}
	return s
}

// InputFixture is a complete, valid Evaluation Input draft and everything it
// was built from. The embedded Evidence holds the Host Authority, the six
// Role Authorities (issuers authn-issuer, capture-issuer,
// provenance-issuer, influence-issuer, delegation-issuer, admin-issuer),
// the identity of the Security Context, the fixture validity window and the
// Security Context and Intent; Draft holds the same values. Provenance and
// Influence bind the Security Context's identity.
type InputFixture struct {
	Evidence
	Spec       InputSpec
	Snapshot   *registry.Snapshot
	Assessment *assessment.Assessment
	Request    *request.CanonicalRequest
	// Draft is complete: every window is the fixture window,
	// EvaluationTime is EvidenceTime, RequestedResources are the request's
	// Resources and ExpectedRenewal is the Intent's generation. It is valid
	// in Boundary for DefaultInputSpec and for any spec whose requested
	// Capabilities and derived Resources lie within its ceilings.
	Draft evalinput.Draft
}

// BuildInput builds every piece of s in the domain of b, failing the test
// naming the constructor that rejected. It does not call evalinput.New.
func BuildInput(tb testing.TB, b boundary.Boundary, s InputSpec) InputFixture {
	tb.Helper()
	f := InputFixture{Spec: s}
	f.Boundary = b
	f.Validity = EvidenceValidity(tb, EvidenceNotBefore, EvidenceNotBefore, EvidenceExpiresAt)
	f.Snapshot = Publish(tb, s.Registry)
	f.Assessment = evidenceMust(assessment.New(b, s.Assessment))(tb, "assessment.New")
	f.Request = evidenceMust(request.New(f.Snapshot, s.Proposal, f.Assessment))(tb, "request.New")

	f.Host = evidenceMust(authority.NewHostAuthority(b, s.Host))(tb, "NewHostAuthority")
	f.grantRoles(tb)

	f.ContextDraft, f.IntentDraft = s.Context, s.Intent
	f.SecurityContext = evidenceMust(
		evidence.NewSecurityContext(f.Authn, InputContextAttestation, f.Validity, s.Context))(tb, "NewSecurityContext")
	f.Identity = f.SecurityContext.Identity()
	target := evidence.ExactRequest(f.Request)
	if s.BoundedToolIntent {
		target = evidenceMust(evidence.BoundedTool(f.Snapshot, f.Request.Definition()))(tb, "BoundedTool")
	}
	f.Intent = evidenceMust(
		evidence.NewIntent(f.Capture, InputIntentAttestation, f.Validity, target, s.Intent))(tb, "NewIntent")

	d := evalinput.Draft{
		Request: f.Request, Host: f.Host, SecurityContext: f.SecurityContext, Intent: f.Intent,
		RequestedCapabilities: slices.Clone(s.RequestedCapabilities),
		EvaluationTime:        EvidenceTimeAt(tb, EvidenceTime),
		ExpectedRenewal:       f.Intent.Renewal(),
	}
	if s.Delegation != nil {
		d.Delegation = evidenceMust(
			evidence.NewDelegation(f.Delegation, InputDelegationAttestation, f.Validity, *s.Delegation))(tb, "NewDelegation")
	}
	if len(s.Records) == 0 {
		d.Provenance = evidenceMust(lineage.UnknownProvenance(f.Assessment, f.Identity))(tb, "UnknownProvenance")
	} else {
		d.Provenance = evidenceMust(lineage.NewProvenance(f.Provenance, InputProvenanceAttestation, f.Validity,
			f.Assessment, f.Identity, s.Records))(tb, "NewProvenance")
	}
	if len(s.Collections) == 0 && len(s.Nodes) == 0 {
		d.Influence = evidenceMust(lineage.NoInfluence(f.Assessment, f.Identity))(tb, "NoInfluence")
	} else {
		d.Influence = evidenceMust(lineage.NewInfluence(f.Influence, InputInfluenceAttestation, f.Validity,
			f.Assessment, f.Identity, s.Collections, s.Nodes))(tb, "NewInfluence")
	}
	for _, r := range f.Request.Resources() {
		d.RequestedResources = append(d.RequestedResources, r.String())
	}
	f.Draft = d
	return f
}

// New constructs the Evaluation Input of f.Draft in f.Boundary, failing
// the test if it rejects.
func (f InputFixture) New(tb testing.TB) *evalinput.Input {
	tb.Helper()
	return evidenceMust(evalinput.New(f.Boundary, f.Draft))(tb, "evalinput.New")
}

// NewInput builds DefaultInputSpec in a fresh Host domain and constructs
// its Evaluation Input. It returns the Input and everything it was built
// from.
func NewInput(tb testing.TB) (*evalinput.Input, InputFixture) {
	tb.Helper()
	f := BuildInput(tb, boundary.New("input-host"), DefaultInputSpec())
	return f.New(tb), f
}

// InputFactMasks computes, independently of evalinput, the FactMasks of an
// input with these facts: for each fact, bit v set for every member v < 32
// and bit 0 for any larger member; AllCollectionsComplete when every
// collection is complete.
func InputFactMasks(methods []vocab.AuthMethod, requested, intended, host []vocab.Capability,
	records []evalinput.ProvenanceFact, collections []evalinput.InfluenceCollectionFact, kinds []vocab.InfluenceKind,
) evalinput.FactMasks {
	m := evalinput.FactMasks{
		AuthMethods: inputMask(methods), RequestedCapabilities: inputMask(requested),
		IntendedCapabilities: inputMask(intended), HostCapabilities: inputMask(host),
		InfluenceKinds: inputMask(kinds), AllCollectionsComplete: true,
	}
	for _, r := range records {
		m.ProvenanceSources |= inputMaskBit(r.Source)
		m.ProvenanceTrusts |= inputMaskBit(r.Trust)
		m.ProvenanceTransformations |= inputMask(r.Transformations)
	}
	for _, c := range collections {
		m.AllCollectionsComplete = m.AllCollectionsComplete && c.Completeness == vocab.CompletenessComplete
	}
	return m
}

func inputMaskBit[T ~uint8](v T) uint32 {
	if v >= 32 {
		return 1
	}
	return 1 << v
}

func inputMask[T ~uint8](vs []T) uint32 {
	var m uint32
	for _, v := range vs {
		m |= inputMaskBit(v)
	}
	return m
}

// InputGeneration returns generation g, failing the test if it is zero.
func InputGeneration(tb testing.TB, g uint64) ident.Generation {
	tb.Helper()
	return evidenceMust(ident.NewGeneration(g))(tb, "ident.NewGeneration")
}

// inputIdentity is the default identity: alice, tenant acme, session
// session-1, no delegation (Evidence's identity).
func inputIdentity() principal.Draft {
	return principal.Draft{Subject: "alice", Tenant: "acme", Session: "session-1"}
}
