package authority_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestGrantAttenuatesWithinTheExactDomain proves Section 14 Role Authority
// creation: only the exact retained boundary grants (P-016), only a declared
// role is granted, and the issuer follows the controlled-identity grammar.
func TestGrantAttenuatesWithinTheExactDomain(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	only := hostDraft()
	only.Roles = []string{"authenticationAuthority"}
	h := newHost(t, b, hostDraft())
	authnOnly := newHost(t, b, only)
	cases := map[string]struct {
		b        boundary.Boundary
		h        *authority.HostAuthority
		role     vocab.Role
		issuer   string
		wantErr  error
		wantPath string
	}{
		"a declared role with the exact boundary is granted": {b: b, h: h, role: vocab.IntentCaptureAuthority, issuer: "capture"},
		"an issuer of 64 octets is accepted": {
			b: b, h: h, role: vocab.AuthenticationAuthority, issuer: strings.Repeat("i", 64),
		},
		"an issuer of 65 octets rejects": {
			b: b, h: h, role: vocab.AuthenticationAuthority, issuer: strings.Repeat("i", 65),
			wantErr: fault.ErrMalformed, wantPath: "issuer",
		},
		"an issuer outside the grammar rejects": {
			b: b, h: h, role: vocab.AuthenticationAuthority, issuer: "Auth Issuer",
			wantErr: fault.ErrMalformed, wantPath: "issuer",
		},
		"an independently created boundary with the same description is a mixed domain": {
			b: boundary.New("host"), h: h, role: vocab.AuthenticationAuthority, issuer: "authn",
			wantErr: fault.ErrMixedDomain, wantPath: "domain",
		},
		"an unavailable boundary rejects": {
			h: h, role: vocab.AuthenticationAuthority, issuer: "authn",
			wantErr: fault.ErrMissing, wantPath: "domain",
		},
		"a missing host authority rejects": {
			b: b, role: vocab.AuthenticationAuthority, issuer: "authn",
			wantErr: fault.ErrMissing, wantPath: "host",
		},
		"a role the host authority does not declare is unauthorized": {
			b: b, h: authnOnly, role: vocab.IntentCaptureAuthority, issuer: "capture",
			wantErr: fault.ErrUnauthorized, wantPath: "role",
		},
		"policy administration is a role that must be declared too": {
			b: b, h: authnOnly, role: vocab.PolicyAdministrationAuthority, issuer: "admin",
			wantErr: fault.ErrUnauthorized, wantPath: "role",
		},
		"a role outside the closed kinds rejects": {
			b: b, h: h, role: vocab.Role(7), issuer: "authn",
			wantErr: fault.ErrUnknownToken, wantPath: "role",
		},
		"the zero role rejects": {
			b: b, h: h, issuer: "authn",
			wantErr: fault.ErrUnknownToken, wantPath: "role",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := authority.Grant(tc.b, tc.h, tc.role, tc.issuer)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if err != nil {
				return
			}
			if r.Role() != tc.role || r.Issuer().String() != tc.issuer || r.Host() != tc.h || !tc.b.Holds(r.Domain()) {
				t.Error("a role authority must retain exactly its role, issuer, host authority and domain")
			}
		})
	}
}

// TestPermittedRoleMapsEachFactToExactlyOneRole pins the Section 48 fact to
// role mapping; policy administration is permitted no fact.
func TestPermittedRoleMapsEachFactToExactlyOneRole(t *testing.T) {
	t.Parallel()
	want := map[vocab.Fact]vocab.Role{
		vocab.FactSecurityContext:     vocab.AuthenticationAuthority,
		vocab.FactUserIntent:          vocab.IntentCaptureAuthority,
		vocab.FactProvenance:          vocab.ProvenanceAuthority,
		vocab.FactInfluenceCollection: vocab.InfluenceCollector,
		vocab.FactDelegation:          vocab.DelegationAuthority,
	}
	for _, f := range vocab.AllFact() {
		if got := authority.PermittedRole(f); got != want[f] {
			t.Errorf("PermittedRole(%v) = %v, want %v", f, got, want[f])
		}
		if authority.PermittedRole(f) == vocab.PolicyAdministrationAuthority {
			t.Errorf("policy administration must attest no fact (%v)", f)
		}
	}
	if authority.PermittedRole(0).IsValid() {
		t.Error("the zero fact maps to no role")
	}
}

// TestAttestIsRoleAttenuated proves P-017: for every role and every fact, a
// Role Authority attests only the fact class of its own role; anything else
// is role substitution.
func TestAttestIsRoleAttenuated(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	h := newHost(t, b, hostDraft())
	for _, role := range vocab.AllRole() {
		r := grant(t, b, h, role, "issuer")
		for _, f := range vocab.AllFact() {
			a, err := r.Attest("attestation-1", f, window(t), subject("fact"))
			if authority.PermittedRole(f) == role {
				if err != nil || a.IsZero() || a.Fact() != f || !a.Issuer().Equal(r.Identity()) {
					t.Errorf("%v attesting %v = %v: want an attestation", role, f, err)
				}
				continue
			}
			testutil.CheckFault(t, err, fault.ErrUnauthorized, "fact")
			if !a.IsZero() {
				t.Errorf("%v attesting %v returned a partial attestation", role, f)
			}
		}
	}
}

func TestAttestRejectsIncompleteEvidence(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	r := grant(t, b, newHost(t, b, hostDraft()), vocab.AuthenticationAuthority, "authn")
	cases := map[string]struct {
		id       string
		fact     vocab.Fact
		validity epoch.Validity
		subject  digest.Digest
		wantErr  error
		wantPath string
	}{
		"a complete attestation is accepted": {
			id: "a-1", fact: vocab.FactSecurityContext, validity: window(t), subject: subject("x"),
		},
		"an identity of 65 octets rejects": {
			id: strings.Repeat("a", 65), fact: vocab.FactSecurityContext, validity: window(t), subject: subject("x"),
			wantErr: fault.ErrMalformed, wantPath: "id",
		},
		"an unknown fact rejects": {
			id: "a-1", fact: vocab.Fact(9), validity: window(t), subject: subject("x"),
			wantErr: fault.ErrUnknownToken, wantPath: "fact",
		},
		"a zero validity window rejects": {
			id: "a-1", fact: vocab.FactSecurityContext, subject: subject("x"),
			wantErr: fault.ErrMissing, wantPath: "validity",
		},
		"a zero subject digest rejects": {
			id: "a-1", fact: vocab.FactSecurityContext, validity: window(t),
			wantErr: fault.ErrMissing, wantPath: "subject",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := r.Attest(tc.id, tc.fact, tc.validity, tc.subject)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
	var none *authority.RoleAuthority
	_, err := none.Attest("a-1", vocab.FactSecurityContext, window(t), subject("x"))
	testutil.CheckFault(t, err, fault.ErrMissing, "issuer")
}

// TestAttestationDigestCoversCompleteContent proves same-identity
// substitution fails: an attestation with the same identity and any other
// issuer, host ceiling, validity or subject is a different attestation.
func TestAttestationDigestCoversCompleteContent(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	h := newHost(t, b, hostDraft())
	r := grant(t, b, h, vocab.AuthenticationAuthority, "authn")
	base := attest(t, r, "a-1", vocab.FactSecurityContext, window(t))
	wider := hostDraft()
	wider.Capabilities = append(wider.Capabilities, "data.write")
	later := testutil.EvidenceValidity(t, 1000, 1000, 2001)
	cases := map[string]authority.Attestation{
		"another issuer identity": attest(t, grant(t, b, h, vocab.AuthenticationAuthority, "authn-2"), "a-1",
			vocab.FactSecurityContext, window(t)),
		"an issuer of another ceiling": attest(t, grant(t, b, newHost(t, b, wider), vocab.AuthenticationAuthority, "authn"), "a-1",
			vocab.FactSecurityContext, window(t)),
		"another validity window": attest(t, r, "a-1", vocab.FactSecurityContext, later),
		"another subject": func() authority.Attestation {
			a, err := r.Attest("a-1", vocab.FactSecurityContext, window(t), subject("other"))
			if err != nil {
				t.Fatal(err)
			}
			return a
		}(),
		"another identity": attest(t, r, "a-2", vocab.FactSecurityContext, window(t)),
	}
	for name, a := range cases {
		if a.Digest().Equal(base.Digest()) || base.Equal(a) {
			t.Errorf("%s: the attestation digest must change", name)
		}
	}
	again := attest(t, r, "a-1", vocab.FactSecurityContext, window(t))
	if !base.Equal(again) || base.Validity() != window(t) || !base.Subject().Equal(subject("a-1")) {
		t.Error("identical attestations must be equal")
	}
	other := boundary.New("host")
	foreign := attest(t, grant(t, other, newHost(t, other, hostDraft()), vocab.AuthenticationAuthority, "authn"), "a-1",
		vocab.FactSecurityContext, window(t))
	if base.Equal(foreign) || !foreign.Digest().Equal(base.Digest()) {
		t.Error("identical content in another domain must be content-equal but never Equal (P-016)")
	}
	if (authority.Attestation{}).Equal(authority.Attestation{}) || !(authority.Attestation{}).Domain().IsZero() {
		t.Error("the zero attestation is nobody's and equals nothing")
	}
}

// TestRoleAuthorityDigestCoversHostRoleAndIssuer proves the same issuer in
// another role or under another ceiling is a different Role Authority.
func TestRoleAuthorityDigestCoversHostRoleAndIssuer(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	h := newHost(t, b, hostDraft())
	base := grant(t, b, h, vocab.AuthenticationAuthority, "issuer")
	narrower := hostDraft()
	narrower.Resources = nil
	for name, r := range map[string]*authority.RoleAuthority{
		"another role":    grant(t, b, h, vocab.DelegationAuthority, "issuer"),
		"another issuer":  grant(t, b, h, vocab.AuthenticationAuthority, "issuer-2"),
		"another ceiling": grant(t, b, newHost(t, b, narrower), vocab.AuthenticationAuthority, "issuer"),
		"another boundary": func() *authority.RoleAuthority {
			o := boundary.New("host")
			return grant(t, o, newHost(t, o, hostDraft()), vocab.AuthenticationAuthority, "issuer")
		}(),
	} {
		if base.Equal(r) || (name != "another boundary" && base.Digest().Equal(r.Digest())) {
			t.Errorf("%s: must not be equal", name)
		}
	}
	if !base.Equal(grant(t, b, h, vocab.AuthenticationAuthority, "issuer")) {
		t.Error("identical grants must be equal")
	}
	if base.Equal(nil) {
		t.Error("nil equals nothing")
	}
	// A RoleAuthority not made by Grant holds no role, domain or authority.
	forged := &authority.RoleAuthority{}
	if forged.Equal(forged) || !forged.Domain().IsZero() {
		t.Error("a forged role authority has no domain and equals nothing")
	}
	_, err := forged.Attest("a-1", vocab.FactSecurityContext, window(t), subject("x"))
	testutil.CheckFault(t, err, fault.ErrUnauthorized, "fact")
}
