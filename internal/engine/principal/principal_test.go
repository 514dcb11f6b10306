package principal_test

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/principal"
)

func TestIdentityRequiresAnExplicitSessionState(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		d        principal.Draft
		wantCode fault.Code
	}{
		"bound session":                         {d: principal.Draft{Subject: "alice", Session: "s-1"}},
		"explicit independence":                 {d: principal.Draft{Subject: "alice", SessionIndependent: true}},
		"tenant and delegation":                 {d: principal.Draft{Subject: "alice", Tenant: "acme", Session: "s-1", Delegation: "d-1"}},
		"absent session is not independence":    {d: principal.Draft{Subject: "alice"}, wantCode: fault.Malformed},
		"both session and independence rejects": {d: principal.Draft{Subject: "alice", Session: "s-1", SessionIndependent: true}, wantCode: fault.Malformed},
		"missing subject rejects":               {d: principal.Draft{Session: "s-1"}, wantCode: fault.Malformed},
		"malformed tenant rejects":              {d: principal.Draft{Subject: "alice", Tenant: "Acme", Session: "s"}, wantCode: fault.Malformed},
		"malformed delegation rejects":          {d: principal.Draft{Subject: "alice", Session: "s", Delegation: "-d"}, wantCode: fault.Malformed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			id, err := principal.New(tc.d)
			if fault.CodeOf(err) != tc.wantCode {
				t.Fatalf("New error = %v, want code %v", err, tc.wantCode)
			}
			if err != nil {
				return
			}
			back, err := principal.New(id.Draft())
			if err != nil || !back.Equal(id) {
				t.Fatalf("Draft round trip = %v, %v", back, err)
			}
		})
	}
}

func TestIdentityEqualityIsExact(t *testing.T) {
	t.Parallel()
	base := principal.Draft{Subject: "alice", Tenant: "acme", Session: "s-1", Delegation: "d-1"}
	a, _ := principal.New(base)
	for name, mutate := range map[string]func(*principal.Draft){
		"subject":     func(d *principal.Draft) { d.Subject = "bob" },
		"tenant":      func(d *principal.Draft) { d.Tenant = "" },
		"session":     func(d *principal.Draft) { d.Session = "s-2" },
		"independent": func(d *principal.Draft) { d.Session, d.SessionIndependent = "", true },
		"delegation":  func(d *principal.Draft) { d.Delegation = "" },
	} {
		d := base
		mutate(&d)
		b, err := principal.New(d)
		if err != nil {
			t.Fatal(err)
		}
		if a.Equal(b) {
			t.Errorf("identities differing in %s must not be equal", name)
		}
	}
	if _, err := principal.Bound(principal.Independent().ID()); !errors.Is(err, fault.ErrMissing) {
		t.Errorf("Bound(zero) = %v, want missing", err)
	}
}
