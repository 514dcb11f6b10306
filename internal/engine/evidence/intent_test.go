package evidence_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestNewIntentValidatesEveryField proves the Section 15 Intent binding and
// its Section 39 bounds: ceilings narrow but never enlarge (scope
// expansion), the target stays in one domain, renewal is positive and
// display text is bounded.
func TestNewIntentValidatesEveryField(t *testing.T) {
	t.Parallel()
	e, r := fixture(t)
	// A Host Authority with sixteen resources and without financial.transfer.
	narrow := authority.HostAuthorityDraft{
		ID: "host-authority", Capabilities: []string{"data.read"},
		Resources: append(repeatIDs("acct", 14), "acct-1001", "acct-2002"), Roles: []string{"intentCaptureAuthority"},
	}
	narrowCapture := captureWith(t, e.Boundary, narrow)
	twin := boundary.New("payments-host")
	foreignRequest := testutil.EvidenceRequest(t, twin)
	cases := map[string]struct {
		capture  *authority.RoleAuthority
		target   *evidence.Target
		modify   func(*evidence.IntentDraft)
		validity *epoch.Validity
		wantErr  error
		wantPath string
	}{
		"the fixture draft is accepted": {},
		"an intent identity of 64 octets is accepted": {
			modify: func(d *evidence.IntentDraft) { d.ID = strings.Repeat("i", 64) },
		},
		"an intent identity of 65 octets rejects": {
			modify:  func(d *evidence.IntentDraft) { d.ID = strings.Repeat("i", 65) },
			wantErr: fault.ErrMalformed, wantPath: "id",
		},
		"a tenant of 65 octets rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Identity.Tenant = strings.Repeat("t", 65) },
			wantErr: fault.ErrMalformed, wantPath: "identity.tenant",
		},
		"the zero target rejects": {
			target: &evidence.Target{}, wantErr: fault.ErrMissing, wantPath: "target",
		},
		"an exact-request target without a request rejects": {
			target: ptr(evidence.ExactRequest(nil)), wantErr: fault.ErrMissing, wantPath: "target.request",
		},
		"a request from an independently created same-description boundary is a mixed domain": {
			target: ptr(evidence.ExactRequest(foreignRequest)), wantErr: fault.ErrMixedDomain, wantPath: "target.request",
		},
		"no capability rejects (the ceiling is nonempty)": {
			modify:  func(d *evidence.IntentDraft) { d.Capabilities = nil },
			wantErr: fault.ErrMissing, wantPath: "capabilities",
		},
		"a narrower capability ceiling is accepted": {
			modify: func(d *evidence.IntentDraft) { d.Capabilities = []string{"data.read"} },
		},
		"eight capabilities are within the bound and reach the uniqueness check": {
			modify:  func(d *evidence.IntentDraft) { d.Capabilities = testutil.Capabilities(8) },
			wantErr: fault.ErrDuplicate, wantPath: "capabilities[5]",
		},
		"nine capabilities exceed the bound": {
			modify:  func(d *evidence.IntentDraft) { d.Capabilities = testutil.Capabilities(9) },
			wantErr: fault.ErrLimitExceeded, wantPath: "capabilities",
		},
		"a capability beyond the tool definition maximum is scope expansion": {
			modify:  func(d *evidence.IntentDraft) { d.Capabilities = []string{"data.read", "data.write"} },
			wantErr: fault.ErrMismatch, wantPath: "capabilities",
		},
		"a capability beyond the host authority is scope expansion": {
			capture: narrowCapture,
			modify:  func(d *evidence.IntentDraft) { d.Capabilities = []string{"financial.transfer"} },
			wantErr: fault.ErrMismatch, wantPath: "capabilities",
		},
		"no resource is accepted": {
			modify: func(d *evidence.IntentDraft) { d.Resources = nil },
		},
		"sixteen resources are accepted": {
			capture: narrowCapture,
			modify: func(d *evidence.IntentDraft) {
				d.Capabilities, d.Resources = []string{"data.read"}, narrow.Resources
			},
		},
		"seventeen resources exceed the bound": {
			capture: narrowCapture,
			modify: func(d *evidence.IntentDraft) {
				d.Capabilities, d.Resources = []string{"data.read"}, append(slices.Clone(narrow.Resources), "acct-3003")
			},
			wantErr: fault.ErrLimitExceeded, wantPath: "resources",
		},
		"a resource beyond the host authority is scope expansion": {
			modify:  func(d *evidence.IntentDraft) { d.Resources = []string{"acct-1001", "acct-9999"} },
			wantErr: fault.ErrMismatch, wantPath: "resources",
		},
		"a repeated resource rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Resources = []string{"acct-1001", "acct-1001"} },
			wantErr: fault.ErrDuplicate, wantPath: "resources[1]",
		},
		"renewal generation zero rejects": {
			modify:  func(d *evidence.IntentDraft) { d.RenewalGeneration = "0" },
			wantErr: fault.ErrMalformed, wantPath: "renewalGeneration",
		},
		"an absent renewal generation rejects": {
			modify:  func(d *evidence.IntentDraft) { d.RenewalGeneration = "" },
			wantErr: fault.ErrMalformed, wantPath: "renewalGeneration",
		},
		"absent display text is accepted": {
			modify: func(d *evidence.IntentDraft) { d.Display = "" },
		},
		"display text of 160 octets with edge spaces is accepted": {
			modify: func(d *evidence.IntentDraft) { d.Display = " " + strings.Repeat("x", 158) + " " },
		},
		"display text of 161 octets rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Display = strings.Repeat("x", 161) },
			wantErr: fault.ErrMalformed, wantPath: "display",
		},
		"non-printable display text rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Display = "pay\ninvoice" },
			wantErr: fault.ErrMalformed, wantPath: "display",
		},
		"a zero validity window rejects": {
			validity: &epoch.Validity{}, wantErr: fault.ErrMissing, wantPath: "attestation.validity",
		},
		"an agent-safe binding digest is accepted": {
			modify: func(d *evidence.IntentDraft) { d.Binding = "sha256:" + strings.Repeat("0f", 32) },
		},
		"a binding digest with uppercase hex rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Binding = "sha256:" + strings.Repeat("0F", 32) },
			wantErr: fault.ErrMalformed, wantPath: "binding",
		},
		"a binding digest one digit short rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Binding = "sha256:" + strings.Repeat("0", 63) },
			wantErr: fault.ErrMalformed, wantPath: "binding",
		},
		"a binding digest with another algorithm rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Binding = "sha512:" + strings.Repeat("0f", 32) },
			wantErr: fault.ErrMalformed, wantPath: "binding",
		},
		"the all-zero binding digest rejects": {
			modify:  func(d *evidence.IntentDraft) { d.Binding = "sha256:" + strings.Repeat("0", 64) },
			wantErr: fault.ErrOutOfRange, wantPath: "binding",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := e.IntentDraft
			if tc.modify != nil {
				tc.modify(&d)
			}
			capture, target, v := e.Capture, evidence.ExactRequest(r), e.Validity
			if tc.capture != nil {
				capture = tc.capture
			}
			if tc.target != nil {
				target = *tc.target
			}
			if tc.validity != nil {
				v = *tc.validity
			}
			in, err := evidence.NewIntent(capture, "intent-attestation", v, target, d)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if (err == nil) == (in == nil) {
				t.Errorf("NewIntent returned %v with error %v: want exactly one", in, err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// repeatIDs returns n distinct identities "prefix-0" … "prefix-(n-1)".
func repeatIDs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + "-" + string(rune('a'+i))
	}
	return out
}

// TestBoundedToolTargetIsSnapshotBound proves a bounded-tool target names a
// definition that is part of its exact snapshot (content equality, not
// identity).
func TestBoundedToolTargetIsSnapshotBound(t *testing.T) {
	t.Parallel()
	snap := testutil.Publish(t, testutil.RegistryDraft(testutil.PaymentsDefinition()))
	republished := testutil.Publish(t, testutil.RegistryDraft(testutil.PaymentsDefinition()))
	changed := testutil.Publish(t, testutil.RegistryDraft(testutil.PaymentsDefinition(func(d *registry.DefinitionDraft) {
		d.Title = "Submit a payment now"
	})))
	cases := map[string]struct {
		s        *registry.Snapshot
		d        *registry.Definition
		wantErr  error
		wantPath string
	}{
		"a definition of the snapshot is accepted":               {s: snap, d: snap.Definition(0)},
		"a content-equal definition published again is accepted": {s: snap, d: republished.Definition(0)},
		"a same-identity definition with other content is not part of the snapshot": {
			s: snap, d: changed.Definition(0), wantErr: fault.ErrMismatch, wantPath: "definition",
		},
		"a missing snapshot rejects":   {d: snap.Definition(0), wantErr: fault.ErrMissing, wantPath: "snapshot"},
		"a missing definition rejects": {s: snap, wantErr: fault.ErrMissing, wantPath: "definition"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg, err := evidence.BoundedTool(tc.s, tc.d)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if err == nil && (tg.Kind() != vocab.TargetBoundedTool || tg.Request() != nil || tg.Snapshot() != tc.s) {
				t.Error("a bounded-tool target retains its exact snapshot and definition and no request")
			}
		})
	}
}

// TestIntentMatchesOnlyItsExactTarget proves Section 15 target rules: a
// request-bound Intent is never reused for a different Canonical Request or
// domain, and a bounded-tool Intent applies only to its exact Snapshot-bound
// definition.
func TestIntentMatchesOnlyItsExactTarget(t *testing.T) {
	t.Parallel()
	e, r := fixture(t)
	snap := r.Snapshot()
	twin := boundary.New("payments-host")
	sameInTwin := testutil.EvidenceRequest(t, twin)
	lookupDef := testutil.Definition("accounts-lookup-1", "accounts.lookup", "1")
	wider := testutil.Publish(t, testutil.RegistryDraft(testutil.PaymentsDefinition(), lookupDef))
	lookup, err := request.New(wider, request.Proposal{ProposalID: "proposal-1", ToolID: "accounts.lookup", Version: "1",
		Arguments: []byte(`{}`)}, testutil.Assess(t, e.Boundary, "proposal-1"))
	if err != nil {
		t.Fatal(err)
	}
	paymentsInWider, err := request.New(wider, request.Proposal{ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1",
		Arguments: []byte(testutil.PaymentsArguments)}, testutil.Assess(t, e.Boundary, "proposal-1"))
	if err != nil {
		t.Fatal(err)
	}
	bounded, err := evidence.BoundedTool(snap, r.Definition())
	if err != nil {
		t.Fatal(err)
	}
	boundedIntent, err := evidence.NewIntent(e.Capture, "intent-attestation", e.Validity, bounded, e.IntentDraft)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		intent      *evidence.Intent
		r           *request.CanonicalRequest
		wantTarget  bool
		wantMatches bool
	}{
		"an exact-request intent matches its request": {
			intent: e.Intent, r: r, wantTarget: true, wantMatches: true,
		},
		"an exact-request intent does not match another request for the same definition": {
			intent: e.Intent, r: otherRequest(t, e.Boundary, snap),
		},
		"an exact-request intent does not match the same content in another domain": {
			intent: e.Intent, r: sameInTwin,
		},
		"an exact-request intent does not match a nil request": {intent: e.Intent},
		"a bounded-tool intent matches any request for its definition and snapshot": {
			intent: boundedIntent, r: otherRequest(t, e.Boundary, snap), wantTarget: true, wantMatches: true,
		},
		"a bounded-tool intent does not match another tool": {
			intent: boundedIntent, r: lookup,
		},
		"a bounded-tool intent does not match its definition in another snapshot": {
			intent: boundedIntent, r: paymentsInWider,
		},
		"a bounded-tool intent's target matches another domain's request but the intent does not": {
			intent: boundedIntent, r: sameInTwin, wantTarget: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.intent.Target().Matches(tc.r); got != tc.wantTarget {
				t.Errorf("Target().Matches = %v, want %v", got, tc.wantTarget)
			}
			if got := tc.intent.Matches(tc.r); got != tc.wantMatches {
				t.Errorf("Matches = %v, want %v", got, tc.wantMatches)
			}
		})
	}
	if (evidence.Target{}).Matches(r) || !(evidence.Target{}).IsZero() {
		t.Error("the zero target matches nothing")
	}
}

// TestIntentExposesNormalizedBoundValues proves deterministic set
// representation (Section 50) and that accessors return copies.
func TestIntentExposesNormalizedBoundValues(t *testing.T) {
	t.Parallel()
	e, r := fixture(t)
	in := e.Intent
	if diff := cmp.Diff([]vocab.Capability{vocab.DataRead, vocab.FinancialTransfer}, in.Capabilities()); diff != "" {
		t.Errorf("Capabilities (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(r.Resources(), in.Resources(), cmp.Comparer(func(a, b ident.Resource) bool { return a == b })); diff != "" {
		t.Errorf("Resources (-want +got):\n%s", diff)
	}
	if in.ID().String() != "intent-1" || !in.Identity().Equal(e.Identity) || in.Renewal().Uint64() != 1 ||
		in.Display().String() != "Pay invoice 2026-114" || in.Version() != vocab.V1 || in.Validity() != e.Validity ||
		!in.Domain().Same(e.Boundary.Domain()) || in.Target().Kind() != vocab.TargetExactRequest || in.Target().Request() != r ||
		in.Target().Definition() != r.Definition() {
		t.Error("accessors must report the bound values")
	}
	a := in.Attestation()
	if a.Fact() != vocab.FactUserIntent || !a.Issuer().Equal(e.Capture.Identity()) || a.ID().String() != "intent-attestation" {
		t.Error("the attestation must be the intent-capture authority's userIntent attestation")
	}
	in.Capabilities()[0] = vocab.ResourceDelete
	in.Resources()[0] = ident.Resource{}
	if in.Capabilities()[0] != vocab.DataRead || in.Resources()[0].IsZero() {
		t.Error("accessors must return copies")
	}
	d := e.IntentDraft
	d.Capabilities = []string{"financial.transfer", "data.read"}
	d.Resources = []string{"acct-2002", "acct-1001"}
	again, err := evidence.NewIntent(e.Capture, "intent-attestation", e.Validity, evidence.ExactRequest(r), d)
	if err != nil || !in.Equal(again) {
		t.Errorf("ceiling input order must not change the intent: %v", err)
	}
}

// TestIntentSameIdentityDifferentContentIsNotEqual proves same-identity
// substitution is detected for every bound Intent value.
func TestIntentSameIdentityDifferentContentIsNotEqual(t *testing.T) {
	t.Parallel()
	e, r := fixture(t)
	bounded, err := evidence.BoundedTool(r.Snapshot(), r.Definition())
	if err != nil {
		t.Fatal(err)
	}
	later := testutil.EvidenceValidity(t, 1000, 1000, 2001)
	cases := map[string]struct {
		target   *evidence.Target
		modify   func(*evidence.IntentDraft)
		validity *epoch.Validity
	}{
		"bounded-tool target":   {target: &bounded},
		"another exact request": {target: ptr(evidence.ExactRequest(otherRequest(t, e.Boundary, r.Snapshot())))},
		"narrower capabilities": {modify: func(d *evidence.IntentDraft) { d.Capabilities = []string{"data.read"} }},
		"narrower resources":    {modify: func(d *evidence.IntentDraft) { d.Resources = []string{"acct-1001"} }},
		"renewal generation":    {modify: func(d *evidence.IntentDraft) { d.RenewalGeneration = "2" }},
		"display text":          {modify: func(d *evidence.IntentDraft) { d.Display = "Pay invoice 2026-115" }},
		"absent display text":   {modify: func(d *evidence.IntentDraft) { d.Display = "" }},
		"subject":               {modify: func(d *evidence.IntentDraft) { d.Identity.Subject = "bob" }},
		"session independence":  {modify: func(d *evidence.IntentDraft) { d.Identity.Session, d.Identity.SessionIndependent = "", true }},
		"validity":              {validity: &later},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := e.IntentDraft
			if tc.modify != nil {
				tc.modify(&d)
			}
			target, v := evidence.ExactRequest(r), e.Validity
			if tc.target != nil {
				target = *tc.target
			}
			if tc.validity != nil {
				v = *tc.validity
			}
			in, err := evidence.NewIntent(e.Capture, "intent-attestation", v, target, d)
			if err != nil {
				t.Fatal(err)
			}
			checkContentDiffers(t, e.Intent, in)
		})
	}
	if e.Intent.Equal(nil) {
		t.Error("nil equals nothing")
	}
}

// TestIntentBindsTheAgentSafeDigest: the agent-safe binding is part of the
// Intent's complete content, so two Intents that differ only in it are
// different evidence, and the bound digest reads back exactly.
func TestIntentBindsTheAgentSafeDigest(t *testing.T) {
	t.Parallel()
	e, r := fixture(t)
	build := func(binding string) *evidence.Intent {
		d := e.IntentDraft
		d.Binding = binding
		in, err := evidence.NewIntent(e.Capture, "intent-attestation", e.Validity, evidence.ExactRequest(r), d)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	none, a, b := build(""), build("sha256:"+strings.Repeat("ab", 32)), build("sha256:"+strings.Repeat("ab", 31)+"ac")
	if _, ok := none.Binding(); ok {
		t.Error("an intent without a binding reports one")
	}
	if got, ok := a.Binding(); !ok || got.String() != "sha256:"+strings.Repeat("ab", 32) {
		t.Errorf("Binding() = %v, %v", got, ok)
	}
	if none.Equal(a) || a.Equal(b) || a.Digest().Equal(b.Digest()) {
		t.Error("intents differing only in their agent-safe binding must differ")
	}
}
