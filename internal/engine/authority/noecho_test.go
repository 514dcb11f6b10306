package authority_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// secret is a value that must never appear in a rejection (Section 38).
const secret = "Secret_Token-4711"

// TestRejectionsNeverEchoInput feeds a secret-looking value into every
// string input and checks the error text never contains it.
func TestRejectionsNeverEchoInput(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	h := newHost(t, b, hostDraft())
	r := grant(t, b, h, vocab.AuthenticationAuthority, "authn")
	w := window(t)
	// newHostWith builds hostDraft changed by modify.
	newHostWith := func(modify func(d *authority.HostAuthorityDraft)) func() error {
		return func() error {
			d := hostDraft()
			modify(&d)
			_, err := authority.NewHostAuthority(b, d)
			return err
		}
	}
	cases := map[string]func() error{
		"host identity": newHostWith(func(d *authority.HostAuthorityDraft) { d.ID = secret }),
		"capability":    newHostWith(func(d *authority.HostAuthorityDraft) { d.Capabilities = []string{secret} }),
		"resource":      newHostWith(func(d *authority.HostAuthorityDraft) { d.Resources = []string{secret} }),
		"role":          newHostWith(func(d *authority.HostAuthorityDraft) { d.Roles = []string{secret} }),
		"issuer": func() error {
			_, err := authority.Grant(b, h, vocab.AuthenticationAuthority, secret)
			return err
		},
		"attestation identity": func() error {
			_, err := r.Attest(secret, vocab.FactSecurityContext, w, subject("x"))
			return err
		},
	}
	testutil.CheckRejectionsDoNotEcho(t, secret, cases)
}
