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
	cases := map[string]func() error{
		"host identity": func() error {
			d := hostDraft()
			d.ID = secret
			_, err := authority.NewHostAuthority(b, d)
			return err
		},
		"capability": func() error {
			d := hostDraft()
			d.Capabilities = []string{secret}
			_, err := authority.NewHostAuthority(b, d)
			return err
		},
		"resource": func() error {
			d := hostDraft()
			d.Resources = []string{secret}
			_, err := authority.NewHostAuthority(b, d)
			return err
		},
		"role": func() error {
			d := hostDraft()
			d.Roles = []string{secret}
			_, err := authority.NewHostAuthority(b, d)
			return err
		},
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
