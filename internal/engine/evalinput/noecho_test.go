package evalinput_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/testutil"
)

// secret is a value that must never appear in a rejection (Section 38);
// secretID is the same text in identifier grammar, so it reaches the
// comparisons instead of failing parsing.
const (
	secret   = "Secret_Token-4711"
	secretID = "secret-token-4711"
)

// TestRejectionsNeverEchoInput feeds secret-looking values into every raw
// string New parses and into identities it compares, and checks that no
// rejection carries them in its text, path or rule.
func TestRejectionsNeverEchoInput(t *testing.T) {
	t.Parallel()
	withIdentity := func(change func(*principal.Draft)) func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
		return func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
			d.Intent = intent(t, f, evidence.ExactRequest(f.Request), f.Validity, func(i *evidence.IntentDraft) { change(&i.Identity) })
		}
	}
	tests := map[string]func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft){
		"unknown capability": func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
			d.RequestedCapabilities = []string{"data.read", secret}
		},
		"too many capabilities": func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
			d.RequestedCapabilities = strings.Split(strings.Repeat(secret+",", 9), ",")[:9]
		},
		"malformed resource": func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
			d.RequestedResources = []string{"acct-1001", secret}
		},
		"resource outside the derived set": func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
			d.RequestedResources = []string{"acct-1001", "acct-2002", secretID}
		},
		"duplicate resource": func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
			d.RequestedResources = []string{secretID, secretID}
		},
		"too many resources": func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
			d.RequestedResources = strings.Split(strings.Repeat(secretID+",", 17), ",")[:17]
		},
		"intent subject":    withIdentity(func(p *principal.Draft) { p.Subject = secretID }),
		"intent tenant":     withIdentity(func(p *principal.Draft) { p.Tenant = secretID }),
		"intent session":    withIdentity(func(p *principal.Draft) { p.Session = secretID }),
		"intent delegation": withIdentity(func(p *principal.Draft) { p.Delegation = secretID }),
		"delegation identity": func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
			d.Delegation = delegation(t, f, f.Validity, evidence.DelegationDraft{ID: secretID, Subject: "alice"})
		},
		"intent for a request with secret arguments": func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
			d.Request = requestWith(t, f, "proposal-1",
				`{"currency":"eur","amount":1,"debtor-account":"acct-2002","creditor-account":"acct-1001","memo":"`+secret+`"}`, f.Assessment)
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := build(t, delegated)
			d := f.Draft
			mutate(t, f, &d)
			_, err := evalinput.New(f.Boundary, d)
			if err == nil {
				t.Fatal("want a rejection")
			}
			var fe *fault.Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want a *fault.Error", err, err)
			}
			for _, text := range []string{err.Error(), fe.Path, fe.Rule} {
				for _, s := range []string{secret, secretID} {
					if strings.Contains(strings.ToLower(text), strings.ToLower(s)) {
						t.Errorf("rejection echoes input: %q", text)
					}
				}
			}
		})
	}
}
