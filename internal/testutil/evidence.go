package testutil

// Host evidence fixtures (spec Sections 13–15) for tests of the packages
// that consume authority and evidence values: lineage, evalinput, policy,
// authz. Every name here starts with Evidence.

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// The fixture validity window is [EvidenceNotBefore, EvidenceExpiresAt),
// issued at EvidenceNotBefore; EvidenceTime lies inside it.
const (
	EvidenceNotBefore = 1_000
	EvidenceTime      = 1_500
	EvidenceExpiresAt = 2_000
)

// Evidence is a complete, valid set of Host evidence in one domain: a Host
// Authority declaring all six roles, one Role Authority per role, a Security
// Context and an exact-request Intent. The drafts used are kept so a test
// can rebuild a variant with one field changed.
type Evidence struct {
	Boundary boundary.Boundary
	Host     *authority.HostAuthority

	// One Role Authority per role, with issuers authn-issuer,
	// capture-issuer, provenance-issuer, influence-issuer,
	// delegation-issuer and admin-issuer.
	Authn, Capture, Provenance, Influence, Delegation, Admin *authority.RoleAuthority

	Identity     principal.Identity // alice, tenant acme, session session-1
	Validity     epoch.Validity     // the fixture window
	ContextDraft evidence.SecurityContextDraft
	IntentDraft  evidence.IntentDraft

	SecurityContext *evidence.SecurityContext // attestation "context-attestation"
	Intent          *evidence.Intent          // attestation "intent-attestation"
}

// NewEvidence builds Evidence in the domain of b for the canonical request
// r, which must belong to that domain. The Host Authority "host-authority"
// holds every Capability and exactly r's Resources. The identity is subject
// alice, tenant acme, session session-1, no delegation. The Security Context
// is multiFactor with knowledgeFactor and possessionFactor; the Intent
// targets r exactly with r's definition Capabilities and r's Resources,
// renewal generation 1. Every window is the fixture window.
func NewEvidence(tb testing.TB, b boundary.Boundary, r *request.CanonicalRequest) Evidence {
	tb.Helper()
	var caps, resources, roles []string
	for _, c := range vocab.AllCapability() {
		caps = append(caps, c.String())
	}
	for _, res := range r.Resources() {
		resources = append(resources, res.String())
	}
	for _, role := range vocab.AllRole() {
		roles = append(roles, role.String())
	}
	e := Evidence{Boundary: b, Validity: EvidenceValidity(tb, EvidenceNotBefore, EvidenceNotBefore, EvidenceExpiresAt)}
	e.Host = evidenceMust(authority.NewHostAuthority(b, authority.HostAuthorityDraft{
		ID: "host-authority", Capabilities: caps, Resources: resources, Roles: roles,
	}))(tb, "NewHostAuthority")
	e.grantRoles(tb)

	id := principal.Draft{Subject: "alice", Tenant: "acme", Session: "session-1"}
	e.Identity = evidenceMust(principal.New(id))(tb, "principal.New")
	e.ContextDraft = evidence.SecurityContextDraft{
		ID: "context-1", Identity: id, Assurance: "multiFactor",
		Methods: []string{"possessionFactor", "knowledgeFactor"},
	}
	e.SecurityContext = evidenceMust(
		evidence.NewSecurityContext(e.Authn, "context-attestation", e.Validity, e.ContextDraft))(tb, "NewSecurityContext")
	var defCaps []string
	for _, c := range r.Definition().Capabilities() {
		defCaps = append(defCaps, c.String())
	}
	e.IntentDraft = evidence.IntentDraft{
		ID: "intent-1", Identity: id, Capabilities: defCaps, Resources: resources, RenewalGeneration: "1",
		Display: "Pay invoice 2026-114",
	}
	e.Intent = evidenceMust(
		evidence.NewIntent(e.Capture, "intent-attestation", e.Validity, evidence.ExactRequest(r), e.IntentDraft))(tb, "NewIntent")
	return e
}

// grantRoles grants each of the six roles on e.Host in e.Boundary to its
// fixture issuer: authn-issuer, capture-issuer, provenance-issuer,
// influence-issuer, delegation-issuer and admin-issuer.
func (e *Evidence) grantRoles(tb testing.TB) {
	tb.Helper()
	grant := func(role vocab.Role, issuer string) *authority.RoleAuthority {
		return evidenceMust(authority.Grant(e.Boundary, e.Host, role, issuer))(tb, "Grant "+role.String())
	}
	e.Authn = grant(vocab.AuthenticationAuthority, "authn-issuer")
	e.Capture = grant(vocab.IntentCaptureAuthority, "capture-issuer")
	e.Provenance = grant(vocab.ProvenanceAuthority, "provenance-issuer")
	e.Influence = grant(vocab.InfluenceCollector, "influence-issuer")
	e.Delegation = grant(vocab.DelegationAuthority, "delegation-issuer")
	e.Admin = grant(vocab.PolicyAdministrationAuthority, "admin-issuer")
}

// EvidenceRequest returns the canonical payments.submit version 1 request
// (PaymentsDefinition, PaymentsArguments; Resources acct-1001 and acct-2002)
// for proposal "proposal-1", assessed in the domain of b.
func EvidenceRequest(tb testing.TB, b boundary.Boundary) *request.CanonicalRequest {
	tb.Helper()
	snap := Publish(tb, RegistryDraft(PaymentsDefinition()))
	p := request.Proposal{ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1", Arguments: []byte(PaymentsArguments)}
	return evidenceMust(request.New(snap, p, Assess(tb, b, "proposal-1")))(tb, "request.New")
}

// EvidenceTimeAt returns the explicit time s, failing the test if it is out of range.
func EvidenceTimeAt(tb testing.TB, s uint64) epoch.Time {
	tb.Helper()
	return evidenceMust(epoch.New(s))(tb, "epoch.New")
}

// EvidenceValidity returns the window issuedAt <= [notBefore, expiresAt),
// failing the test if it is invalid.
func EvidenceValidity(tb testing.TB, issuedAt, notBefore, expiresAt uint64) epoch.Validity {
	tb.Helper()
	v, err := epoch.NewValidity(EvidenceTimeAt(tb, issuedAt), EvidenceTimeAt(tb, notBefore), EvidenceTimeAt(tb, expiresAt))
	if err != nil {
		tb.Fatalf("epoch.NewValidity: %v", err)
	}
	return v
}

// evidenceMust captures (v, err); the returned function yields v or fails
// the test, naming what failed.
func evidenceMust[T any](v T, err error) func(tb testing.TB, what string) T {
	return func(tb testing.TB, what string) T {
		tb.Helper()
		if err != nil {
			tb.Fatalf("%s: %v", what, err)
		}
		return v
	}
}
