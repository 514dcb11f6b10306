package authority_test

import (
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// hostDraft returns a valid draft declaring every role, two capabilities
// and two resources, each listed out of order.
func hostDraft() authority.HostAuthorityDraft {
	return authority.HostAuthorityDraft{
		ID:           "host-authority",
		Capabilities: []string{"financial.transfer", "data.read"},
		Resources:    []string{"acct-2002", "acct-1001"},
		Roles: []string{
			"policyAdministrationAuthority", "delegationAuthority", "influenceCollector",
			"provenanceAuthority", "intentCaptureAuthority", "authenticationAuthority",
		},
	}
}

func newHost(t *testing.T, b boundary.Boundary, d authority.HostAuthorityDraft) *authority.HostAuthority {
	t.Helper()
	h, err := authority.NewHostAuthority(b, d)
	if err != nil {
		t.Fatalf("NewHostAuthority: %v", err)
	}
	return h
}

func grant(t *testing.T, b boundary.Boundary, h *authority.HostAuthority, role vocab.Role, issuer string) *authority.RoleAuthority {
	t.Helper()
	r, err := authority.Grant(b, h, role, issuer)
	if err != nil {
		t.Fatalf("Grant: %v", err)
	}
	return r
}

// subject returns a distinct, non-zero fact content digest.
func subject(s string) digest.Digest {
	b := digest.New("test.subject/1")
	b.String(s)
	return b.Sum()
}

// window is the fixture validity window [1000, 2000), issued at 1000.
func window(t *testing.T) epoch.Validity {
	t.Helper()
	return testutil.EvidenceValidity(t, testutil.EvidenceNotBefore, testutil.EvidenceNotBefore, testutil.EvidenceExpiresAt)
}

func at(t *testing.T, s uint64) epoch.Time {
	t.Helper()
	return testutil.EvidenceTimeAt(t, s)
}

func attest(t *testing.T, r *authority.RoleAuthority, id string, f vocab.Fact, v epoch.Validity) authority.Attestation {
	t.Helper()
	a, err := r.Attest(id, f, v, subject(id))
	if err != nil {
		t.Fatalf("Attest: %v", err)
	}
	return a
}

// repeat returns n distinct tokens "prefix-0" … "prefix-(n-1)".
func repeat(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + "-" + strconv.Itoa(i)
	}
	return out
}
