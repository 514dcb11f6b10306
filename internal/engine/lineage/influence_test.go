package lineage_test

import (
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

// inflInput is one complete NewInfluence call.
type inflInput struct {
	authority     *authority.RoleAuthority
	attestationID string
	validity      epoch.Validity
	assessment    *assessment.Assessment
	identity      principal.Identity
	collections   []lineage.CollectionDraft
	nodes         []lineage.NodeDraft
}

func (in inflInput) build() (*lineage.Influence, error) {
	return lineage.NewInfluence(in.authority, in.attestationID, in.validity, in.assessment, in.identity, in.collections, in.nodes)
}

// baseInfluence has a complete chat boundary and a partial documents
// boundary, each with its own small graph.
func baseInfluence(t *testing.T, e *env) inflInput {
	t.Helper()
	return inflInput{
		authority:     e.infl,
		attestationID: "att-infl",
		validity:      e.validity,
		assessment:    e.assess(t, nil, []string{"b-chat", "b-docs"}),
		identity:      e.id,
		collections: []lineage.CollectionDraft{
			{Boundary: "b-docs", Completeness: "partial"},
			{Boundary: "b-chat", Completeness: "complete", Evidence: "ev-collector"},
		},
		nodes: []lineage.NodeDraft{
			{ID: "n-reply", Kind: "modelOutput", Boundary: "b-chat", Parents: []string{"n-sys", "n-prompt"}},
			{ID: "n-prompt", Kind: "userPrompt", Boundary: "b-chat"},
			{ID: "n-sys", Kind: "systemInstruction", Boundary: "b-chat"},
			{ID: "n-doc", Kind: "document", Boundary: "b-docs"},
			{ID: "n-summary", Kind: "toolOutput", Boundary: "b-docs", Parents: []string{"n-doc"}},
		},
	}
}

// Section 16: "Duplicate or missing node identities, invalid parent
// relationships, cross-boundary edges, cycles, and limit excess reject";
// collection substitution, missing expected identities, inconsistent
// completeness and mixed domains fail closed.
func TestNewInfluenceRejects(t *testing.T) {
	t.Parallel()
	cases := map[string]rejectCase[inflInput]{
		"missing role authority": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.authority = nil },
			wantErr: fault.ErrMissing, wantPath: "authority",
		},
		"role substitution: the provenance authority cannot collect influence": {
			mutate:  func(_ *testing.T, e *env, in *inflInput) { in.authority = e.prov },
			wantErr: fault.ErrUnauthorized, wantPath: "authority",
		},
		"role substitution: the authentication authority cannot collect influence": {
			mutate:  func(_ *testing.T, e *env, in *inflInput) { in.authority = e.authn },
			wantErr: fault.ErrUnauthorized, wantPath: "authority",
		},
		"missing assessment": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.assessment = nil },
			wantErr: fault.ErrMissing, wantPath: "assessment",
		},
		"assessment from another host domain": {
			mutate: func(t *testing.T, _ *env, in *inflInput) {
				in.assessment = assessFor(t, boundary.New("other"), "asm-1", nil, []string{"b-chat", "b-docs"})
			},
			wantErr: fault.ErrMixedDomain, wantPath: "assessment",
		},
		"missing identity": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.identity = principal.Identity{} },
			wantErr: fault.ErrMissing, wantPath: "identity",
		},
		"missing validity window": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.validity = epoch.Validity{} },
			wantErr: fault.ErrMissing, wantPath: "validity",
		},
		"malformed attestation identity": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.attestationID = "" },
			wantErr: fault.ErrMalformed, wantPath: "attestation.id",
		},
		"duplicate collection boundary": {
			mutate: func(_ *testing.T, _ *env, in *inflInput) {
				in.collections = append(in.collections, lineage.CollectionDraft{Boundary: "b-docs", Completeness: "unknown"})
			},
			wantErr: fault.ErrDuplicate, wantPath: "collections[2].boundary",
		},
		"malformed collection boundary": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.collections[0].Boundary = "b docs" },
			wantErr: fault.ErrMalformed, wantPath: "collections[0].boundary",
		},
		"unknown completeness token": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.collections[0].Completeness = "mostly" },
			wantErr: fault.ErrUnknownToken, wantPath: "collections[0].completeness",
		},
		"a complete boundary without collector evidence": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.collections[1].Evidence = "" },
			wantErr: fault.ErrMissing, wantPath: "collections[1].evidence",
		},
		"a complete boundary with malformed collector evidence": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.collections[1].Evidence = "-ev" },
			wantErr: fault.ErrMalformed, wantPath: "collections[1].evidence",
		},
		"inconsistent completeness: a partial boundary carries collector evidence": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.collections[0].Evidence = "ev-collector" },
			wantErr: fault.ErrMismatch, wantPath: "collections[0].evidence",
		},
		"inconsistent completeness: an unknown boundary carries collector evidence": {
			mutate: func(_ *testing.T, _ *env, in *inflInput) {
				in.collections[0] = lineage.CollectionDraft{Boundary: "b-docs", Completeness: "unknown", Evidence: "ev-1"}
			},
			wantErr: fault.ErrMismatch, wantPath: "collections[0].evidence",
		},
		"collection substitution: an unexpected boundary": {
			mutate: func(_ *testing.T, _ *env, in *inflInput) {
				in.collections = append(in.collections, lineage.CollectionDraft{Boundary: "b-mail", Completeness: "unknown"})
			},
			wantErr: fault.ErrMismatch, wantPath: "collections[2].boundary",
		},
		"missing expected collection": {
			mutate: func(_ *testing.T, _ *env, in *inflInput) {
				in.collections = in.collections[1:]
				in.nodes = in.nodes[:3]
			},
			wantErr: fault.ErrMismatch, wantPath: "collections",
		},
		"collections for an assessment expecting none": {
			mutate:  func(t *testing.T, e *env, in *inflInput) { in.assessment = e.assess(t, nil, nil) },
			wantErr: fault.ErrMismatch, wantPath: "collections[1].boundary",
		},
		"duplicate node identity": {
			mutate: func(_ *testing.T, _ *env, in *inflInput) {
				in.nodes = append(in.nodes, lineage.NodeDraft{ID: "n-doc", Kind: "email", Boundary: "b-docs"})
			},
			wantErr: fault.ErrDuplicate, wantPath: "nodes[5].id",
		},
		"malformed node identity": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[3].ID = "N-DOC" },
			wantErr: fault.ErrMalformed, wantPath: "nodes[3].id",
		},
		"unknown influence kind": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[1].Kind = "prompt" },
			wantErr: fault.ErrUnknownToken, wantPath: "nodes[1].kind",
		},
		"malformed node boundary": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[1].Boundary = "" },
			wantErr: fault.ErrMalformed, wantPath: "nodes[1].boundary",
		},
		"a node outside every declared boundary": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[1].Boundary = "b-mail" },
			wantErr: fault.ErrNotFound, wantPath: "nodes[1].boundary",
		},
		"malformed parent identity": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[0].Parents[1] = "N-PROMPT" },
			wantErr: fault.ErrMalformed, wantPath: "nodes[0].parents[1]",
		},
		"self edge": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[4].Parents = []string{"n-doc", "n-summary"} },
			wantErr: fault.ErrMalformed, wantPath: "nodes[4].parents[1]",
		},
		"duplicate parent edge": {
			mutate: func(_ *testing.T, _ *env, in *inflInput) {
				in.nodes[0].Parents = []string{"n-sys", "n-prompt", "n-sys"}
			},
			wantErr: fault.ErrDuplicate, wantPath: "nodes[0].parents[2]",
		},
		"missing material within a complete boundary: a parent node is absent": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes = append(in.nodes[:1], in.nodes[2:]...) },
			wantErr: fault.ErrMissing, wantPath: "nodes[0].parents[1]",
		},
		"missing node identity within a partial boundary": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[4].Parents = []string{"n-web"} },
			wantErr: fault.ErrMissing, wantPath: "nodes[4].parents[0]",
		},
		"cross-boundary edge": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[4].Parents = []string{"n-doc", "n-prompt"} },
			wantErr: fault.ErrMismatch, wantPath: "nodes[4].parents[1]",
		},
		"two-node cycle": {
			mutate:  func(_ *testing.T, _ *env, in *inflInput) { in.nodes[3].Parents = []string{"n-summary"} },
			wantErr: fault.ErrMalformed, wantPath: "nodes[3].parents",
		},
	}
	testRejects(t, cases, baseInfluence, inflInput.build)
}

func TestNewInfluenceBindsAndNormalizes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := baseInfluence(t, e)
	v := testutil.Must[*lineage.Influence](t)(in.build())
	if !v.Domain().Same(e.b.Domain()) || !v.Assessment().Equal(in.assessment) || !v.Identity().Equal(e.id) {
		t.Errorf("influence does not carry its domain, assessment and identity")
	}
	type col struct{ Boundary, Completeness, Evidence string }
	var cols []col
	for _, c := range v.Collections() {
		cols = append(cols, col{c.Boundary().String(), c.Completeness().String(), c.Evidence().String()})
	}
	if diff := cmp.Diff([]col{{"b-chat", "complete", "ev-collector"}, {"b-docs", "partial", ""}}, cols); diff != "" {
		t.Errorf("Collections (-want +got):\n%s", diff)
	}
	type node struct {
		ID, Kind, Boundary string
		Parents            []string
	}
	var nodes []node
	for _, n := range v.Nodes() {
		got := node{ID: n.ID().String(), Kind: n.Kind().String(), Boundary: n.Boundary().String()}
		for _, p := range n.Parents() {
			got.Parents = append(got.Parents, p.String())
		}
		nodes = append(nodes, got)
	}
	want := []node{ // identity ASCII order, parents ASCII order
		{ID: "n-doc", Kind: "document", Boundary: "b-docs"},
		{ID: "n-prompt", Kind: "userPrompt", Boundary: "b-chat"},
		{ID: "n-reply", Kind: "modelOutput", Boundary: "b-chat", Parents: []string{"n-prompt", "n-sys"}},
		{ID: "n-summary", Kind: "toolOutput", Boundary: "b-docs", Parents: []string{"n-doc"}},
		{ID: "n-sys", Kind: "systemInstruction", Boundary: "b-chat"},
	}
	if diff := cmp.Diff(want, nodes); diff != "" {
		t.Errorf("Nodes (-want +got):\n%s", diff)
	}
	if v.Len() != 5 || v.Edges() != 3 {
		t.Errorf("Len, Edges = %d, %d; want 5, 3", v.Len(), v.Edges())
	}
	if c, ok := v.Collection(cid(t, "b-chat")); !ok || !c.IsComplete() || c.Evidence().String() != "ev-collector" {
		t.Errorf("Collection(b-chat) = %v, %v", c, ok)
	}
	if _, ok := v.Collection(cid(t, "b-mail")); ok {
		t.Errorf("Collection(b-mail) found an undeclared boundary")
	}
	if n, ok := v.Node(cid(t, "n-summary")); !ok || n.Kind() != vocab.InfluenceToolOutput {
		t.Errorf("Node(n-summary) = %v, %v", n, ok)
	}
	if _, ok := v.Node(cid(t, "n-zzz")); ok {
		t.Errorf("Node(n-zzz) found a node that does not exist")
	}
	att, ok := v.Attestation()
	if !ok || att.Fact() != vocab.FactInfluenceCollection || !att.Issuer().Equal(e.infl.Identity()) {
		t.Fatalf("Attestation = %v, %v; want an influenceCollection attestation by the collector", att, ok)
	}
	if !att.Subject().Equal(v.ContentDigest()) || v.Validity() != e.validity {
		t.Errorf("the attestation must cover the content digest within the validity window")
	}

	parents := v.Nodes()[2].Parents()
	parents[0] = cid(t, "n-zzz")
	if v.Nodes()[2].Parents()[0].String() != "n-prompt" {
		t.Errorf("mutating returned parents changed the controlled value")
	}
}

// An assessment expecting no collections admits an attested empty set and
// NoInfluence; neither says anything about completeness.
func TestEmptyInfluence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.assess(t, nil, nil)
	none, err := lineage.NoInfluence(a, e.id)
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Collections()) != 0 || none.Len() != 0 || none.Edges() != 0 {
		t.Errorf("NoInfluence carries collections or nodes")
	}
	if _, ok := none.Attestation(); ok || !none.Validity().IsZero() {
		t.Errorf("NoInfluence carries an attestation")
	}
	if !none.Domain().Same(e.b.Domain()) || !none.Assessment().Equal(a) || !none.Identity().Equal(e.id) {
		t.Errorf("NoInfluence does not carry its domain, assessment and identity")
	}
	attested := testutil.Must[*lineage.Influence](t)(lineage.NewInfluence(e.infl, "att", e.validity, a, e.id, nil, nil))
	if _, ok := attested.Attestation(); !ok || attested.Equal(none) {
		t.Errorf("an attested empty influence set must carry its attestation and differ from NoInfluence")
	}

	cases := map[string]unattestedCase{
		"the assessment expects influence collections": {a: e.assess(t, nil, []string{"b-1"}), id: e.id, wantErr: fault.ErrMismatch, wantPath: "collections"},
		"missing assessment":                           {id: e.id, wantErr: fault.ErrMissing, wantPath: "assessment"},
		"missing identity":                             {a: a, wantErr: fault.ErrMissing, wantPath: "identity"},
	}
	testUnattestedRejects(t, cases, lineage.NoInfluence)
}

// Same node and boundary identities with any other difference is a
// different value.
func TestInfluenceSameIdentitySubstitution(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	want := testutil.Must[*lineage.Influence](t)(baseInfluence(t, e).build())
	cases := map[string]func(t *testing.T, in *inflInput){
		"different node kind":              func(_ *testing.T, in *inflInput) { in.nodes[3].Kind = "email" },
		"different parent set":             func(_ *testing.T, in *inflInput) { in.nodes[0].Parents = []string{"n-prompt"} },
		"a node moved to another boundary": func(_ *testing.T, in *inflInput) { in.nodes[3].Boundary = "b-chat"; in.nodes[4].Boundary = "b-chat" },
		"different completeness":           func(_ *testing.T, in *inflInput) { in.collections[0].Completeness = "unknown" },
		"different collector evidence":     func(_ *testing.T, in *inflInput) { in.collections[1].Evidence = "ev-other" },
		sameContentCase:                    func(_ *testing.T, in *inflInput) { in.attestationID = "att-other" },
		"different validity window":        func(t *testing.T, in *inflInput) { in.validity = validity(t, 999, 1000, 2000) },
		"different identity":               func(t *testing.T, in *inflInput) { in.identity = identity(t, "bob") },
		"different assessment, same scopes": func(t *testing.T, in *inflInput) {
			in.assessment = assessFor(t, e.b, "asm-2", nil, []string{"b-chat", "b-docs"})
		},
	}
	testSubstitutions(t, want, cases, func(t *testing.T) inflInput { return baseInfluence(t, e) }, inflInput.build)
	t.Run("equal content in another host domain", func(t *testing.T) {
		t.Parallel()
		got := testutil.Must[*lineage.Influence](t)(baseInfluence(t, newEnv(t)).build())
		if got.Equal(want) {
			t.Errorf("influence from another host domain is Equal")
		}
	})
}

func TestInfluenceRejectionsNeverEchoInput(t *testing.T) {
	t.Parallel()
	const marker = "Secret-Marker"
	e := newEnv(t)
	for i, mutate := range []func(*inflInput){
		func(in *inflInput) { in.collections[0].Boundary = marker },
		func(in *inflInput) { in.collections[0].Completeness = marker },
		func(in *inflInput) { in.collections[1].Evidence = marker },
		func(in *inflInput) { in.nodes[0].ID = marker },
		func(in *inflInput) { in.nodes[0].Kind = marker },
		func(in *inflInput) { in.nodes[0].Boundary = marker },
		func(in *inflInput) { in.nodes[0].Parents[0] = marker },
		func(in *inflInput) { in.nodes[0].Parents[0] = "secret-marker" }, // well-formed but absent
	} {
		in := baseInfluence(t, e)
		mutate(&in)
		_, err := in.build()
		if err == nil {
			t.Fatalf("case %d: marker accepted", i)
		}
		noEcho(t, err, marker)
		noEcho(t, err, "secret-marker")
	}
}
