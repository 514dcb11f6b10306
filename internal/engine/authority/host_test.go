package authority_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestNewHostAuthorityValidatesEveryField proves the Section 14 ceiling
// shape and the Section 39 bounds owned by Host Authority, each at the
// bound and one past it.
func TestNewHostAuthorityValidatesEveryField(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		modify   func(*authority.HostAuthorityDraft)
		wantErr  error
		wantPath string
	}{
		"the fixture draft is accepted": {modify: func(*authority.HostAuthorityDraft) {}},
		"an identity of 64 octets is accepted": {
			modify: func(d *authority.HostAuthorityDraft) { d.ID = strings.Repeat("h", 64) },
		},
		"an identity of 65 octets rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.ID = strings.Repeat("h", 65) },
			wantErr: fault.ErrMalformed, wantPath: "id",
		},
		"an empty identity rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.ID = "" },
			wantErr: fault.ErrMalformed, wantPath: "id",
		},
		"an empty capability set rejects (the ceiling is nonempty)": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Capabilities = nil },
			wantErr: fault.ErrMissing, wantPath: "capabilities",
		},
		"every closed capability is accepted": {
			modify: func(d *authority.HostAuthorityDraft) { d.Capabilities = testutil.Capabilities(5) },
		},
		// The closed vocabulary has five tokens, so eight members can only
		// be reached with a repeat: the bound is checked before parsing and
		// eight members proceed to the uniqueness check.
		"eight capabilities are within the bound and reach the uniqueness check": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Capabilities = testutil.Capabilities(8) },
			wantErr: fault.ErrDuplicate, wantPath: "capabilities[5]",
		},
		"nine capabilities exceed the bound": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Capabilities = testutil.Capabilities(9) },
			wantErr: fault.ErrLimitExceeded, wantPath: "capabilities",
		},
		"an unknown capability rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Capabilities = []string{"data.read", "data.*"} },
			wantErr: fault.ErrUnknownToken, wantPath: "capabilities[1]",
		},
		"a repeated capability rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Capabilities = []string{"data.read", "data.read"} },
			wantErr: fault.ErrDuplicate, wantPath: "capabilities[1]",
		},
		"no resources is accepted (no resource authority)": {
			modify: func(d *authority.HostAuthorityDraft) { d.Resources = nil },
		},
		"sixteen resources are accepted": {
			modify: func(d *authority.HostAuthorityDraft) { d.Resources = repeat("acct", 16) },
		},
		"seventeen resources exceed the bound": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Resources = repeat("acct", 17) },
			wantErr: fault.ErrLimitExceeded, wantPath: "resources",
		},
		"a malformed resource rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Resources = []string{"acct-1", "Acct_2"} },
			wantErr: fault.ErrMalformed, wantPath: "resources[1]",
		},
		"a repeated resource rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Resources = []string{"acct-1", "acct-2", "acct-1"} },
			wantErr: fault.ErrDuplicate, wantPath: "resources[2]",
		},
		"no declared role rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Roles = nil },
			wantErr: fault.ErrMissing, wantPath: "roles",
		},
		"one declared role is accepted": {
			modify: func(d *authority.HostAuthorityDraft) { d.Roles = []string{"authenticationAuthority"} },
		},
		"seven roles exceed the six closed kinds": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Roles = append(hostDraft().Roles, "influenceCollector") },
			wantErr: fault.ErrLimitExceeded, wantPath: "roles",
		},
		"an unknown role kind rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Roles = []string{"authenticationAuthority", "superuser"} },
			wantErr: fault.ErrUnknownToken, wantPath: "roles[1]",
		},
		"a duplicate role rejects": {
			modify:  func(d *authority.HostAuthorityDraft) { d.Roles = []string{"influenceCollector", "influenceCollector"} },
			wantErr: fault.ErrDuplicate, wantPath: "roles[1]",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := hostDraft()
			tc.modify(&d)
			h, err := authority.NewHostAuthority(boundary.New("host"), d)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if (err == nil) == (h == nil) {
				t.Errorf("NewHostAuthority returned %v with error %v: want exactly one", h, err)
			}
		})
	}
}

func TestNewHostAuthorityRequiresARetainedBoundary(t *testing.T) {
	t.Parallel()
	_, err := authority.NewHostAuthority(boundary.Boundary{}, hostDraft())
	testutil.CheckFault(t, err, fault.ErrMissing, "domain")
}

// TestHostAuthorityNormalizesSetsDeterministically proves Section 50 order:
// capabilities and resources in ASCII order, roles in Section 48 order, and
// input order never changes the digest.
func TestHostAuthorityNormalizesSetsDeterministically(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	h := newHost(t, b, hostDraft())
	if diff := cmp.Diff([]vocab.Capability{vocab.DataRead, vocab.FinancialTransfer}, h.Capabilities()); diff != "" {
		t.Errorf("Capabilities (-want +got):\n%s", diff)
	}
	var res []string
	for _, r := range h.Resources() {
		res = append(res, r.String())
	}
	if diff := cmp.Diff([]string{"acct-1001", "acct-2002"}, res); diff != "" {
		t.Errorf("Resources (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(vocab.AllRole(), h.Roles()); diff != "" {
		t.Errorf("Roles (-want +got):\n%s", diff)
	}
	reversed := hostDraft()
	slices.Reverse(reversed.Capabilities)
	slices.Reverse(reversed.Resources)
	slices.Reverse(reversed.Roles)
	if g := newHost(t, b, reversed); !h.Equal(g) || !g.Digest().Equal(h.Digest()) {
		t.Error("input order must not change the host authority")
	}
	// Accessors return copies.
	h.Capabilities()[0] = vocab.ResourceDelete
	h.Roles()[0] = vocab.PolicyAdministrationAuthority
	if h.Capabilities()[0] != vocab.DataRead || h.Roles()[0] != vocab.AuthenticationAuthority {
		t.Error("accessors must not expose internal state")
	}
	if !h.HasRole(vocab.InfluenceCollector) || !h.HasCapability(vocab.DataRead) || h.HasCapability(vocab.DataWrite) {
		t.Error("HasRole/HasCapability disagree with the ceiling")
	}
	if !h.HasResource(h.Resources()[1]) || h.ID().String() != "host-authority" || !h.Domain().Same(b.Domain()) {
		t.Error("HasResource/ID/Domain disagree with the ceiling")
	}
}

// TestHostAuthoritySameIdentityDifferentContentIsNotEqual proves that the
// identity does not stand for the content: any content change is a
// different ceiling.
func TestHostAuthoritySameIdentityDifferentContentIsNotEqual(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	base := newHost(t, b, hostDraft())
	cases := map[string]func(*authority.HostAuthorityDraft){
		"one more capability":  func(d *authority.HostAuthorityDraft) { d.Capabilities = append(d.Capabilities, "data.write") },
		"one fewer capability": func(d *authority.HostAuthorityDraft) { d.Capabilities = d.Capabilities[:1] },
		"one more resource":    func(d *authority.HostAuthorityDraft) { d.Resources = append(d.Resources, "acct-3003") },
		"no resources":         func(d *authority.HostAuthorityDraft) { d.Resources = nil },
		"one fewer role":       func(d *authority.HostAuthorityDraft) { d.Roles = d.Roles[1:] },
		"another identity":     func(d *authority.HostAuthorityDraft) { d.ID = "host-authority-2" },
	}
	for name, modify := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := hostDraft()
			modify(&d)
			h := newHost(t, b, d)
			if base.Equal(h) || h.Digest().Equal(base.Digest()) {
				t.Error("a content change must change the digest and break equality")
			}
		})
	}
}

// TestIndependentBoundariesNeverMakeEqualAuthorities proves P-016 at the
// Host Authority: identical descriptions and drafts in two independently
// created boundaries are two different ceilings, although their content
// digests agree.
func TestIndependentBoundariesNeverMakeEqualAuthorities(t *testing.T) {
	t.Parallel()
	h1 := newHost(t, boundary.New("payments-host"), hostDraft())
	h2 := newHost(t, boundary.New("payments-host"), hostDraft())
	if !h1.Digest().Equal(h2.Digest()) {
		t.Fatal("identical content must have identical content digests")
	}
	if h1.Equal(h2) {
		t.Error("authorities of independently created boundaries must never be equal")
	}
	if !h1.Equal(h1) || h1.Equal(nil) || (*authority.HostAuthority)(nil).Equal(nil) {
		t.Error("Equal must be reflexive and reject nil")
	}
}
