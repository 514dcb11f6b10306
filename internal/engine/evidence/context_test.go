package evidence_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// contextChange is one change to the fixture's Security Context: its draft,
// the attestation's validity or the attestation's identity.
type contextChange struct {
	modify   func(*evidence.SecurityContextDraft)
	validity *epoch.Validity
	attID    string
}

// build attests the fixture's draft with the change applied.
func (ch contextChange) build(e *testutil.Evidence) (*evidence.SecurityContext, error) {
	d := e.ContextDraft
	d.Methods = slices.Clone(d.Methods)
	if ch.modify != nil {
		ch.modify(&d)
	}
	v, attID := e.Validity, "context-attestation"
	if ch.validity != nil {
		v = *ch.validity
	}
	if ch.attID != "" {
		attID = ch.attID
	}
	return evidence.NewSecurityContext(e.Authn, attID, v, d)
}

// TestNewSecurityContextValidatesEveryField proves the Section 15 Security
// Context shape and its Section 39 bounds, each at the bound and one past.
func TestNewSecurityContextValidatesEveryField(t *testing.T) {
	t.Parallel()
	e, _ := fixture(t)
	allMethods := []string{"hardwareAuthenticator", "federated", "inherenceFactor", "possessionFactor", "knowledgeFactor", "unknown"}
	cases := map[string]struct {
		modify   func(*evidence.SecurityContextDraft)
		validity *epoch.Validity
		attID    string
		wantErr  error
		wantPath string
	}{
		"the fixture draft is accepted": {},
		"a context identity of 64 octets is accepted": {
			modify: func(d *evidence.SecurityContextDraft) { d.ID = strings.Repeat("c", 64) },
		},
		"a context identity of 65 octets rejects": {
			modify:  func(d *evidence.SecurityContextDraft) { d.ID = strings.Repeat("c", 65) },
			wantErr: fault.ErrMalformed, wantPath: "id",
		},
		"a subject of 64 octets is accepted": {
			modify: func(d *evidence.SecurityContextDraft) { d.Identity.Subject = strings.Repeat("s", 64) },
		},
		"a subject of 65 octets rejects": {
			modify:  func(d *evidence.SecurityContextDraft) { d.Identity.Subject = strings.Repeat("s", 65) },
			wantErr: fault.ErrMalformed, wantPath: "identity.subject",
		},
		"an absent session is not session independence": {
			modify:  func(d *evidence.SecurityContextDraft) { d.Identity.Session = "" },
			wantErr: fault.ErrMalformed, wantPath: "identity.session",
		},
		"explicit session independence is accepted": {
			modify: func(d *evidence.SecurityContextDraft) { d.Identity.Session, d.Identity.SessionIndependent = "", true },
		},
		"an unknown assurance rejects": {
			modify:  func(d *evidence.SecurityContextDraft) { d.Assurance = "strong" },
			wantErr: fault.ErrUnknownToken, wantPath: "assurance",
		},
		"an absent assurance rejects": {
			modify:  func(d *evidence.SecurityContextDraft) { d.Assurance = "" },
			wantErr: fault.ErrUnknownToken, wantPath: "assurance",
		},
		"no authentication method is accepted": {
			modify: func(d *evidence.SecurityContextDraft) { d.Methods = nil },
		},
		"every closed method is accepted": {
			modify: func(d *evidence.SecurityContextDraft) { d.Methods = allMethods },
		},
		// Six closed tokens exist; eight members are within the bound and
		// reach the uniqueness check.
		"eight methods are within the bound and reach the uniqueness check": {
			modify: func(d *evidence.SecurityContextDraft) {
				d.Methods = append(slices.Clone(allMethods), "federated", "unknown")
			},
			wantErr: fault.ErrDuplicate, wantPath: "methods[6]",
		},
		"nine methods exceed the bound": {
			modify: func(d *evidence.SecurityContextDraft) {
				d.Methods = append(slices.Clone(allMethods), "federated", "unknown", "knowledgeFactor")
			},
			wantErr: fault.ErrLimitExceeded, wantPath: "methods",
		},
		"an unknown method rejects": {
			modify:  func(d *evidence.SecurityContextDraft) { d.Methods = []string{"federated", "password"} },
			wantErr: fault.ErrUnknownToken, wantPath: "methods[1]",
		},
		"a repeated method rejects": {
			modify:  func(d *evidence.SecurityContextDraft) { d.Methods = []string{"federated", "federated"} },
			wantErr: fault.ErrDuplicate, wantPath: "methods[1]",
		},
		"a malformed attestation identity rejects": {
			attID: "Context Attestation", wantErr: fault.ErrMalformed, wantPath: "attestation.id",
		},
		"a zero validity window rejects": {
			validity: &epoch.Validity{}, wantErr: fault.ErrMissing, wantPath: "attestation.validity",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := contextChange{tc.modify, tc.validity, tc.attID}.build(&e)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if (err == nil) == (c == nil) {
				t.Errorf("NewSecurityContext returned %v with error %v: want exactly one", c, err)
			}
		})
	}
}

// TestEvidenceRequiresItsExactRole proves role substitution rejects
// (Section 14, P-017): each evidence value is established only by the Role
// Authority of its fact class, never by any other role.
func TestEvidenceRequiresItsExactRole(t *testing.T) {
	t.Parallel()
	e, r := fixture(t)
	build := map[vocab.Role]func(*authority.RoleAuthority) error{
		vocab.AuthenticationAuthority: func(a *authority.RoleAuthority) error {
			_, err := evidence.NewSecurityContext(a, "context-attestation", e.Validity, e.ContextDraft)
			return err
		},
		vocab.DelegationAuthority: func(a *authority.RoleAuthority) error {
			_, err := evidence.NewDelegation(a, "delegation-attestation", e.Validity, evidence.DelegationDraft{ID: "d-1", Subject: "alice"})
			return err
		},
		vocab.IntentCaptureAuthority: func(a *authority.RoleAuthority) error {
			_, err := evidence.NewIntent(a, "intent-attestation", e.Validity, evidence.ExactRequest(r), e.IntentDraft)
			return err
		},
	}
	for _, want := range []vocab.Role{vocab.AuthenticationAuthority, vocab.DelegationAuthority, vocab.IntentCaptureAuthority} {
		for _, holder := range vocab.AllRole() {
			err := build[want](roleOf(e, holder))
			if holder == want {
				testutil.CheckFault(t, err, nil, "")
				continue
			}
			testutil.CheckFault(t, err, fault.ErrUnauthorized, "authority")
		}
		testutil.CheckFault(t, build[want](nil), fault.ErrMissing, "authority")
	}
}

// TestSecurityContextIsAttestedCompleteContent proves the attestation
// covers the context's complete content and carries its validity, and the
// value exposes exactly what was bound.
func TestSecurityContextIsAttestedCompleteContent(t *testing.T) {
	t.Parallel()
	e, _ := fixture(t)
	c := e.SecurityContext
	a := c.Attestation()
	if a.Fact() != vocab.FactSecurityContext || !a.Issuer().Equal(e.Authn.Identity()) || a.ID().String() != "context-attestation" {
		t.Error("the attestation must be the authentication authority's securityContext attestation")
	}
	if a.Subject().IsZero() || c.Validity() != e.Validity || !c.Domain().Same(e.Boundary.Domain()) {
		t.Error("the attestation must cover the content, with the context's validity and domain")
	}
	if c.ID().String() != "context-1" || !c.Identity().Equal(e.Identity) || c.Assurance() != vocab.AssuranceMultiFactor ||
		c.Version() != vocab.V1 {
		t.Error("accessors must report the bound values")
	}
	if diff := cmp.Diff([]vocab.AuthMethod{vocab.AuthMethodKnowledgeFactor, vocab.AuthMethodPossessionFactor}, c.Methods()); diff != "" {
		t.Errorf("Methods in Section 48 order (-want +got):\n%s", diff)
	}
	c.Methods()[0] = vocab.AuthMethodUnknown
	if c.Methods()[0] != vocab.AuthMethodKnowledgeFactor {
		t.Error("Methods must return a copy")
	}
	reordered := e.ContextDraft
	reordered.Methods = []string{"knowledgeFactor", "possessionFactor"}
	again, err := evidence.NewSecurityContext(e.Authn, "context-attestation", e.Validity, reordered)
	if err != nil || !c.Equal(again) || !again.Digest().Equal(c.Digest()) {
		t.Errorf("method input order must not change the context: %v", err)
	}
}

// TestSecurityContextSameIdentityDifferentContentIsNotEqual proves that
// same-identity substitution is detected: every content difference changes
// the digest and breaks equality, including the attestation's validity.
func TestSecurityContextSameIdentityDifferentContentIsNotEqual(t *testing.T) {
	t.Parallel()
	e, _ := fixture(t)
	later := testutil.EvidenceValidity(t, 1000, 1000, 2001)
	cases := map[string]contextChange{
		"assurance":            {modify: func(d *evidence.SecurityContextDraft) { d.Assurance = "singleFactor" }},
		"one method fewer":     {modify: func(d *evidence.SecurityContextDraft) { d.Methods = d.Methods[:1] }},
		"no method":            {modify: func(d *evidence.SecurityContextDraft) { d.Methods = nil }},
		"subject":              {modify: func(d *evidence.SecurityContextDraft) { d.Identity.Subject = "bob" }},
		"tenant":               {modify: func(d *evidence.SecurityContextDraft) { d.Identity.Tenant = "" }},
		"session":              {modify: func(d *evidence.SecurityContextDraft) { d.Identity.Session = "session-2" }},
		"delegation":           {modify: func(d *evidence.SecurityContextDraft) { d.Identity.Delegation = "d-1" }},
		"validity":             {validity: &later},
		"attestation identity": {attID: "context-attestation-2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := tc.build(&e)
			if err != nil {
				t.Fatal(err)
			}
			checkContentDiffers(t, e.SecurityContext, c)
		})
	}
	if e.SecurityContext.Equal(nil) {
		t.Error("nil equals nothing")
	}
}

// TestEvidenceFromIndependentBoundariesIsNeverEqual proves P-016 for
// evidence: identical content attested in a same-description boundary is
// not the same evidence.
func TestEvidenceFromIndependentBoundariesIsNeverEqual(t *testing.T) {
	t.Parallel()
	e1, _ := fixture(t)
	e2, _ := fixture(t)
	if !e1.SecurityContext.Digest().Equal(e2.SecurityContext.Digest()) {
		t.Fatal("identical content must have identical digests")
	}
	if e1.SecurityContext.Equal(e2.SecurityContext) {
		t.Error("security contexts of independent boundaries must not be equal")
	}
	if e1.Intent.Equal(e2.Intent) {
		t.Error("intents of independent boundaries must not be equal")
	}
}

func TestNewDelegationBindsIdentityAndSubject(t *testing.T) {
	t.Parallel()
	e, _ := fixture(t)
	base := evidence.DelegationDraft{ID: "delegation-1", Subject: "alice"}
	cases := map[string]struct {
		d        evidence.DelegationDraft
		attID    string
		wantErr  error
		wantPath string
	}{
		"a complete delegation is accepted": {d: base},
		"a delegation identity of 65 octets rejects": {
			d: evidence.DelegationDraft{ID: strings.Repeat("d", 65), Subject: "alice"}, wantErr: fault.ErrMalformed, wantPath: "id",
		},
		"a missing subject rejects": {
			d: evidence.DelegationDraft{ID: "delegation-1"}, wantErr: fault.ErrMalformed, wantPath: "subject",
		},
		"a malformed attestation identity rejects": {
			d: base, attID: "-", wantErr: fault.ErrMalformed, wantPath: "attestation.id",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			attID := "delegation-attestation"
			if tc.attID != "" {
				attID = tc.attID
			}
			g, err := evidence.NewDelegation(e.Delegation, attID, e.Validity, tc.d)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if err != nil {
				return
			}
			if g.ID().String() != "delegation-1" || g.Subject().String() != "alice" || g.Validity() != e.Validity ||
				!g.Domain().Same(e.Boundary.Domain()) || g.Attestation().Fact() != vocab.FactDelegation {
				t.Error("accessors must report the bound values")
			}
		})
	}
	g, _ := evidence.NewDelegation(e.Delegation, "delegation-attestation", e.Validity, base)
	later := testutil.EvidenceValidity(t, 1000, 1000, 2001)
	otherSubject := evidence.DelegationDraft{ID: "delegation-1", Subject: "bob"}
	for name, other := range map[string]struct {
		d evidence.DelegationDraft
		v epoch.Validity
	}{
		"subject":  {d: otherSubject, v: e.Validity},
		"validity": {d: base, v: later},
	} {
		o, err := evidence.NewDelegation(e.Delegation, "delegation-attestation", other.v, other.d)
		if err != nil || g.Equal(o) || o.Digest().Equal(g.Digest()) {
			t.Errorf("%s: a content difference must break equality (%v)", name, err)
		}
	}
	same, _ := evidence.NewDelegation(e.Delegation, "delegation-attestation", e.Validity, base)
	if !g.Equal(same) || g.Equal(nil) {
		t.Error("identical delegations are equal; nil equals nothing")
	}
}
