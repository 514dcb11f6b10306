package evalinput_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// exportAll lets cmp compare the engine's controlled values, whose fields
// are unexported, by content.
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

// distinctCeilings makes every ceiling and time the Facts expose different
// from its neighbours, so a view reading the wrong source is caught: Host
// Resources exceed the Intent's, the Intent's Capabilities exceed the
// request, and the Security Context and Intent were issued at different
// times.
func distinctCeilings(s *testutil.InputSpec) {
	s.Host.Resources = []string{"acct-1001", "acct-2002", "acct-3003"}
	s.RequestedCapabilities = []string{"financial.transfer"}
}

// TestInputExposesPolicyFacts compares every policy fact accessor with the
// evidence it must be read from (Section 17: the input carries
// "authenticated ceilings and exact request facts into later policy
// evaluation").
func TestInputExposesPolicyFacts(t *testing.T) {
	t.Parallel()
	f := build(t, distinctCeilings)
	d := f.Draft
	d.SecurityContext = context(t, f, window(t, 900, notBefore, expiresAt), nil)
	d.Intent = intent(t, f, evidence.ExactRequest(f.Request), window(t, 950, notBefore, expiresAt), nil)
	in := testutil.Must[*evalinput.Input](t)(evalinput.New(f.Boundary, d))
	again := testutil.Must[*evalinput.Input](t)(evalinput.New(f.Boundary, d))
	def := f.Request.Definition()

	var wantRecords []evalinput.ProvenanceFact
	for _, r := range d.Provenance.Records() {
		wantRecords = append(wantRecords, evalinput.ProvenanceFact{Source: r.Source(), Trust: r.Trust(), Transformations: r.Transformations()})
	}
	var wantCollections []evalinput.InfluenceCollectionFact
	for _, c := range d.Influence.Collections() {
		wantCollections = append(wantCollections, evalinput.InfluenceCollectionFact{Boundary: c.Boundary(), Completeness: c.Completeness()})
	}
	var wantKinds []vocab.InfluenceKind
	for _, n := range d.Influence.Nodes() {
		wantKinds = append(wantKinds, n.Kind())
	}
	facts := in
	tests := map[string]struct{ got, want any }{
		"Domain":                     {facts.Domain().Same(f.Boundary.Domain()), true},
		"Digest":                     {facts.Digest(), again.Digest()},
		"Version":                    {facts.Version(), vocab.V1},
		"ToolID":                     {facts.ToolID(), def.ToolID()},
		"ToolVersion":                {facts.ToolVersion(), def.Version()},
		"DefinitionID":               {facts.DefinitionID(), def.ID()},
		"RegistrySnapshotID":         {facts.RegistrySnapshotID(), f.Snapshot.ID()},
		"RegistrySnapshotGeneration": {facts.RegistrySnapshotGeneration(), f.Snapshot.Generation()},
		"Lifecycle":                  {facts.Lifecycle(), def.Lifecycle()},
		"Risk":                       {facts.Risk(), def.Risk()},
		"SideEffect":                 {facts.SideEffect(), def.SideEffect()},
		"Reversibility":              {facts.Reversibility(), def.Reversibility()},
		"Identity":                   {facts.Identity(), d.SecurityContext.Identity()},
		"Assurance":                  {facts.Assurance(), d.SecurityContext.Assurance()},
		"AuthMethods":                {facts.AuthMethods(), d.SecurityContext.Methods()},
		"RequestedCapabilities":      {facts.RequestedCapabilities(), []vocab.Capability{vocab.FinancialTransfer}},
		"RequestedResources":         {facts.RequestedResources(), f.Request.Resources()},
		"IntendedCapabilities":       {facts.IntendedCapabilities(), d.Intent.Capabilities()},
		"HostCapabilities":           {facts.HostCapabilities(), d.Host.Capabilities()},
		"HostResources":              {facts.HostResources(), d.Host.Resources()},
		"ProvenanceCoverage":         {facts.ProvenanceCoverage(), d.Provenance.Coverage()},
		"ProvenanceRecords":          {facts.ProvenanceRecords(), wantRecords},
		"InfluenceCollections":       {facts.InfluenceCollections(), wantCollections},
		"InfluenceKinds":             {facts.InfluenceKinds(), wantKinds},
		"EvaluationTime":             {facts.EvaluationTime(), d.EvaluationTime},
		"IntentIssuedAt":             {facts.IntentIssuedAt(), at(t, 950)},
		"ContextIssuedAt":            {facts.ContextIssuedAt(), at(t, 900)},
		"RenewalGeneration":          {facts.RenewalGeneration(), d.Intent.Renewal()},

		// The index accessors read exactly what the copying accessors return.
		"NumAuthMethods":               {facts.NumAuthMethods(), len(d.SecurityContext.Methods())},
		"AuthMethodAt":                 {collect(facts.NumAuthMethods(), facts.AuthMethodAt), d.SecurityContext.Methods()},
		"NumRequestedCapabilities":     {facts.NumRequestedCapabilities(), 1},
		"RequestedCapabilityAt":        {collect(facts.NumRequestedCapabilities(), facts.RequestedCapabilityAt), []vocab.Capability{vocab.FinancialTransfer}},
		"NumRequestedResources":        {facts.NumRequestedResources(), len(f.Request.Resources())},
		"RequestedResourceAt":          {collect(facts.NumRequestedResources(), facts.RequestedResourceAt), f.Request.Resources()},
		"NumIntendedCapabilities":      {facts.NumIntendedCapabilities(), len(d.Intent.Capabilities())},
		"IntendedCapabilityAt":         {collect(facts.NumIntendedCapabilities(), facts.IntendedCapabilityAt), d.Intent.Capabilities()},
		"NumHostCapabilities":          {facts.NumHostCapabilities(), len(d.Host.Capabilities())},
		"HostCapabilityAt":             {collect(facts.NumHostCapabilities(), facts.HostCapabilityAt), d.Host.Capabilities()},
		"NumHostResources":             {facts.NumHostResources(), len(d.Host.Resources())},
		"HostResourceAt":               {collect(facts.NumHostResources(), facts.HostResourceAt), d.Host.Resources()},
		"NumProvenanceRecords":         {facts.NumProvenanceRecords(), len(wantRecords)},
		"ProvenanceRecordAt":           {indexedRecords(facts), wantRecords},
		"NumProvenanceTransformations": {indexedRecords(facts), wantRecords},
		"ProvenanceTransformationAt":   {indexedRecords(facts), wantRecords},
		"NumInfluenceCollections":      {facts.NumInfluenceCollections(), len(wantCollections)},
		"InfluenceCollectionAt":        {collect(facts.NumInfluenceCollections(), facts.InfluenceCollectionAt), wantCollections},
		"NumInfluenceKinds":            {facts.NumInfluenceKinds(), len(wantKinds)},
		"InfluenceKindAt":              {collect(facts.NumInfluenceKinds(), facts.InfluenceKindAt), wantKinds},

		// The Summary holds the single-valued facts above, read here from
		// the evidence, each identifier with its hash.
		"Summary": {facts.Summary().Summary(), evalinput.Summary{
			ToolID:             identifierOf(def.ToolID().String()),
			DefinitionID:       identifierOf(def.ID().String()),
			RegistrySnapshotID: identifierOf(f.Snapshot.ID().String()),
			Subject:            identifierOf(d.SecurityContext.Identity().Subject().String()),
			Tenant:             identifierOf(d.SecurityContext.Identity().Tenant().String()),
			Session:            identifierOf(d.SecurityContext.Identity().Session().ID().String()),
			Delegation:         identifierOf(d.SecurityContext.Identity().Delegation().String()),
			ToolVersion:        def.Version().Uint64(), RegistrySnapshotGeneration: f.Snapshot.Generation().Uint64(),
			RenewalGeneration: d.Intent.Renewal().Uint64(),
			EvaluationTime:    d.EvaluationTime, IntentIssuedAt: at(t, 950), ContextIssuedAt: at(t, 900),
			NumProvenanceRecords: len(wantRecords), NumInfluenceKinds: len(wantKinds),
			Lifecycle: def.Lifecycle(), Risk: def.Risk(), SideEffect: def.SideEffect(), Reversibility: def.Reversibility(),
			Assurance: d.SecurityContext.Assurance(), Coverage: d.Provenance.Coverage(),
			SessionIndependent: d.SecurityContext.Identity().Session().IsIndependent(),
			Delegated:          !d.SecurityContext.Identity().Delegation().IsZero(),
			Masks: testutil.InputFactMasks(d.SecurityContext.Methods(), []vocab.Capability{vocab.FinancialTransfer},
				d.Intent.Capabilities(), d.Host.Capabilities(), wantRecords, wantCollections, wantKinds),
		}},
		"RequestedResourceHashAt": {collect(facts.NumRequestedResources(), facts.RequestedResourceHashAt), resourceHashes(f.Request.Resources())},

		// The masks are the same collections as bit sets.
		"FactMasks": {facts.FactMasks(), testutil.InputFactMasks(d.SecurityContext.Methods(), []vocab.Capability{vocab.FinancialTransfer},
			d.Intent.Capabilities(), d.Host.Capabilities(), wantRecords, wantCollections, wantKinds)},
	}
	// Every accessor is either a policy fact with an expectation above or
	// one of the bound values themselves.
	bound := map[string]bool{
		"Request": true, "Assessment": true, "Host": true, "Attestations": true, "SecurityContext": true,
		"Intent": true, "Delegation": true, "Provenance": true, "Influence": true, "IntendedResources": true, "Equal": true,
	}
	ft := reflect.TypeFor[*evalinput.Input]()
	for i := range ft.NumMethod() {
		if _, ok := tests[ft.Method(i).Name]; !ok && !bound[ft.Method(i).Name] {
			t.Errorf("evalinput.Input method %s has no expectation", ft.Method(i).Name)
		}
	}
	for name, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.got, exportAll); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}

	// The evidence the expectations were read from holds what the fixture
	// describes, so the comparison above is not vacuous.
	literal := map[string]struct{ got, want any }{
		"trust of prov-accounts, prov-memo": {
			[]vocab.Trust{in.ProvenanceRecords()[0].Trust, in.ProvenanceRecords()[1].Trust},
			[]vocab.Trust{vocab.TrustHostVerified, vocab.TrustUntrusted},
		},
		"influence kinds in node order n-email, n-model, n-prompt": {
			in.InfluenceKinds(), []vocab.InfluenceKind{vocab.InfluenceEmail, vocab.InfluenceModelOutput, vocab.InfluenceUserPrompt},
		},
		"collection chat-session complete": {
			in.InfluenceCollections(), []evalinput.InfluenceCollectionFact{{
				Boundary: testutil.Must[ident.ControlledID](t)(ident.ParseControlledID("chat-session")), Completeness: vocab.CompletenessComplete,
			}},
		},
		"intended resources": {strs(in.IntendedResources()), []string{"acct-1001", "acct-2002"}},
		"host resources":     {strs(in.HostResources()), []string{"acct-1001", "acct-2002", "acct-3003"}},
		"requested resources": {
			strs(in.RequestedResources()), []string{"acct-1001", "acct-2002"},
		},
		"intended capabilities": {strs(in.IntendedCapabilities()), []string{"data.read", "financial.transfer"}},
		"host capabilities":     {strs(in.HostCapabilities()), allCapabilities},
		"tool":                  {in.ToolID().String() + "@" + in.ToolVersion().String(), "payments.submit@1"},
	}
	for name, tc := range literal {
		if diff := cmp.Diff(tc.want, tc.got, exportAll); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestInputFactsWithUnknownLineage checks the facts of an input whose
// assessment expects no lineage: unknown Provenance coverage and no
// Influence collection are reported as such, never as trusted or complete
// (P-013).
func TestInputFactsWithUnknownLineage(t *testing.T) {
	t.Parallel()
	f := build(t, func(s *testutil.InputSpec) {
		s.Assessment.ProvenanceIDs, s.Assessment.InfluenceIDs = nil, nil
		s.Records, s.Collections, s.Nodes = nil, nil, nil
	})
	in := f.New(t)
	got := []any{in.ProvenanceCoverage(), in.ProvenanceRecords(), in.InfluenceCollections(), in.InfluenceKinds(), in.Attestations().Len()}
	want := []any{vocab.CoverageUnknown, []evalinput.ProvenanceFact(nil), []evalinput.InfluenceCollectionFact(nil), []vocab.InfluenceKind(nil), 2}
	if diff := cmp.Diff(want, got, exportAll); diff != "" {
		t.Errorf("unknown lineage facts (-want +got):\n%s", diff)
	}
}

// TestInputReturnsCopies scribbles over every slice an Input returns and
// checks that the Input, and its digest, are unchanged (the input is
// immutable, Section 17).
func TestInputReturnsCopies(t *testing.T) {
	t.Parallel()
	tests := map[string]func(in *evalinput.Input){
		"RequestedCapabilities": func(in *evalinput.Input) { clear(in.RequestedCapabilities()) },
		"RequestedResources":    func(in *evalinput.Input) { clear(in.RequestedResources()) },
		"AuthMethods":           func(in *evalinput.Input) { clear(in.AuthMethods()) },
		"IntendedCapabilities":  func(in *evalinput.Input) { clear(in.IntendedCapabilities()) },
		"IntendedResources":     func(in *evalinput.Input) { clear(in.IntendedResources()) },
		"HostCapabilities":      func(in *evalinput.Input) { clear(in.HostCapabilities()) },
		"HostResources":         func(in *evalinput.Input) { clear(in.HostResources()) },
		"ProvenanceRecords":     func(in *evalinput.Input) { clear(in.ProvenanceRecords()) },
		"ProvenanceRecords transformations": func(in *evalinput.Input) {
			for _, r := range in.ProvenanceRecords() {
				clear(r.Transformations)
			}
		},
		"InfluenceCollections":     func(in *evalinput.Input) { clear(in.InfluenceCollections()) },
		"InfluenceKinds":           func(in *evalinput.Input) { clear(in.InfluenceKinds()) },
		"Attestations":             func(in *evalinput.Input) { clear(in.Attestations().Attestations()) },
		"Provenance records":       func(in *evalinput.Input) { clear(in.Provenance().Records()) },
		"Influence nodes":          func(in *evalinput.Input) { clear(in.Influence().Nodes()) },
		"request canonical bytes":  func(in *evalinput.Input) { clear(in.Request().Bytes()) },
		"request derived Resource": func(in *evalinput.Input) { clear(in.Request().Resources()) },
	}
	view := func(in *evalinput.Input) any {
		return []any{
			in.RequestedCapabilities(), in.RequestedResources(), in.AuthMethods(), in.IntendedCapabilities(),
			in.IntendedResources(), in.HostCapabilities(), in.HostResources(), in.ProvenanceRecords(),
			in.InfluenceCollections(), in.InfluenceKinds(), in.Attestations().Digest(), in.Provenance().Records(),
			in.Influence().Nodes(), in.Request().Bytes(), in.Request().Resources(),
		}
	}
	for name, scribble := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// ref is a second input from the same pieces: a view taken of
			// in itself could share memory with what the scribble changes.
			in, f := testutil.NewInput(t)
			ref := f.New(t)
			scribble(in)
			if diff := cmp.Diff(view(ref), view(in), exportAll); diff != "" {
				t.Errorf("the input changed through a returned slice (-want +got):\n%s", diff)
			}
			if !in.Digest().Equal(ref.Digest()) {
				t.Error("the digest changed")
			}
		})
	}
}

// TestDigestCoversEveryBoundValue changes one bound value at a time such
// that the input stays valid, and checks that the digest changes; a change
// of presentation only (order) leaves it unchanged (Section 7.10: complete
// content, not identifiers; Section 17: every bound value).
//
// The base input names a delegation and holds a bounded-tool Intent so
// that the request can change alone. Some values cannot change alone
// without invalidating the input; they change together with the value
// they must equal (named in the row).
func TestDigestCoversEveryBoundValue(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		base       func(d *evalinput.Draft) // applied to the base input and before mutate; optional
		mutate     func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft)
		wantChange bool
	}{
		"request: another amount": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Request = requestWith(t, f, "proposal-1", otherAmount, f.Assessment)
			},
			wantChange: true,
		},
		"request and requested resources: another derived Resource set": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Request = requestWith(t, f, "proposal-1",
					`{"currency":"eur","amount":1,"debtor-account":"acct-1001","creditor-account":"acct-1001"}`, f.Assessment)
				d.RequestedResources = []string{"acct-1001"}
			},
			wantChange: true,
		},
		"host authority: another identity, every piece re-attested under it": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				*d = buildIn(t, f.Boundary, delegated, boundedTool, func(s *testutil.InputSpec) { s.Host.ID = "host-authority-2" }).Draft
			},
			wantChange: true,
		},
		"security context: one authentication method fewer": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.SecurityContext = context(t, f, f.Validity, func(c *evidence.SecurityContextDraft) {
					c.Methods = []string{"possessionFactor"}
				})
			},
			wantChange: true,
		},
		"security context: issued earlier": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.SecurityContext = context(t, f, window(t, notBefore-1, notBefore, expiresAt), nil)
			},
			wantChange: true,
		},
		"intent: another display text": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Intent = intent(t, f, d.Intent.Target(), f.Validity, func(i *evidence.IntentDraft) { i.Display = "Pay invoice 2026-115" })
			},
			wantChange: true,
		},
		"intent and expected renewal: renewed to generation 2": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Intent = intent(t, f, d.Intent.Target(), f.Validity, func(i *evidence.IntentDraft) { i.RenewalGeneration = "2" })
				d.ExpectedRenewal = generation(2)
			},
			wantChange: true,
		},
		"delegation: expires later": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				d.Delegation = delegation(t, f, window(t, notBefore, notBefore, expiresAt+1), *f.Spec.Delegation)
			},
			wantChange: true,
		},
		"provenance: memo record verified by the Host": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				f.Spec.Records = append(f.Spec.Records[:1:1], f.Spec.Records[1])
				f.Spec.Records[1].Verification = "hostVerified"
				d.Provenance = provenance(t, f, f.Validity, f.Assessment, f.Identity)
			},
			wantChange: true,
		},
		"influence: collection only partial": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				f.Spec.Collections = []lineage.CollectionDraft{{Boundary: "chat-session", Completeness: "partial"}}
				d.Influence = influence(t, f, f.Validity, f.Assessment, f.Identity)
			},
			wantChange: true,
		},
		"requested capabilities: narrower": {
			mutate: func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedCapabilities = []string{"financial.transfer"}
			},
			wantChange: true,
		},
		"requested capabilities: as many, another member": {
			base: func(d *evalinput.Draft) { d.RequestedCapabilities = []string{"financial.transfer"} },
			mutate: func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedCapabilities = []string{"data.read"}
			},
			wantChange: true,
		},
		"evaluation time: one second later": {
			mutate: func(t *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
				d.EvaluationTime = at(t, evalTime+1)
			},
			wantChange: true,
		},
		"requested capabilities: same set, other order": {
			mutate: func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedCapabilities = []string{"data.read", "financial.transfer"}
			},
		},
		"requested resources: same set, other order": {
			mutate: func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedResources = []string{"acct-2002", "acct-1001"}
			},
		},
		"every piece rebuilt independently from the same drafts": {
			mutate: func(t *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				*d = testutil.BuildInput(t, f.Boundary, f.Spec).Draft
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := build(t, delegated, boundedTool)
			if tc.base != nil {
				tc.base(&f.Draft)
			}
			base := f.New(t)
			d := f.Draft
			tc.mutate(t, f, &d)
			in, err := evalinput.New(f.Boundary, d)
			if err != nil {
				t.Fatalf("the changed input must stay valid: %v", err)
			}
			if changed := !in.Digest().Equal(base.Digest()); changed != tc.wantChange {
				t.Errorf("digest changed = %t, want %t", changed, tc.wantChange)
			}
			if equal := in.Equal(base); equal == tc.wantChange {
				t.Errorf("Equal = %t, want %t", equal, !tc.wantChange)
			}
		})
	}
}

// TestEqualIsCompleteContentInOneDomain checks Input.Equal: the same
// domain and the same complete content, whatever object identities carry
// it (Section 13: independently created boundaries are never equivalent).
func TestEqualIsCompleteContentInOneDomain(t *testing.T) {
	t.Parallel()
	b := boundary.New("payments-host")
	f := buildIn(t, b)
	in := f.New(t)
	tests := map[string]struct {
		other       func(t *testing.T) *evalinput.Input
		wantEqual   bool
		wantSameSum bool
	}{
		"the same input": {
			other: func(*testing.T) *evalinput.Input { return in }, wantEqual: true, wantSameSum: true,
		},
		"built twice from the same pieces": {
			other: func(t *testing.T) *evalinput.Input { return f.New(t) }, wantEqual: true, wantSameSum: true,
		},
		"pieces built again from the same drafts in the same domain": {
			other: func(t *testing.T) *evalinput.Input { return buildIn(t, b).New(t) }, wantEqual: true, wantSameSum: true,
		},
		// The domain has no content: the digests agree, Equal does not.
		"the same drafts in another domain": {
			other: func(t *testing.T) *evalinput.Input { return buildIn(t, boundary.New("payments-host")).New(t) }, wantSameSum: true,
		},
		"nil": {
			other: func(*testing.T) *evalinput.Input { return nil },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := tc.other(t)
			if got := in.Equal(o); got != tc.wantEqual {
				t.Errorf("Equal(in, other) = %t, want %t", got, tc.wantEqual)
			}
			if got := o.Equal(in); got != tc.wantEqual {
				t.Errorf("Equal(other, in) = %t, want %t", got, tc.wantEqual)
			}
			if o != nil {
				if got := o.Digest().Equal(in.Digest()); got != tc.wantSameSum {
					t.Errorf("digests equal = %t, want %t", got, tc.wantSameSum)
				}
			}
		})
	}
}

// collect reads the n values at(0), …, at(n-1).
func collect[T any](n int, at func(int) T) []T {
	var out []T
	for i := range n {
		out = append(out, at(i))
	}
	return out
}

// indexedRecords reads every Provenance record through the index accessors.
func indexedRecords(in *evalinput.Input) []evalinput.ProvenanceFact {
	var out []evalinput.ProvenanceFact
	for i := range in.NumProvenanceRecords() {
		s, tr := in.ProvenanceRecordAt(i)
		out = append(out, evalinput.ProvenanceFact{
			Source: s, Trust: tr,
			Transformations: collect(in.NumProvenanceTransformations(i), func(j int) vocab.Transformation {
				return in.ProvenanceTransformationAt(i, j)
			}),
		})
	}
	return out
}

func identifierOf(s string) evalinput.Identifier {
	return evalinput.Identifier{Text: s, Hash: evalinput.HashIdentifier(s)}
}

func resourceHashes[T interface{ String() string }](rs []T) []uint64 {
	var out []uint64
	for _, r := range rs {
		out = append(out, evalinput.HashIdentifier(r.String()))
	}
	return out
}

// TestHashIdentifier: HashIdentifier is 64-bit FNV-1a (its published
// test vectors).
func TestHashIdentifier(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]uint64{"": 0xcbf29ce484222325, "a": 0xaf63dc4c8601ec8c, "foobar": 0x85944171f73967e8} {
		if got := evalinput.HashIdentifier(s); got != want {
			t.Errorf("HashIdentifier(%q) = %#x, want %#x", s, got, want)
		}
	}
}

// TestSummaryViewReadsItsSummary: every method of a SummaryView returns
// the field of its name.
func TestSummaryViewReadsItsSummary(t *testing.T) {
	t.Parallel()
	f := build(t, distinctCeilings)
	in := testutil.Must[*evalinput.Input](t)(evalinput.New(f.Boundary, f.Draft))
	view := in.Summary()
	sum := reflect.ValueOf(view.Summary())
	vt := reflect.TypeFor[evalinput.SummaryView]()
	if vt.NumMethod() != sum.NumField()+1 {
		t.Errorf("SummaryView has %d methods for %d fields", vt.NumMethod(), sum.NumField())
	}
	for i := range vt.NumMethod() {
		m := vt.Method(i)
		if m.Name == "Summary" {
			continue
		}
		field := sum.FieldByName(m.Name)
		if !field.IsValid() {
			t.Errorf("SummaryView.%s reads no field of that name", m.Name)
			continue
		}
		got := reflect.ValueOf(view).Method(i).Call(nil)[0].Interface()
		if diff := cmp.Diff(field.Interface(), got, exportAll); diff != "" {
			t.Errorf("SummaryView.%s (-field +method):\n%s", m.Name, diff)
		}
	}
	if !reflect.DeepEqual(evalinput.ViewOf(view.Summary()).Summary(), view.Summary()) {
		t.Error("ViewOf does not read its Summary")
	}
}
