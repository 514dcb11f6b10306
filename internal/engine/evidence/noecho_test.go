package evidence_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/testutil"
)

// secret is a value that must never appear in a rejection (Section 38).
const secret = "Secret_Token-4711"

// TestRejectionsNeverEchoInput feeds a secret-looking value into every
// string input and checks the error text never contains it.
func TestRejectionsNeverEchoInput(t *testing.T) {
	t.Parallel()
	e, r := fixture(t)
	context := func(modify func(*evidence.SecurityContextDraft)) func() error {
		return func() error {
			d := e.ContextDraft
			modify(&d)
			_, err := evidence.NewSecurityContext(e.Authn, "context-attestation", e.Validity, d)
			return err
		}
	}
	intent := func(modify func(*evidence.IntentDraft)) func() error {
		return func() error {
			d := e.IntentDraft
			modify(&d)
			_, err := evidence.NewIntent(e.Capture, "intent-attestation", e.Validity, evidence.ExactRequest(r), d)
			return err
		}
	}
	cases := map[string]func() error{
		"context identity":  context(func(d *evidence.SecurityContextDraft) { d.ID = secret }),
		"context subject":   context(func(d *evidence.SecurityContextDraft) { d.Identity.Subject = secret }),
		"context session":   context(func(d *evidence.SecurityContextDraft) { d.Identity.Session = secret }),
		"assurance":         context(func(d *evidence.SecurityContextDraft) { d.Assurance = secret }),
		"method":            context(func(d *evidence.SecurityContextDraft) { d.Methods = []string{secret} }),
		"intent identity":   intent(func(d *evidence.IntentDraft) { d.ID = secret }),
		"intent tenant":     intent(func(d *evidence.IntentDraft) { d.Identity.Tenant = secret }),
		"intent capability": intent(func(d *evidence.IntentDraft) { d.Capabilities = []string{secret} }),
		"intent resource":   intent(func(d *evidence.IntentDraft) { d.Resources = []string{secret} }),
		"resource outside the host authority": intent(func(d *evidence.IntentDraft) {
			d.Resources = []string{"secret-token-4711"}
		}),
		"renewal generation": intent(func(d *evidence.IntentDraft) { d.RenewalGeneration = secret }),
		"display text":       intent(func(d *evidence.IntentDraft) { d.Display = secret + "\x00" }),
		"attestation identity": func() error {
			_, err := evidence.NewIntent(e.Capture, secret, e.Validity, evidence.ExactRequest(r), e.IntentDraft)
			return err
		},
		"delegation subject": func() error {
			_, err := evidence.NewDelegation(e.Delegation, "delegation-attestation", e.Validity,
				evidence.DelegationDraft{ID: "delegation-1", Subject: secret})
			return err
		},
	}
	testutil.CheckRejectionsDoNotEcho(t, secret, cases)
}
