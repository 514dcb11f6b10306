package evalinput_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestNewRequiresOneIdentityAcrossEvidence changes one identity component
// of one piece (Section 15: "Subject, tenant, session, delegation ...
// mismatch MUST fail closed"; Section 16: lineage binds "the same ...
// subject, tenant, and session scope"). The Security Context's identity is
// the reference, so a different Security Context is reported at the first
// piece compared with it, the Intent.
func TestNewRequiresOneIdentityAcrossEvidence(t *testing.T) {
	t.Parallel()
	components := map[string]struct {
		base   []specMod
		change func(*principal.Draft)
	}{
		"subject":                       {change: func(d *principal.Draft) { d.Subject = "bob" }},
		"tenant":                        {change: func(d *principal.Draft) { d.Tenant = "globex" }},
		"tenant dropped":                {change: func(d *principal.Draft) { d.Tenant = "" }},
		"session":                       {change: func(d *principal.Draft) { d.Session = "session-2" }},
		"session made independent":      {change: func(d *principal.Draft) { d.Session, d.SessionIndependent = "", true }},
		"delegation added":              {change: func(d *principal.Draft) { d.Delegation = "delegation-1" }},
		"delegation changed":            {base: []specMod{delegated}, change: func(d *principal.Draft) { d.Delegation = "delegation-2" }},
		"delegation dropped":            {base: []specMod{delegated}, change: func(d *principal.Draft) { d.Delegation = "" }},
		"subject under same delegation": {base: []specMod{delegated}, change: func(d *principal.Draft) { d.Subject = "bob" }},
	}
	pieces := map[string]struct {
		replace  func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, change func(*principal.Draft))
		wantPath string
	}{
		"intent": {func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, change func(*principal.Draft)) {
			d.Intent = intent(t, f, evidence.ExactRequest(f.Request), f.Validity, func(i *evidence.IntentDraft) { change(&i.Identity) })
		}, "intent.identity"},
		"provenance": {func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, change func(*principal.Draft)) {
			id := f.Identity.Draft()
			change(&id)
			d.Provenance = provenance(t, f, f.Validity, f.Assessment, identity(t, id))
		}, "provenance.identity"},
		"influence": {func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, change func(*principal.Draft)) {
			id := f.Identity.Draft()
			change(&id)
			d.Influence = influence(t, f, f.Validity, f.Assessment, identity(t, id))
		}, "influence.identity"},
		"security context": {func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, change func(*principal.Draft)) {
			d.SecurityContext = context(t, f, f.Validity, func(c *evidence.SecurityContextDraft) { change(&c.Identity) })
		}, "intent.identity"},
	}
	type row struct {
		base     []specMod
		replace  func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft, change func(*principal.Draft))
		change   func(*principal.Draft)
		wantPath string
	}
	tests := map[string]row{}
	for p, piece := range pieces {
		for c, comp := range components {
			tests[p+": "+c] = row{comp.base, piece.replace, comp.change, piece.wantPath}
		}
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := build(t, tc.base...)
			d := f.Draft
			tc.replace(t, f, &d, tc.change)
			in, err := evalinput.New(f.Boundary, d)
			checkReject(t, in, err, fault.ErrMismatch, tc.wantPath)
		})
	}
}

// TestNewBindsDelegationExactlyWhenNamed checks that Delegation evidence is
// required exactly when the identity names a delegation, and is that
// delegation for that subject (Sections 15 and 17).
func TestNewBindsDelegationExactlyWhenNamed(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		base     []specMod
		mutate   func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft)
		wantErr  error
		wantPath string
	}{
		"named and attested": {
			base:   []specMod{delegated},
			mutate: func(*testing.T, testutil.InputFixture, *evalinput.Draft) {},
		},
		"named but not supplied": {
			base:    []specMod{delegated},
			mutate:  func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) { d.Delegation = nil },
			wantErr: fault.ErrMissing, wantPath: "delegation",
		},
		"supplied but not named": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Delegation = delegation(t, f, f.Validity, evidence.DelegationDraft{ID: "delegation-1", Subject: "alice"})
			},
			wantErr: fault.ErrMismatch, wantPath: "delegation",
		},
		"another delegation for the same subject": {
			base: []specMod{delegated},
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Delegation = delegation(t, f, f.Validity, evidence.DelegationDraft{ID: "delegation-2", Subject: "alice"})
			},
			wantErr: fault.ErrMismatch, wantPath: "delegation",
		},
		"the named delegation for another subject": {
			base: []specMod{delegated},
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Delegation = delegation(t, f, f.Validity, evidence.DelegationDraft{ID: "delegation-1", Subject: "bob"})
			},
			wantErr: fault.ErrMismatch, wantPath: "delegation",
		},
		"attested by a delegation authority under another Host Authority of the domain": {
			base: []specMod{delegated},
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				other := buildIn(t, f.Boundary, delegated, func(s *testutil.InputSpec) { s.Host.ID = "host-authority-2" })
				d.Delegation = other.Draft.Delegation
			},
			wantErr: fault.ErrMismatch, wantPath: "attestations[2].issuer",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, in, err := newChanged(t, tc.base, tc.mutate, tc.wantErr, tc.wantPath)
			if err == nil && in.Delegation() != d.Delegation {
				t.Error("Delegation() is not the bound delegation")
			}
		})
	}
}

// TestNewRequiresExactAssessmentContinuity checks that the request and its
// lineage bind one exact Proposal Assessment (Section 12; Section 16;
// P-018: "Missing or cross-proposal evidence rejects"). Continuity is
// complete-content equality in one domain, not object identity.
func TestNewRequiresExactAssessmentContinuity(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mutate   func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft)
		wantErr  error
		wantPath string
	}{
		"provenance for a second assessment of the same proposal": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Provenance = provenance(t, f, f.Validity, assess(t, f, "proposal-1", "assessment-2"), f.Identity)
			},
			wantErr: fault.ErrMismatch, wantPath: "provenance.assessment",
		},
		"influence for a second assessment of the same proposal": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Influence = influence(t, f, f.Validity, assess(t, f, "proposal-1", "assessment-2"), f.Identity)
			},
			wantErr: fault.ErrMismatch, wantPath: "influence.assessment",
		},
		"request and intent for proposal-2 with proposal-1's lineage": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Request = requestWith(t, f, "proposal-2", testutil.PaymentsArguments, assess(t, f, "proposal-2", "assessment-1"))
				d.Intent = intent(t, f, evidence.ExactRequest(d.Request), f.Validity, nil)
			},
			wantErr: fault.ErrMismatch, wantPath: "provenance.assessment",
		},
		"lineage for an independently recorded, identical assessment": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				a := assess(t, f, "proposal-1", "assessment-1")
				d.Provenance = provenance(t, f, f.Validity, a, f.Identity)
				d.Influence = influence(t, f, f.Validity, a, f.Identity)
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkChanged(t, nil, tc.mutate, tc.wantErr, tc.wantPath)
		})
	}
}

// TestNewRequiresIntentForThisRequest checks the Intent target (Section 15:
// "A request-bound Intent MUST NOT be reused for a different Canonical
// Request"; "A bounded-tool Intent applies only to its exact Snapshot-bound
// Tool Definition"; P-002).
func TestNewRequiresIntentForThisRequest(t *testing.T) {
	t.Parallel()
	// secondVersion adds payments.submit version 2 (same content otherwise)
	// to the snapshot.
	secondVersion := func(s *testutil.InputSpec) {
		s.Registry = testutil.RegistryDraft(testutil.PaymentsDefinition(), testutil.PaymentsDefinition(func(d *registry.DefinitionDraft) {
			d.ID, d.Version = "payments-submit-2", "2"
		}))
	}
	tests := map[string]struct {
		base     []specMod
		mutate   func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft)
		wantErr  error
		wantPath string
	}{
		"exact intent for another request of the same tool": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				other := requestWith(t, f, "proposal-1", otherAmount, f.Assessment)
				d.Intent = intent(t, f, evidence.ExactRequest(other), f.Validity, nil)
			},
			wantErr: fault.ErrMismatch, wantPath: "intent.target",
		},
		"exact intent for an independently built, identical request": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				same := requestWith(t, f, "proposal-1", testutil.PaymentsArguments, f.Assessment)
				d.Intent = intent(t, f, evidence.ExactRequest(same), f.Validity, nil)
			},
		},
		"bounded-tool intent for the request's definition": {
			base:   []specMod{boundedTool},
			mutate: func(*testing.T, testutil.InputFixture, *evalinput.Draft) {},
		},
		"bounded-tool intent covers another request for its definition": {
			base: []specMod{boundedTool},
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Request = requestWith(t, f, "proposal-1", otherAmount, f.Assessment)
			},
		},
		"bounded-tool intent for another definition of the same snapshot": {
			base: []specMod{secondVersion},
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				var other *registry.Definition
				for i := range f.Snapshot.Len() {
					if def := f.Snapshot.Definition(i); !def.Equal(f.Request.Definition()) {
						other = def
					}
				}
				target := testutil.Must[evidence.Target](t)(evidence.BoundedTool(f.Snapshot, other))
				d.Intent = intent(t, f, target, f.Validity, nil)
			},
			wantErr: fault.ErrMismatch, wantPath: "intent.target",
		},
		"bounded-tool intent for the same definition in a republished snapshot": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				r := f.Spec.Registry
				r.Generation = "2"
				snap := testutil.Publish(t, r)
				target := testutil.Must[evidence.Target](t)(evidence.BoundedTool(snap, snap.Definition(0)))
				d.Intent = intent(t, f, target, f.Validity, nil)
			},
			wantErr: fault.ErrMismatch, wantPath: "intent.target",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkChanged(t, tc.base, tc.mutate, tc.wantErr, tc.wantPath)
		})
	}
}

// TestNewRequiresTheExpectedRenewal checks the Intent renewal generation
// against the Host's explicit expectation (Section 17 "Renewal state").
func TestNewRequiresTheExpectedRenewal(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		intentRenewal string
		expected      uint64
		wantErr       error
		wantPath      string
	}{
		"equal":                                    {intentRenewal: "1", expected: 1},
		"intent renewed and expected":              {intentRenewal: "2", expected: 2},
		"stale intent after a renewal":             {intentRenewal: "1", expected: 2, wantErr: fault.ErrMismatch, wantPath: "expectedRenewal"},
		"intent renewed beyond the expectation":    {intentRenewal: "3", expected: 2, wantErr: fault.ErrMismatch, wantPath: "expectedRenewal"},
		"no expectation is not 'any renewal'":      {intentRenewal: "1", wantErr: fault.ErrMissing, wantPath: "expectedRenewal"},
		"largest generation compared exactly":      {intentRenewal: "18446744073709551615", expected: 18446744073709551615},
		"largest generation, expectation one less": {intentRenewal: "18446744073709551615", expected: 18446744073709551614, wantErr: fault.ErrMismatch, wantPath: "expectedRenewal"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := build(t, func(s *testutil.InputSpec) { s.Intent.RenewalGeneration = tc.intentRenewal })
			d := f.Draft
			d.ExpectedRenewal = generation(tc.expected)
			in, err := evalinput.New(f.Boundary, d)
			checkReject(t, in, err, tc.wantErr, tc.wantPath)
			if err == nil && in.RenewalGeneration() != f.Intent.Renewal() {
				t.Errorf("RenewalGeneration = %v, want the intent's %v", in.RenewalGeneration(), f.Intent.Renewal())
			}
		})
	}
}
