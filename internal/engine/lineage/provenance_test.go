package lineage_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// provInput is one complete NewProvenance call.
type provInput struct {
	authority     *authority.RoleAuthority
	attestationID string
	validity      epoch.Validity
	assessment    *assessment.Assessment
	identity      principal.Identity
	records       []lineage.RecordDraft
}

func (in provInput) build() (*lineage.Provenance, error) {
	return lineage.NewProvenance(in.authority, in.attestationID, in.validity, in.assessment, in.identity, in.records)
}

// baseProvenance expects records r-a and r-b, both represented.
func baseProvenance(t *testing.T, e *env) provInput {
	t.Helper()
	return provInput{
		authority:     e.prov,
		attestationID: "att-prov",
		validity:      e.validity,
		assessment:    e.assess(t, []string{"r-a", "r-b"}, nil),
		identity:      e.id,
		records: []lineage.RecordDraft{
			record("r-b"),
			{ID: "r-a", Source: "retrievedWebContent", Custody: "ev-web", Transformations: []string{"extracted", "summarized", "extracted"}, Verification: "unverified"},
		},
	}
}

// Section 16: every way a Provenance set can fail to bind rejects completely.
func TestNewProvenanceRejects(t *testing.T) {
	t.Parallel()
	cases := map[string]rejectCase[provInput]{
		"missing role authority": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.authority = nil },
			wantErr: fault.ErrMissing, wantPath: "authority",
		},
		"role substitution: the authentication authority cannot attest provenance": {
			mutate:  func(_ *testing.T, e *env, in *provInput) { in.authority = e.authn },
			wantErr: fault.ErrUnauthorized, wantPath: "authority",
		},
		"role substitution: the influence collector cannot attest provenance": {
			mutate:  func(_ *testing.T, e *env, in *provInput) { in.authority = e.infl },
			wantErr: fault.ErrUnauthorized, wantPath: "authority",
		},
		"missing assessment": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.assessment = nil },
			wantErr: fault.ErrMissing, wantPath: "assessment",
		},
		"assessment from another host domain": {
			mutate: func(t *testing.T, _ *env, in *provInput) {
				in.assessment = assessFor(t, boundary.New("other"), "asm-1", []string{"r-a", "r-b"}, nil)
			},
			wantErr: fault.ErrMixedDomain, wantPath: "assessment",
		},
		"provenance authority from another host domain": {
			mutate:  func(t *testing.T, _ *env, in *provInput) { in.authority = newEnv(t).prov },
			wantErr: fault.ErrMixedDomain, wantPath: "assessment",
		},
		"missing identity": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.identity = principal.Identity{} },
			wantErr: fault.ErrMissing, wantPath: "identity",
		},
		"missing validity window": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.validity = epoch.Validity{} },
			wantErr: fault.ErrMissing, wantPath: "validity",
		},
		"malformed attestation identity": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.attestationID = "Att" },
			wantErr: fault.ErrMalformed, wantPath: "attestation.id",
		},
		"no records (represented coverage needs at least one)": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records = nil },
			wantErr: fault.ErrMissing, wantPath: "records",
		},
		"duplicate record identity": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records = append(in.records, record("r-b")) },
			wantErr: fault.ErrDuplicate, wantPath: "records[2].id",
		},
		"extra record identity the assessment does not expect": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records = append(in.records, record("r-c")) },
			wantErr: fault.ErrMismatch, wantPath: "records[2].id",
		},
		"collection substitution: an unexpected identity replaces an expected one": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[0] = record("r-0") },
			wantErr: fault.ErrMismatch, wantPath: "records[0].id",
		},
		"missing expected identity": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records = in.records[:1] },
			wantErr: fault.ErrMismatch, wantPath: "records",
		},
		"records for an assessment expecting none": {
			mutate:  func(t *testing.T, e *env, in *provInput) { in.assessment = e.assess(t, nil, nil) },
			wantErr: fault.ErrMismatch, wantPath: "records[1].id",
		},
		"malformed record identity": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[1].ID = "R-A" },
			wantErr: fault.ErrMalformed, wantPath: "records[1].id",
		},
		"unknown source token": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[0].Source = "webpage" },
			wantErr: fault.ErrUnknownToken, wantPath: "records[0].source",
		},
		"source token is case-sensitive": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[0].Source = "ModelOutput" },
			wantErr: fault.ErrUnknownToken, wantPath: "records[0].source",
		},
		"the untrusted proposal source vocabulary is not a provenance source": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[0].Source = "model" },
			wantErr: fault.ErrUnknownToken, wantPath: "records[0].source",
		},
		"custody is never inferred: a record without custody evidence": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[0].Custody = "" },
			wantErr: fault.ErrMissing, wantPath: "records[0].custody",
		},
		"custody reference violates the controlled-identity grammar": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[0].Custody = "raw document text" },
			wantErr: fault.ErrMalformed, wantPath: "records[0].custody",
		},
		"unknown transformation token": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[1].Transformations[2] = "paraphrased" },
			wantErr: fault.ErrUnknownToken, wantPath: "records[1].transformations[2]",
		},
		"unknown verification token": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[0].Verification = "verified" },
			wantErr: fault.ErrUnknownToken, wantPath: "records[0].verification",
		},
		"absent verification state": {
			mutate:  func(_ *testing.T, _ *env, in *provInput) { in.records[1].Verification = "" },
			wantErr: fault.ErrUnknownToken, wantPath: "records[1].verification",
		},
	}
	testRejects(t, cases, baseProvenance, provInput.build)
}

func TestNewProvenanceBindsAndNormalizes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := baseProvenance(t, e)
	p, err := in.build()
	if err != nil {
		t.Fatal(err)
	}
	if !p.Domain().Same(e.b.Domain()) || !p.Assessment().Equal(in.assessment) || !p.Identity().Equal(e.id) {
		t.Errorf("provenance does not carry its domain, assessment and identity")
	}
	if p.Coverage() != vocab.CoverageRepresented || p.Len() != 2 {
		t.Errorf("Coverage, Len = %v, %d; want represented, 2", p.Coverage(), p.Len())
	}
	type view struct {
		ID, Source, Custody, Verification, Trust string
		Transformations                          []string
	}
	var got []view
	for _, r := range p.Records() {
		v := view{ID: r.ID().String(), Source: r.Source().String(), Custody: r.Custody().String(),
			Verification: r.Verification().String(), Trust: r.Trust().String()}
		for _, tr := range r.Transformations() {
			v.Transformations = append(v.Transformations, tr.String())
		}
		got = append(got, v)
	}
	want := []view{ // identity ASCII order; transformations in declared order, repetition kept
		{ID: "r-a", Source: "retrievedWebContent", Custody: "ev-web", Verification: "unverified", Trust: "untrusted",
			Transformations: []string{"extracted", "summarized", "extracted"}},
		{ID: "r-b", Source: "documentContent", Custody: "ev-r-b", Verification: "hostVerified", Trust: "hostVerified"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Records (-want +got):\n%s", diff)
	}
	att, ok := p.Attestation()
	if !ok || att.Fact() != vocab.FactProvenance || att.ID().String() != "att-prov" ||
		!att.Issuer().Equal(e.prov.Identity()) {
		t.Fatalf("Attestation = %v, %v; want a provenance attestation by the provenance authority", att, ok)
	}
	if !att.Subject().Equal(p.ContentDigest()) || p.Digest().Equal(p.ContentDigest()) {
		t.Errorf("the attestation subject must be the content digest, and the complete digest must differ from it")
	}
	if p.Validity() != e.validity || att.Validity() != e.validity {
		t.Errorf("Validity = %v, want %v", p.Validity(), e.validity)
	}
	rb, ok := p.Record(cid(t, "r-b"))
	if !ok || rb.Trust() != vocab.TrustHostVerified {
		t.Errorf("Record(r-b) = %v, %v", rb, ok)
	}
	if _, ok := p.Record(cid(t, "r-z")); ok {
		t.Errorf("Record(r-z) found a record that does not exist")
	}
}

func TestProvenanceAccessorsReturnCopies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := testutil.Must[*lineage.Provenance](t)(baseProvenance(t, e).build())
	before := p.Digest()
	rs := p.Records()
	ts := rs[0].Transformations()
	ts[0] = vocab.Combined
	rs[0] = lineage.Record{}
	again := p.Records()
	if again[0].ID().IsZero() || again[0].Transformations()[0] != vocab.Extracted || !p.Digest().Equal(before) {
		t.Errorf("mutating returned slices changed the controlled value")
	}
}

// Section 16: missing coverage defaults to unknown, and unknown coverage
// never stands in for expected records.
func TestUnknownProvenance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.assess(t, nil, []string{"b-1"})
	p, err := lineage.UnknownProvenance(a, e.id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Coverage() != vocab.CoverageUnknown || p.Len() != 0 || len(p.Records()) != 0 {
		t.Errorf("unknown provenance: coverage %v with %d records", p.Coverage(), p.Len())
	}
	if _, ok := p.Attestation(); ok || !p.Validity().IsZero() {
		t.Errorf("unknown provenance carries an attestation or validity")
	}
	if !p.Domain().Same(e.b.Domain()) || !p.Assessment().Equal(a) || !p.Identity().Equal(e.id) {
		t.Errorf("unknown provenance does not carry its domain, assessment and identity")
	}
	if q, _ := lineage.UnknownProvenance(a, e.id); !p.Equal(q) {
		t.Errorf("two unknown provenance values for the same binding differ")
	}
	if q, _ := lineage.UnknownProvenance(a, identity(t, "bob")); p.Equal(q) {
		t.Errorf("unknown provenance for another identity is Equal")
	}

	cases := map[string]unattestedCase{
		"the assessment expects provenance identities": {a: e.assess(t, []string{"r-a"}, nil), id: e.id, wantErr: fault.ErrMismatch, wantPath: "records"},
		"missing assessment":                           {id: e.id, wantErr: fault.ErrMissing, wantPath: "assessment"},
		"missing identity":                             {a: a, wantErr: fault.ErrMissing, wantPath: "identity"},
	}
	testUnattestedRejects(t, cases, lineage.UnknownProvenance)
}

// Section 50: record identities are ASCII-ordered, so draft order never
// changes the value.
func TestProvenanceDraftOrderIsNotSemantic(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ids := seq("r", 6)
	in := provInput{authority: e.prov, attestationID: "att", validity: e.validity,
		assessment: e.assess(t, ids, nil), identity: e.id}
	for _, id := range ids {
		in.records = append(in.records, record(id))
	}
	want := testutil.Must[*lineage.Provenance](t)(in.build())
	for k := range len(ids) {
		perm := in
		perm.records = append(slices.Clone(in.records[k:]), in.records[:k]...)
		slices.Reverse(perm.records)
		got := testutil.Must[*lineage.Provenance](t)(perm.build())
		if !got.Equal(want) {
			t.Errorf("permutation %d changed the provenance digest", k)
		}
	}
}

// Same record identities with any other difference is a different value:
// identifier equality never replaces complete content comparison.
func TestProvenanceSameIdentitySubstitution(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := baseProvenance(t, e)
	want := testutil.Must[*lineage.Provenance](t)(base.build())
	if again := testutil.Must[*lineage.Provenance](t)(base.build()); !again.Equal(want) {
		t.Fatalf("the same construction is not Equal to itself")
	}
	cases := map[string]func(t *testing.T, in *provInput){
		"different source":                           func(_ *testing.T, in *provInput) { in.records[0].Source = "emailContent" },
		"different custody reference":                func(_ *testing.T, in *provInput) { in.records[0].Custody = "ev-other" },
		"different verification":                     func(_ *testing.T, in *provInput) { in.records[0].Verification = "unverified" },
		"different verification, same derived trust": func(_ *testing.T, in *provInput) { in.records[1].Verification = "hostVerified" },
		"transformation order": func(_ *testing.T, in *provInput) {
			in.records[1].Transformations = []string{"summarized", "extracted", "extracted"}
		},
		"transformation repetition dropped": func(_ *testing.T, in *provInput) { in.records[1].Transformations = []string{"extracted", "summarized"} },
		sameContentCase:                     func(_ *testing.T, in *provInput) { in.attestationID = "att-other" },
		"different validity window":         func(t *testing.T, in *provInput) { in.validity = validity(t, 1000, 1000, 2001) },
		"different identity":                func(t *testing.T, in *provInput) { in.identity = identity(t, "bob") },
		"different assessment, same identities": func(t *testing.T, in *provInput) {
			in.assessment = assessFor(t, e.b, "asm-2", []string{"r-a", "r-b"}, nil)
		},
	}
	testSubstitutions(t, want, cases, func(t *testing.T) provInput { return baseProvenance(t, e) }, provInput.build)
	t.Run("equal content in another host domain", func(t *testing.T) {
		t.Parallel()
		o := newEnv(t)
		got := testutil.Must[*lineage.Provenance](t)(baseProvenance(t, o).build())
		if got.Equal(want) {
			t.Errorf("provenance from another host domain is Equal")
		}
	})
}

func TestProvenanceRejectionsNeverEchoInput(t *testing.T) {
	t.Parallel()
	const marker = "Secret-Marker"
	e := newEnv(t)
	for i, mutate := range []func(*lineage.RecordDraft){
		func(d *lineage.RecordDraft) { d.ID = marker },
		func(d *lineage.RecordDraft) { d.Source = marker },
		func(d *lineage.RecordDraft) { d.Custody = marker },
		func(d *lineage.RecordDraft) { d.Transformations = []string{marker} },
		func(d *lineage.RecordDraft) { d.Verification = marker },
	} {
		in := baseProvenance(t, e)
		mutate(&in.records[0])
		_, err := in.build()
		if err == nil {
			t.Fatalf("case %d: marker accepted", i)
		}
		noEcho(t, err, marker)
	}
}
