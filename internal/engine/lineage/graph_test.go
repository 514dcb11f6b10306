package lineage_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/testutil"
)

// graphInput returns a NewInfluence call with one complete boundary "b-1"
// holding nodes.
func graphInput(t *testing.T, e *env, nodes []lineage.NodeDraft) inflInput {
	t.Helper()
	return inflInput{
		authority: e.infl, attestationID: "att", validity: e.validity,
		assessment:  e.assess(t, nil, []string{"b-1"}),
		identity:    e.id,
		collections: []lineage.CollectionDraft{{Boundary: "b-1", Completeness: "complete", Evidence: "ev-1"}},
		nodes:       nodes,
	}
}

// edges builds nodes in boundary b-1 from child -> parents.
func edges(order []string, parents map[string][]string) []lineage.NodeDraft {
	out := make([]lineage.NodeDraft, 0, len(order))
	for _, id := range order {
		out = append(out, lineage.NodeDraft{ID: id, Kind: "document", Boundary: "b-1", Parents: parents[id]})
	}
	return out
}

// Section 16: "The structure MUST be deterministic and acyclic." A cycle is
// reported at the smallest node identity on the cycle, whatever the draft
// order, and never at a node merely downstream of it.
func TestInfluenceCycles(t *testing.T) {
	t.Parallel()
	ring := seq("n", 10)
	ringParents := map[string][]string{}
	for i, id := range ring {
		ringParents[id] = []string{ring[(i+len(ring)-1)%len(ring)]}
	}
	cases := map[string]struct {
		order    []string
		parents  map[string][]string
		wantNode string // the node the rejection path names
		wantRule string // "cycle" or "self"
	}{
		"self edge": {
			order: []string{"a", "b"}, parents: map[string][]string{"b": {"a", "b"}},
			wantNode: "b", wantRule: "self",
		},
		"two-node cycle": {
			order: []string{"b", "a"}, parents: map[string][]string{"a": {"b"}, "b": {"a"}},
			wantNode: "a", wantRule: "cycle",
		},
		"long cycle through ten nodes": {
			order: reversed(ring), parents: ringParents, wantNode: "n-00", wantRule: "cycle",
		},
		"cycle with a smaller downstream node is reported on the cycle": {
			order:    []string{"a", "x", "y", "z"},
			parents:  map[string][]string{"a": {"x"}, "x": {"y"}, "y": {"z"}, "z": {"x"}},
			wantNode: "x", wantRule: "cycle",
		},
		"cycle behind an acyclic prefix": {
			order:    []string{"root", "m1", "m2", "m3"},
			parents:  map[string][]string{"m1": {"root", "m3"}, "m2": {"m1"}, "m3": {"m2"}},
			wantNode: "m1", wantRule: "cycle",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			for _, order := range [][]string{tc.order, reversed(tc.order)} {
				nodes := edges(order, tc.parents)
				_, err := graphInput(t, e, nodes).build()
				if !errors.Is(err, fault.ErrMalformed) {
					t.Fatalf("error = %v, want a malformed (cyclic) graph", err)
				}
				var fe *fault.Error
				errors.As(err, &fe)
				at := slices.Index(order, tc.wantNode)
				want := "nodes" + fault.Index(at) + ".parents"
				if tc.wantRule == "self" {
					want += fault.Index(slices.Index(tc.parents[tc.wantNode], tc.wantNode))
				}
				if fe.Path != want {
					t.Errorf("order %v: path = %q, want %q", order, fe.Path, want)
				}
			}
		})
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// diamond: a -> {b, c} -> d, and e shaped by d and directly by a.
func diamond() map[string][]string {
	return map[string][]string{
		"b": {"a"}, "c": {"a"}, "d": {"c", "b"}, "e": {"d", "a"},
		"g": {"f"}, "h": {"f", "g"}, // a second diamond-like component
	}
}

func TestInfluenceAcceptsDAGsWithDiamonds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	v, err := graphInput(t, e, edges([]string{"e", "d", "c", "b", "a", "h", "g", "f"}, diamond())).build()
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 8 || v.Edges() != 9 {
		t.Errorf("Len, Edges = %d, %d; want 8, 9", v.Len(), v.Edges())
	}
}

// Section 50: nodes in identity order and parents in ASCII order are the
// deterministic representation; no draft order changes the value.
func TestInfluenceDraftOrderIsNotSemantic(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.assess(t, nil, []string{"b-1", "b-2", "b-3"})
	cols := []lineage.CollectionDraft{
		{Boundary: "b-1", Completeness: "complete", Evidence: "ev-1"},
		{Boundary: "b-2", Completeness: "partial"},
		{Boundary: "b-3", Completeness: "unknown"},
	}
	base := edges([]string{"a", "b", "c", "d", "e", "f", "g", "h"}, diamond())
	base = append(base, lineage.NodeDraft{ID: "p", Kind: "email", Boundary: "b-2"},
		lineage.NodeDraft{ID: "q", Kind: "memory", Boundary: "b-2", Parents: []string{"p"}})
	build := func(cols []lineage.CollectionDraft, nodes []lineage.NodeDraft) *lineage.Influence {
		t.Helper()
		return testutil.Must[*lineage.Influence](t)(lineage.NewInfluence(e.infl, "att", e.validity, a, e.id, cols, nodes))
	}
	want := build(cols, base)
	for k := range len(base) {
		nodes := append(slices.Clone(base[k:]), base[:k]...)
		for i := range nodes {
			nodes[i].Parents = slices.Clone(nodes[i].Parents)
			slices.Reverse(nodes[i].Parents)
		}
		if k%2 == 1 {
			slices.Reverse(nodes)
		}
		c := append(slices.Clone(cols[k%len(cols):]), cols[:k%len(cols)]...)
		if got := build(c, nodes); !got.Equal(want) || !got.ContentDigest().Equal(want.ContentDigest()) {
			t.Errorf("permutation %d changed the influence digest", k)
		}
	}
}
