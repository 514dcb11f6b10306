package evalinput_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// Fixture windows. The fixture window is [1000, 2000), evaluated at 1500
// (testutil.EvidenceNotBefore, EvidenceTime, EvidenceExpiresAt).
const (
	notBefore = testutil.EvidenceNotBefore
	evalTime  = testutil.EvidenceTime
	expiresAt = testutil.EvidenceExpiresAt
)

// specMod changes one aspect of an InputSpec before it is built.
type specMod func(*testutil.InputSpec)

// build builds testutil.DefaultInputSpec, changed by mods, in a fresh Host
// domain.
func build(t *testing.T, mods ...specMod) testutil.InputFixture {
	t.Helper()
	return buildIn(t, boundary.New("payments-host"), mods...)
}

// buildIn builds testutil.DefaultInputSpec, changed by mods, in b.
func buildIn(t *testing.T, b boundary.Boundary, mods ...specMod) testutil.InputFixture {
	t.Helper()
	s := testutil.DefaultInputSpec()
	for _, m := range mods {
		m(&s)
	}
	return testutil.BuildInput(t, b, s)
}

// delegated makes the identity name delegation-1 and supplies its evidence.
func delegated(s *testutil.InputSpec) { *s = s.WithDelegation("delegation-1") }

// boundedTool makes the Intent target the request's exact definition.
func boundedTool(s *testutil.InputSpec) { s.BoundedToolIntent = true }

// checkReject checks that New rejected with wantErr at wantPath and
// returned no partial input; with wantErr nil, that it accepted.
func checkReject(t *testing.T, in *evalinput.Input, err, wantErr error, wantPath string) {
	t.Helper()
	testutil.CheckFault(t, err, wantErr, wantPath)
	switch {
	case wantErr != nil && in != nil:
		t.Errorf("New returned a partial input alongside %v", err)
	case wantErr == nil && err == nil && in == nil:
		t.Error("New returned neither an input nor an error")
	}
}

// newChanged builds the fixture of base, applies change (if any) to its
// draft and checks what New returns for it with checkReject. It returns the
// draft New was given and New's result.
func newChanged(t *testing.T, base []specMod, change func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft),
	wantErr error, wantPath string,
) (evalinput.Draft, *evalinput.Input, error) {
	t.Helper()
	f := build(t, base...)
	d := f.Draft
	if change != nil {
		change(t, f, &d)
	}
	in, err := evalinput.New(f.Boundary, d)
	checkReject(t, in, err, wantErr, wantPath)
	return d, in, err
}

// checkChanged is newChanged for a test that needs only its checks.
func checkChanged(t *testing.T, base []specMod, change func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft),
	wantErr error, wantPath string,
) {
	t.Helper()
	_, _, _ = newChanged(t, base, change, wantErr, wantPath)
}

func window(t *testing.T, issued, from, until uint64) epoch.Validity {
	t.Helper()
	return testutil.EvidenceValidity(t, issued, from, until)
}

func at(t *testing.T, s uint64) epoch.Time {
	t.Helper()
	return testutil.EvidenceTimeAt(t, s)
}

func identity(t *testing.T, d principal.Draft) principal.Identity {
	t.Helper()
	return testutil.Must[principal.Identity](t)(principal.New(d))
}

// context rebuilds f's Security Context with window v and its draft changed
// by mod.
func context(t *testing.T, f testutil.InputFixture, v epoch.Validity, mod func(*evidence.SecurityContextDraft)) *evidence.SecurityContext {
	t.Helper()
	d := f.ContextDraft
	if mod != nil {
		mod(&d)
	}
	return testutil.Must[*evidence.SecurityContext](t)(evidence.NewSecurityContext(f.Authn, testutil.InputContextAttestation, v, d))
}

// intent rebuilds f's Intent for target with window v and its draft
// changed by mod.
func intent(t *testing.T, f testutil.InputFixture, target evidence.Target, v epoch.Validity, mod func(*evidence.IntentDraft)) *evidence.Intent {
	t.Helper()
	d := f.IntentDraft
	if mod != nil {
		mod(&d)
	}
	return testutil.Must[*evidence.Intent](t)(evidence.NewIntent(f.Capture, testutil.InputIntentAttestation, v, target, d))
}

// delegation builds delegation evidence in f's domain with window v.
func delegation(t *testing.T, f testutil.InputFixture, v epoch.Validity, d evidence.DelegationDraft) *evidence.Delegation {
	t.Helper()
	return testutil.Must[*evidence.Delegation](t)(evidence.NewDelegation(f.Delegation, testutil.InputDelegationAttestation, v, d))
}

// provenance rebuilds f's Provenance records for assessment a and identity
// id with window v.
func provenance(t *testing.T, f testutil.InputFixture, v epoch.Validity, a *assessment.Assessment, id principal.Identity) *lineage.Provenance {
	t.Helper()
	return testutil.Must[*lineage.Provenance](t)(lineage.NewProvenance(f.Provenance, testutil.InputProvenanceAttestation, v, a, id, f.Spec.Records))
}

// influence rebuilds f's Influence graph for assessment a and identity id
// with window v.
func influence(t *testing.T, f testutil.InputFixture, v epoch.Validity, a *assessment.Assessment, id principal.Identity) *lineage.Influence {
	t.Helper()
	return testutil.Must[*lineage.Influence](t)(lineage.NewInfluence(f.Influence, testutil.InputInfluenceAttestation, v, a, id,
		f.Spec.Collections, f.Spec.Nodes))
}

// assess creates an assessment in f's domain like f's, with the proposal
// and assessment identities given.
func assess(t *testing.T, f testutil.InputFixture, proposalID, assessmentID string) *assessment.Assessment {
	t.Helper()
	d := f.Spec.Assessment
	d.ProposalID, d.AssessmentID = proposalID, assessmentID
	return testutil.Must[*assessment.Assessment](t)(assessment.New(f.Boundary, d))
}

// requestWith builds a request in f's snapshot for proposalID with the
// argument text args, assessed by a.
func requestWith(t *testing.T, f testutil.InputFixture, proposalID, args string, a *assessment.Assessment) *request.CanonicalRequest {
	t.Helper()
	p := f.Spec.Proposal
	p.ProposalID, p.Arguments = proposalID, []byte(args)
	return testutil.Must[*request.CanonicalRequest](t)(request.New(f.Snapshot, p, a))
}

// otherAmount is PaymentsArguments with another amount: the same tool and
// Resources, a different canonical request.
const otherAmount = `{"currency":"eur","amount":99,"debtor-account":"acct-2002","creditor-account":"acct-1001"}`

// hostWith creates another Host Authority in f's domain from f's draft
// changed by mod.
func hostWith(t *testing.T, f testutil.InputFixture, mod func(*authority.HostAuthorityDraft)) *authority.HostAuthority {
	t.Helper()
	d := f.Spec.Host
	mod(&d)
	return testutil.Must[*authority.HostAuthority](t)(authority.NewHostAuthority(f.Boundary, d))
}

// grant grants role to issuer under f's Host Authority.
func grant(t *testing.T, f testutil.InputFixture, role vocab.Role, issuer string) *authority.RoleAuthority {
	t.Helper()
	return testutil.Must[*authority.RoleAuthority](t)(authority.Grant(f.Boundary, f.Host, role, issuer))
}

// generation returns generation v; 0 gives the zero (absent) Generation.
func generation(v uint64) ident.Generation {
	g, err := ident.NewGeneration(v)
	if err != nil {
		return ident.Generation{}
	}
	return g
}
