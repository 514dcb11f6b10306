package evalinput_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// bindingRows returns the Section 17 binding table as input fact -> failure
// result, read from the vendored spec.
func bindingRows(t *testing.T) map[string]string {
	t.Helper()
	lines := testutil.SpecSection(t, "| Input fact | Authority source |", "Evaluation Input carries these authenticated ceilings")
	rows := map[string]string{}
	for _, l := range lines[2:] { // header and separator
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		if len(cells) != 4 {
			t.Fatalf("binding table row %q has %d cells, want 4", l, len(cells))
		}
		rows[cells[0]] = cells[3]
	}
	return rows
}

// TestNewRejectsEachBindingTableRow walks the Section 17 binding table:
// one realistic substitution per input fact, each rejecting the whole
// construction with the row's failure result.
func TestNewRejectsEachBindingTableRow(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		wantFailure string // the table's "Failure result" column
		scenario    string
		mutate      func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft)
		wantErr     error
		wantPath    string
	}{
		"Canonical Request": {
			wantFailure: "Reject input construction",
			scenario:    "the agent re-proposes the same tool with another amount after the Intent was captured",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Request = requestWith(t, f, "proposal-1", otherAmount, f.Assessment)
			},
			wantErr: fault.ErrMismatch, wantPath: "intent.target",
		},
		"Proposal Assessment": {
			wantFailure: "Reject assessment continuity",
			scenario:    "request and Intent for proposal-2 composed with proposal-1's lineage (P-018)",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Request = requestWith(t, f, "proposal-2", testutil.PaymentsArguments, assess(t, f, "proposal-2", "assessment-2"))
				d.Intent = intent(t, f, evidence.ExactRequest(d.Request), f.Validity, nil)
			},
			wantErr: fault.ErrMismatch, wantPath: "provenance.assessment",
		},
		"Host Authority": {
			wantFailure: "Reject Host authority",
			scenario:    "a re-bootstrapped Host Authority of the same domain without resource.delete",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Host = hostWith(t, f, func(h *authority.HostAuthorityDraft) {
					h.Capabilities = []string{"communication.external", "data.read", "data.write", "financial.transfer"}
				})
			},
			wantErr: fault.ErrMismatch, wantPath: "attestations[0].issuer",
		},
		"Role evidence": {
			wantFailure: "Reject attestation composition",
			scenario:    "one issuer identity attests the Security Context as authenticator and the Intent as capturer",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				f.Authn = grant(t, f, vocab.AuthenticationAuthority, "shared-issuer")
				f.Capture = grant(t, f, vocab.IntentCaptureAuthority, "shared-issuer")
				d.SecurityContext = context(t, f, f.Validity, nil)
				d.Intent = intent(t, f, evidence.ExactRequest(f.Request), f.Validity, nil)
			},
			wantErr: fault.ErrDuplicate, wantPath: "attestations[1].issuer",
		},
		"Security Context": {
			wantFailure: "Reject identity or freshness binding",
			scenario:    "the authentication expired exactly at the evaluation time",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.SecurityContext = context(t, f, window(t, notBefore, notBefore, evalTime), nil)
			},
			wantErr: fault.ErrExpired, wantPath: "securityContext.validity",
		},
		"Intent": {
			wantFailure: "Reject Intent binding",
			scenario:    "the Intent was captured for alice in another tenant",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Intent = intent(t, f, evidence.ExactRequest(f.Request), f.Validity, func(i *evidence.IntentDraft) {
					i.Identity.Tenant = "globex"
				})
			},
			wantErr: fault.ErrMismatch, wantPath: "intent.identity",
		},
		"Requested Capabilities": {
			wantFailure: "Reject Capability scope",
			scenario:    "the Host also asks for data.write, which the payments definition never grants",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedCapabilities = []string{"data.read", "data.write", "financial.transfer"}
			},
			wantErr: fault.ErrMismatch, wantPath: "requestedCapabilities",
		},
		"Requested Resources": {
			wantFailure: "Reject Resource scope",
			scenario:    "the Host requests only the creditor account, hiding the debtor account",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedResources = []string{"acct-1001"}
			},
			wantErr: fault.ErrMismatch, wantPath: "requestedResources",
		},
		"Provenance": {
			wantFailure: "Reject lineage binding",
			scenario:    "Provenance recorded for a second assessment of the same proposal",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Provenance = provenance(t, f, f.Validity, assess(t, f, "proposal-1", "assessment-2"), f.Identity)
			},
			wantErr: fault.ErrMismatch, wantPath: "provenance.assessment",
		},
		"Influence": {
			wantFailure: "Reject lineage binding",
			scenario:    "Influence collected for another subject's session",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				id := f.Identity.Draft()
				id.Subject = "mallory"
				d.Influence = influence(t, f, f.Validity, f.Assessment, identity(t, id))
			},
			wantErr: fault.ErrMismatch, wantPath: "influence.identity",
		},
		"Evaluation time": {
			wantFailure: "Reject stale or future evidence",
			scenario:    "the Host evaluates one second before any evidence is valid",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.EvaluationTime = at(t, notBefore-1)
			},
			wantErr: fault.ErrExpired, wantPath: "securityContext.validity",
		},
		"Renewal state": {
			wantFailure: "Reject renewal binding",
			scenario:    "the Host expects renewal generation 2 but the Intent is generation 1",
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.ExpectedRenewal = testutil.InputGeneration(t, 2)
			},
			wantErr: fault.ErrMismatch, wantPath: "expectedRenewal",
		},
	}

	rows := bindingRows(t)
	gotRows := map[string]string{}
	for fact, tc := range tests {
		gotRows[fact] = tc.wantFailure
	}
	if diff := cmp.Diff(rows, gotRows); diff != "" {
		t.Fatalf("test rows differ from the Section 17 binding table (-spec +test):\n%s", diff)
	}

	for fact, tc := range tests {
		t.Run(fact, func(t *testing.T) {
			t.Parallel()
			f := build(t)
			if _, err := evalinput.New(f.Boundary, f.Draft); err != nil {
				t.Fatalf("unchanged fixture: %v", err)
			}
			d := f.Draft
			tc.mutate(t, f, &d)
			in, err := evalinput.New(f.Boundary, d)
			checkReject(t, in, err, tc.wantErr, tc.wantPath)
		})
	}
}

// TestNewAcceptsTheCompleteFixture checks the complete default input binds
// exactly the pieces it was given (Section 17, "Evaluation Input binds the
// exact ..."), with the four attestations composed in identity order.
func TestNewAcceptsTheCompleteFixture(t *testing.T) {
	t.Parallel()
	in, f := testutil.NewInput(t)
	d := f.Draft
	checks := map[string]bool{
		"domain":           in.Domain().Same(f.Boundary.Domain()),
		"request":          in.Request() == d.Request,
		"assessment":       in.Assessment() == f.Assessment,
		"host":             in.Host() == d.Host,
		"security context": in.SecurityContext() == d.SecurityContext,
		"intent":           in.Intent() == d.Intent,
		"no delegation":    in.Delegation() == nil,
		"provenance":       in.Provenance() == d.Provenance,
		"influence":        in.Influence() == d.Influence,
		"composition host": in.Attestations().Host().Equal(d.Host),
		"composition time": in.Attestations().At() == d.EvaluationTime,
		"renewal":          in.RenewalGeneration() == d.ExpectedRenewal,
		"version":          in.Version() == vocab.V1,
		"digest":           !in.Digest().IsZero(),
	}
	for name, ok := range checks {
		if !ok {
			t.Errorf("%s: not bound exactly", name)
		}
	}
	var ids []string
	for _, a := range in.Attestations().Attestations() {
		ids = append(ids, a.ID().String())
	}
	want := []string{"context-attestation", "influence-attestation", "intent-attestation", "provenance-attestation"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("composed attestations (-want +got):\n%s", diff)
	}
	if !slices.Equal(in.RequestedResources(), f.Request.Resources()) {
		t.Errorf("RequestedResources = %v, want the request's %v", in.RequestedResources(), f.Request.Resources())
	}
}

// TestNewComposesRoleEvidence checks the "Role evidence" row beyond the
// binding-table example: attestation identities are unique, every issuer
// shares the input's one Host Authority ceiling, and an input holds 2–5
// attestations, within the Section 39 "Applicable validated attestations"
// range 1–16 (Security Context and Intent always; Delegation, Provenance
// and Influence when attested).
func TestNewComposesRoleEvidence(t *testing.T) {
	t.Parallel()
	noLineage := func(s *testutil.InputSpec) {
		s.Assessment.ProvenanceIDs, s.Assessment.InfluenceIDs = nil, nil
		s.Records, s.Collections, s.Nodes = nil, nil, nil
	}
	tests := map[string]struct {
		base     []specMod
		mutate   func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft)
		wantLen  int
		wantErr  error
		wantPath string
	}{
		"security context and intent only": {base: []specMod{noLineage}, wantLen: 2},
		"with provenance and influence":    {wantLen: 4},
		"with delegation, provenance and influence": {
			base: []specMod{delegated}, wantLen: 5,
		},
		"intent attested under the security context's attestation identity": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Intent = testutil.Must[*evidence.Intent](t)(evidence.NewIntent(f.Capture, testutil.InputContextAttestation,
					f.Validity, evidence.ExactRequest(f.Request), f.IntentDraft))
			},
			wantErr: fault.ErrDuplicate, wantPath: "attestations[1].id",
		},
		"provenance attested under another Host Authority of the domain": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				other := buildIn(t, f.Boundary, func(s *testutil.InputSpec) { s.Host.ID = "host-authority-2" })
				d.Provenance = other.Draft.Provenance
			},
			wantErr: fault.ErrMismatch, wantPath: "attestations[2].issuer",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, in, err := newChanged(t, tc.base, tc.mutate, tc.wantErr, tc.wantPath)
			if err == nil && in.Attestations().Len() != tc.wantLen {
				t.Errorf("%d attestations composed, want %d", in.Attestations().Len(), tc.wantLen)
			}
		})
	}
}

// TestInputFixtureVariantsAreValid guards testutil's Evaluation Input
// fixture, which other packages' tests reuse: every variant these tests
// build from it is a complete valid input before any change.
func TestInputFixtureVariantsAreValid(t *testing.T) {
	t.Parallel()
	tests := map[string][]specMod{
		"default":      nil,
		"delegated":    {delegated},
		"bounded-tool": {boundedTool},
		"renewed, delegated (the documented example)": {
			func(s *testutil.InputSpec) { s.Intent.RenewalGeneration = "2" }, delegated,
		},
		"resource-free":     {resourceFree},
		"every capability":  {everyCapability},
		"16 resources":      {audit(16)},
		"distinct ceilings": {distinctCeilings},
		"no lineage expected": {func(s *testutil.InputSpec) {
			s.Assessment.ProvenanceIDs, s.Assessment.InfluenceIDs = nil, nil
			s.Records, s.Collections, s.Nodes = nil, nil, nil
		}},
	}
	for name, mods := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := build(t, mods...)
			in, err := evalinput.New(f.Boundary, f.Draft)
			checkReject(t, in, err, nil, "")
		})
	}
}
