package evidence_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// fixture is one complete Host domain: testutil.NewEvidence over the
// canonical payments request (definition maximum data.read and
// financial.transfer; Resources acct-1001 and acct-2002).
func fixture(t *testing.T) (testutil.Evidence, *request.CanonicalRequest) {
	t.Helper()
	b := boundary.New("payments-host")
	r := testutil.EvidenceRequest(t, b)
	return testutil.NewEvidence(t, b, r), r
}

// roleOf returns e's Role Authority for role.
func roleOf(e testutil.Evidence, role vocab.Role) *authority.RoleAuthority {
	return map[vocab.Role]*authority.RoleAuthority{
		vocab.AuthenticationAuthority:       e.Authn,
		vocab.IntentCaptureAuthority:        e.Capture,
		vocab.ProvenanceAuthority:           e.Provenance,
		vocab.InfluenceCollector:            e.Influence,
		vocab.DelegationAuthority:           e.Delegation,
		vocab.PolicyAdministrationAuthority: e.Admin,
	}[role]
}

// otherRequest returns a canonical request for the same proposal and
// definition as the fixture's, with another amount.
func otherRequest(t *testing.T, b boundary.Boundary, snap *registry.Snapshot) *request.CanonicalRequest {
	t.Helper()
	args := `{"currency":"eur","amount":99,"debtor-account":"acct-2002","creditor-account":"acct-1001"}`
	r, err := request.New(snap, request.Proposal{
		ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1", Arguments: []byte(args),
	}, testutil.Assess(t, b, "proposal-1"))
	if err != nil {
		t.Fatalf("request.New: %v", err)
	}
	return r
}

// captureWith returns an intentCaptureAuthority in b under a Host Authority
// with draft d.
func captureWith(t *testing.T, b boundary.Boundary, d authority.HostAuthorityDraft) *authority.RoleAuthority {
	t.Helper()
	h, err := authority.NewHostAuthority(b, d)
	if err != nil {
		t.Fatalf("NewHostAuthority: %v", err)
	}
	r, err := authority.Grant(b, h, vocab.IntentCaptureAuthority, "capture-issuer")
	if err != nil {
		t.Fatalf("Grant: %v", err)
	}
	return r
}

// attested is the equality and digest of a piece of evidence.
type attested[V any] interface {
	Equal(o V) bool
	Digest() digest.Digest
}

// checkContentDiffers reports an error when changed, built from different
// content than original, is Equal to it or has its digest.
func checkContentDiffers[V attested[V]](t *testing.T, original, changed V) {
	t.Helper()
	if original.Equal(changed) || changed.Digest().Equal(original.Digest()) {
		t.Error("a content difference must change the digest and break equality")
	}
}
