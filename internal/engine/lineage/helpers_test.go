package lineage_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// env is one Host authority domain with every role granted to its own
// issuer, one identity and one validity window.
type env struct {
	b        boundary.Boundary
	prov     *authority.RoleAuthority
	infl     *authority.RoleAuthority
	authn    *authority.RoleAuthority
	id       principal.Identity
	validity epoch.Validity
}

func newEnv(t *testing.T) *env {
	t.Helper()
	b := boundary.New("lineage test domain")
	h, err := authority.NewHostAuthority(b, authority.HostAuthorityDraft{
		ID:           "host-1",
		Capabilities: []string{"data.read"},
		Roles:        []string{"authenticationAuthority", "provenanceAuthority", "influenceCollector"},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{b: b}
	e.prov = testutil.Must[*authority.RoleAuthority](t)(authority.Grant(b, h, vocab.ProvenanceAuthority, "prov-issuer"))
	e.infl = testutil.Must[*authority.RoleAuthority](t)(authority.Grant(b, h, vocab.InfluenceCollector, "infl-issuer"))
	e.authn = testutil.Must[*authority.RoleAuthority](t)(authority.Grant(b, h, vocab.AuthenticationAuthority, "authn-issuer"))
	e.id = identity(t, "alice")
	e.validity = validity(t, 1000, 1000, 2000)
	return e
}

func identity(t *testing.T, subject string) principal.Identity {
	t.Helper()
	return testutil.Must[principal.Identity](t)(principal.New(principal.Draft{Subject: subject, Tenant: "acme", Session: "s-1"}))
}

func validity(t *testing.T, issued, notBefore, expires uint64) epoch.Validity {
	t.Helper()
	return testutil.EvidenceValidity(t, issued, notBefore, expires)
}

// assess creates an assessment in e's domain expecting the given identities.
func (e *env) assess(t *testing.T, provenance, influence []string) *assessment.Assessment {
	t.Helper()
	return assessFor(t, e.b, "asm-1", provenance, influence)
}

func assessFor(t *testing.T, b boundary.Boundary, id string, provenance, influence []string) *assessment.Assessment {
	t.Helper()
	return testutil.Must[*assessment.Assessment](t)(assessment.New(b, assessment.Draft{
		ProposalID: "proposal-1", AssessmentID: id, ProvenanceIDs: provenance, InfluenceIDs: influence,
	}))
}

// record returns a valid host-verified document record with no transformations.
func record(id string) lineage.RecordDraft {
	return lineage.RecordDraft{ID: id, Source: "documentContent", Custody: "ev-" + id, Verification: "hostVerified"}
}

// seq returns n identities prefix-00, prefix-01, ... in ASCII order.
func seq(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", prefix, i)
	}
	return out
}

// noEcho fails when the rejection text contains marker.
func noEcho(t *testing.T, err error, marker string) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), marker) {
		t.Errorf("rejection echoes its input: %v", err)
	}
}

// cid parses a controlled identity.
func cid(t *testing.T, s string) ident.ControlledID {
	t.Helper()
	return testutil.Must[ident.ControlledID](t)(ident.ParseControlledID(s))
}

// long returns an identity of exactly n octets.
func long(n int) string { return "x" + strings.Repeat("a", n-1) }

// attestedSet is what NewProvenance and NewInfluence construct.
type attestedSet[V any] interface {
	ContentDigest() digest.Digest
	Digest() digest.Digest
	Equal(o V) bool
}

// rejectCase is one change to a complete construction that must reject
// with wantErr at wantPath.
type rejectCase[In any] struct {
	mutate   func(t *testing.T, e *env, in *In)
	wantErr  error
	wantPath string
}

// testRejects applies each case to the base input of a fresh domain and
// checks the rejection and that no partial value is returned.
func testRejects[In any, V comparable](t *testing.T, cases map[string]rejectCase[In], base func(*testing.T, *env) In, build func(In) (V, error)) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			in := base(t, e)
			tc.mutate(t, e, &in)
			v, err := build(in)
			testutil.RequireFault(t, err, tc.wantErr, tc.wantPath)
			var zero V
			if v != zero {
				t.Errorf("a rejected construction returned a partial value")
			}
		})
	}
}

// unattestedCase is one NoInfluence or UnknownProvenance call that must
// reject with wantErr at wantPath.
type unattestedCase struct {
	a        *assessment.Assessment
	id       principal.Identity
	wantErr  error
	wantPath string
}

// testUnattestedRejects runs each case through construct and checks the
// rejection and that no value is returned.
func testUnattestedRejects[V comparable](t *testing.T, cases map[string]unattestedCase, construct func(*assessment.Assessment, principal.Identity) (V, error)) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := construct(tc.a, tc.id)
			testutil.RequireFault(t, err, tc.wantErr, tc.wantPath)
			var zero V
			if v != zero {
				t.Errorf("a rejected construction returned a value")
			}
		})
	}
}

// sameContentCase is the key, in both substitution tables, of the one case
// that leaves the attested content unchanged: the attestation identity lies
// outside it.
const sameContentCase = "different attestation identity"

// testSubstitutions applies each mutation to a fresh base input and checks
// that the result is a different value from want, with the same content
// digest only for sameContentCase.
func testSubstitutions[In any, V attestedSet[V]](t *testing.T, want V, cases map[string]func(t *testing.T, in *In), base func(*testing.T) In, build func(In) (V, error)) {
	t.Helper()
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := base(t)
			mutate(t, &in)
			got := testutil.Must[V](t)(build(in))
			sameContent := name == sameContentCase
			if got.ContentDigest().Equal(want.ContentDigest()) != sameContent {
				t.Errorf("content digest equality = %v, want %v", !sameContent, sameContent)
			}
			if got.Equal(want) || got.Digest().Equal(want.Digest()) {
				t.Errorf("a changed %T is Equal to the original", got)
			}
		})
	}
}
