package lineage_test

import (
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/testutil"
)

// chain returns n nodes in boundary b-1 (n-00 ... n-nn) with exactly m
// parent edges, each from a later node to an earlier one, so the graph is
// acyclic.
func chain(n, m int) []lineage.NodeDraft {
	ids := seq("n", n)
	nodes := make([]lineage.NodeDraft, n)
	for i, id := range ids {
		nodes[i] = lineage.NodeDraft{ID: id, Kind: "retrievedContent", Boundary: "b-1"}
	}
	for i := 1; i < n && m > 0; i++ {
		for j := 0; j < i && m > 0; j++ {
			nodes[i].Parents = append(nodes[i].Parents, ids[j])
			m--
		}
	}
	return nodes
}

// Section 39: every lineage limit holds at its bound and rejects one past
// it, before any other check of the excess entries.
func TestLineageLimits(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		build    func(t *testing.T, e *env) error
		wantErr  error
		wantPath string
	}{
		"64 provenance records":          {build: records(64)},
		"65 provenance records":          {build: records(65), wantErr: fault.ErrLimitExceeded, wantPath: "records"},
		"8 transformations per record":   {build: transformations(8)},
		"9 transformations per record":   {build: transformations(9), wantErr: fault.ErrLimitExceeded, wantPath: "records[0].transformations"},
		"64 influence nodes":             {build: nodes(64, 0)},
		"65 influence nodes":             {build: nodes(65, 0), wantErr: fault.ErrLimitExceeded, wantPath: "nodes"},
		"128 parent edges in aggregate":  {build: nodes(64, 128)},
		"129 parent edges in aggregate":  {build: nodes(64, 129), wantErr: fault.ErrLimitExceeded, wantPath: "nodes"},
		"8 collection boundaries":        {build: boundaries(8)},
		"9 collection boundaries":        {build: boundaries(9), wantErr: fault.ErrLimitExceeded, wantPath: "collections"},
		"64-octet record identity":       {build: provField(64, func(d *lineage.RecordDraft, s string) { d.ID = s })},
		"65-octet record identity":       {build: provField(65, func(d *lineage.RecordDraft, s string) { d.ID = s }), wantErr: fault.ErrMalformed, wantPath: "records[0].id"},
		"64-octet custody reference":     {build: provField(64, func(d *lineage.RecordDraft, s string) { d.Custody = s })},
		"65-octet custody reference":     {build: provField(65, func(d *lineage.RecordDraft, s string) { d.Custody = s }), wantErr: fault.ErrMalformed, wantPath: "records[0].custody"},
		"64-octet node identity":         {build: inflField(64, "node")},
		"65-octet node identity":         {build: inflField(65, "node"), wantErr: fault.ErrMalformed, wantPath: "nodes[0].id"},
		"64-octet parent identity":       {build: inflField(64, "parent")},
		"65-octet parent identity":       {build: inflField(65, "parent"), wantErr: fault.ErrMalformed, wantPath: "nodes[1].parents[0]"},
		"64-octet collection boundary":   {build: inflField(64, "boundary")},
		"65-octet collection boundary":   {build: inflField(65, "boundary"), wantErr: fault.ErrMalformed, wantPath: "collections[0].boundary"},
		"64-octet collector evidence":    {build: inflField(64, "evidence")},
		"65-octet collector evidence":    {build: inflField(65, "evidence"), wantErr: fault.ErrMalformed, wantPath: "collections[0].evidence"},
		"65 records with a duplicate":    {build: recordsWith(65, "r-00"), wantErr: fault.ErrLimitExceeded, wantPath: "records"},
		"129 edges including duplicates": {build: duplicateEdges(129), wantErr: fault.ErrLimitExceeded, wantPath: "nodes"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testutil.RequireFault(t, tc.build(t, newEnv(t)), tc.wantErr, tc.wantPath)
		})
	}
}

func records(n int) func(*testing.T, *env) error { return recordsWith(n, "") }

// recordsWith builds n records r-00...; extra, when given, replaces the last
// identity. The assessment expects at most 64 identities.
func recordsWith(n int, extra string) func(*testing.T, *env) error {
	return func(t *testing.T, e *env) error {
		ids := seq("r", n)
		if extra != "" {
			ids[n-1] = extra
		}
		in := provInput{authority: e.prov, attestationID: "att", validity: e.validity,
			assessment: e.assess(t, seq("r", min(n, 64)), nil), identity: e.id}
		for _, id := range ids {
			in.records = append(in.records, record(id))
		}
		_, err := in.build()
		return err
	}
}

func transformations(n int) func(*testing.T, *env) error {
	return func(t *testing.T, e *env) error {
		d := record("r-1")
		for i := range n {
			d.Transformations = append(d.Transformations, []string{"extracted", "redacted"}[i%2])
		}
		_, err := provInput{authority: e.prov, attestationID: "att", validity: e.validity,
			assessment: e.assess(t, []string{"r-1"}, nil), identity: e.id,
			records: []lineage.RecordDraft{d}}.build()
		return err
	}
}

func provField(n int, set func(*lineage.RecordDraft, string)) func(*testing.T, *env) error {
	return func(t *testing.T, e *env) error {
		d := record("r-1")
		set(&d, long(n))
		expected := "r-1"
		if d.ID != "r-1" && n <= 64 {
			expected = d.ID
		}
		_, err := provInput{authority: e.prov, attestationID: "att", validity: e.validity,
			assessment: e.assess(t, []string{expected}, nil), identity: e.id,
			records: []lineage.RecordDraft{d}}.build()
		return err
	}
}

func nodes(n, m int) func(*testing.T, *env) error {
	return func(t *testing.T, e *env) error {
		_, err := graphInput(t, e, chain(n, m)).build()
		return err
	}
}

// duplicateEdges gives one node m parent entries that repeat: the
// aggregate bound is checked before any parent is parsed.
func duplicateEdges(m int) func(*testing.T, *env) error {
	return func(t *testing.T, e *env) error {
		ns := chain(2, 0)
		for range m {
			ns[1].Parents = append(ns[1].Parents, "n-00")
		}
		_, err := graphInput(t, e, ns).build()
		return err
	}
}

func boundaries(n int) func(*testing.T, *env) error {
	return func(t *testing.T, e *env) error {
		ids := seq("b", n)
		var cols []lineage.CollectionDraft
		var ns []lineage.NodeDraft
		for i, id := range ids {
			cols = append(cols, lineage.CollectionDraft{Boundary: id, Completeness: "complete", Evidence: "ev-" + id})
			ns = append(ns, lineage.NodeDraft{ID: fmt.Sprintf("n-%02d", i), Kind: "email", Boundary: id})
		}
		_, err := lineage.NewInfluence(e.infl, "att", e.validity, e.assess(t, nil, ids[:min(n, 8)]), e.id, cols, ns)
		return err
	}
}

// inflField puts an n-octet identity into one field of a one-boundary,
// two-node graph.
func inflField(n int, field string) func(*testing.T, *env) error {
	return func(t *testing.T, e *env) error {
		s := long(n)
		b, ev, node := "b-1", "ev-1", "n-1"
		switch field {
		case "boundary":
			b = s
		case "evidence":
			ev = s
		case "node":
			node = s
		case "parent":
			if n <= 64 {
				node = s // the parent exists; past the bound it is rejected before lookup
			}
		}
		parent := node
		if field == "parent" {
			parent = s
		}
		expected := b
		if n > 64 {
			expected = "b-1"
		}
		cols := []lineage.CollectionDraft{{Boundary: b, Completeness: "complete", Evidence: ev}}
		ns := []lineage.NodeDraft{
			{ID: node, Kind: "email", Boundary: b},
			{ID: "n-2", Kind: "memory", Boundary: b, Parents: []string{parent}},
		}
		_, err := lineage.NewInfluence(e.infl, "att", e.validity, e.assess(t, nil, []string{expected}), e.id, cols, ns)
		return err
	}
}
