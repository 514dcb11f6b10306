package authority_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// domain is one Host authority domain with its ceiling and one Role
// Authority per role.
type domain struct {
	b       boundary.Boundary
	h       *authority.HostAuthority
	authn   *authority.RoleAuthority
	capture *authority.RoleAuthority
	deleg   *authority.RoleAuthority
}

func newDomain(t *testing.T, description string, d authority.HostAuthorityDraft) domain {
	t.Helper()
	b := boundary.New(description)
	h := newHost(t, b, d)
	return domain{
		b: b, h: h,
		authn:   grant(t, b, h, vocab.AuthenticationAuthority, "authn"),
		capture: grant(t, b, h, vocab.IntentCaptureAuthority, "capture"),
		deleg:   grant(t, b, h, vocab.DelegationAuthority, "deleg"),
	}
}

// TestComposeRejectsEverySection14Failure has one row per rejection the
// spec lists for Section 14 composition: mixed boundaries, mismatched
// entitlement ceilings, duplicate conflicting role issuers, expired or stale
// evidence, and the Section 39 bound of 16 attestations.
func TestComposeRejectsEverySection14Failure(t *testing.T) {
	t.Parallel()
	home := newDomain(t, "payments-host", hostDraft())
	// P-016: a second boundary with the very same description and draft.
	twin := newDomain(t, "payments-host", hostDraft())
	// A second ceiling in the same domain: broader by one capability.
	broader := hostDraft()
	broader.Capabilities = append(broader.Capabilities, "data.write")
	second := newHost(t, home.b, broader)
	// The same ceiling content created twice in one domain is one ceiling.
	copyOfMain := newHost(t, home.b, hostDraft())

	w := window(t)
	ctx := attest(t, home.authn, "context-attestation", vocab.FactSecurityContext, w)
	intent := attest(t, home.capture, "intent-attestation", vocab.FactUserIntent, w)
	sixteen := make([]authority.Attestation, 16)
	for i, id := range repeat("context", 16) {
		sixteen[i] = attest(t, home.authn, id, vocab.FactSecurityContext, w)
	}
	cases := map[string]struct {
		h        *authority.HostAuthority
		t        uint64
		atts     []authority.Attestation
		wantErr  error
		wantPath string
	}{
		"two roles of one domain and ceiling compose": {
			h: home.h, t: testutil.EvidenceTime, atts: []authority.Attestation{intent, ctx},
		},
		"sixteen attestations are accepted": {
			h: home.h, t: testutil.EvidenceTime, atts: sixteen,
		},
		"seventeen attestations exceed the bound": {
			h: home.h, t: testutil.EvidenceTime, atts: append(slices.Clone(sixteen), intent),
			wantErr: fault.ErrLimitExceeded, wantPath: "attestations",
		},
		"no attestation rejects": {
			h: home.h, t: testutil.EvidenceTime,
			wantErr: fault.ErrMissing, wantPath: "attestations",
		},
		"a zero attestation rejects": {
			h: home.h, t: testutil.EvidenceTime, atts: []authority.Attestation{ctx, {}},
			wantErr: fault.ErrMissing, wantPath: "attestations[1]",
		},
		"a missing host authority rejects": {
			t: testutil.EvidenceTime, atts: []authority.Attestation{ctx},
			wantErr: fault.ErrMissing, wantPath: "host",
		},
		"an attestation from an independently created same-description boundary never composes": {
			h: home.h, t: testutil.EvidenceTime,
			atts:    []authority.Attestation{ctx, attest(t, twin.capture, "intent-attestation", vocab.FactUserIntent, w)},
			wantErr: fault.ErrMixedDomain, wantPath: "attestations[1].issuer",
		},
		"a composition under a foreign host authority is a mixed domain": {
			h: twin.h, t: testutil.EvidenceTime, atts: []authority.Attestation{ctx},
			wantErr: fault.ErrMixedDomain, wantPath: "attestations[0].issuer",
		},
		"an issuer under a second ceiling in the same domain is a mismatched entitlement ceiling": {
			h: home.h, t: testutil.EvidenceTime,
			atts: []authority.Attestation{ctx, attest(t, grant(t, home.b, second, vocab.IntentCaptureAuthority, "capture"),
				"intent-attestation", vocab.FactUserIntent, w)},
			wantErr: fault.ErrMismatch, wantPath: "attestations[1].issuer",
		},
		"ceilings are never unioned: the broader ceiling rejects the narrower issuer": {
			h: second, t: testutil.EvidenceTime, atts: []authority.Attestation{ctx},
			wantErr: fault.ErrMismatch, wantPath: "attestations[0].issuer",
		},
		"an identical ceiling created twice in one domain is one exact ceiling": {
			h: copyOfMain, t: testutil.EvidenceTime, atts: []authority.Attestation{ctx, intent},
		},
		"a duplicate attestation identity rejects": {
			h: home.h, t: testutil.EvidenceTime,
			atts:    []authority.Attestation{ctx, attest(t, home.capture, "context-attestation", vocab.FactUserIntent, w)},
			wantErr: fault.ErrDuplicate, wantPath: "attestations[1].id",
		},
		"the same attestation twice rejects": {
			h: home.h, t: testutil.EvidenceTime, atts: []authority.Attestation{ctx, ctx},
			wantErr: fault.ErrDuplicate, wantPath: "attestations[1].id",
		},
		"one issuer identity holding two roles is a duplicate conflicting issuer": {
			h: home.h, t: testutil.EvidenceTime,
			atts: []authority.Attestation{ctx, attest(t, grant(t, home.b, home.h, vocab.IntentCaptureAuthority, "authn"),
				"intent-attestation", vocab.FactUserIntent, w)},
			wantErr: fault.ErrDuplicate, wantPath: "attestations[1].issuer",
		},
		"one issuer identity in one role may attest twice": {
			h: home.h, t: testutil.EvidenceTime,
			atts: []authority.Attestation{ctx, attest(t, home.authn, "context-attestation-2", vocab.FactSecurityContext, w)},
		},
		"evidence not yet valid at notBefore-1 rejects": {
			h: home.h, t: testutil.EvidenceNotBefore - 1, atts: []authority.Attestation{ctx},
			wantErr: fault.ErrExpired, wantPath: "attestations[0].validity",
		},
		"evidence is valid at notBefore": {
			h: home.h, t: testutil.EvidenceNotBefore, atts: []authority.Attestation{ctx},
		},
		"evidence is valid at expiresAt-1": {
			h: home.h, t: testutil.EvidenceExpiresAt - 1, atts: []authority.Attestation{ctx},
		},
		"stale evidence at expiresAt rejects": {
			h: home.h, t: testutil.EvidenceExpiresAt, atts: []authority.Attestation{intent, ctx},
			wantErr: fault.ErrExpired, wantPath: "attestations[0].validity",
		},
		"one stale member rejects the whole composition": {
			h: home.h, t: testutil.EvidenceTime,
			atts: []authority.Attestation{ctx, attest(t, home.capture, "intent-attestation", vocab.FactUserIntent,
				testutil.EvidenceValidity(t, 1000, 1000, testutil.EvidenceTime))},
			wantErr: fault.ErrExpired, wantPath: "attestations[1].validity",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := authority.Compose(tc.h, at(t, tc.t), tc.atts)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if (err == nil) == c.IsZero() {
				t.Errorf("Compose returned zero=%v with error %v: want exactly one", c.IsZero(), err)
			}
		})
	}
}

// TestCompositionIsOrderedAndDeterministic proves Section 50 attestation
// order and that input order never changes the composition.
func TestCompositionIsOrderedAndDeterministic(t *testing.T) {
	t.Parallel()
	d := newDomain(t, "host", hostDraft())
	early := testutil.EvidenceValidity(t, 1000, 1000, 1600)
	atts := []authority.Attestation{
		attest(t, d.capture, "intent-attestation", vocab.FactUserIntent, window(t)),
		attest(t, d.authn, "context-attestation", vocab.FactSecurityContext, window(t)),
		attest(t, d.deleg, "delegation-attestation", vocab.FactDelegation, early),
	}
	c, err := authority.Compose(d.h, at(t, testutil.EvidenceTime), atts)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range c.Attestations() {
		ids = append(ids, a.ID().String())
	}
	if diff := cmp.Diff([]string{"context-attestation", "delegation-attestation", "intent-attestation"}, ids); diff != "" {
		t.Errorf("attestation order (-want +got):\n%s", diff)
	}
	slices.Reverse(atts)
	r, err := authority.Compose(d.h, at(t, testutil.EvidenceTime), atts)
	if err != nil || !c.Equal(r) || !c.Digest().Equal(r.Digest()) {
		t.Errorf("input order must not change the composition: %v", err)
	}
	later, _ := authority.Compose(d.h, at(t, testutil.EvidenceTime+1), atts)
	if c.Equal(later) {
		t.Error("the explicit time is part of the composition")
	}
	if c.Len() != 3 || c.Host() != d.h || !c.Domain().Same(d.b.Domain()) || c.At() != at(t, testutil.EvidenceTime) {
		t.Error("accessors must report the checked composition")
	}
	if got := c.ExpiresAt(); got != at(t, 1600) {
		t.Errorf("ExpiresAt = %v, want the earliest expiry 1600", got.Seconds())
	}
	intents := c.OfFact(vocab.FactUserIntent)
	if len(intents) != 1 || intents[0].ID().String() != "intent-attestation" || len(c.OfFact(vocab.FactProvenance)) != 0 {
		t.Error("OfFact must select exactly the attestations of one fact class")
	}
	id, _ := ident.ParseControlledID("delegation-attestation")
	if a, ok := c.Find(id); !ok || a.Fact() != vocab.FactDelegation {
		t.Error("Find must return the attestation with the exact identity")
	}
	missing, _ := ident.ParseControlledID("absent")
	if _, ok := c.Find(missing); ok {
		t.Error("Find must not invent an attestation")
	}
	c.Attestations()[0] = authority.Attestation{}
	if c.Attestations()[0].IsZero() {
		t.Error("Attestations must return a copy")
	}
	var zero authority.Composition
	if !zero.Domain().IsZero() || zero.ExpiresAt() != (epoch.Time{}) || zero.Equal(zero) {
		t.Error("the zero composition has no domain and equals nothing")
	}
}
