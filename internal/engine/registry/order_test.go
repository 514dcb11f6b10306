package registry_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/testutil"
)

// row is one definition of a snapshot in the form the order tests compare.
type row struct{ Tool, Version, ID string }

func rows(s *registry.Snapshot) []row {
	out := make([]row, s.Len())
	for i := range out {
		d := s.Definition(i)
		out[i] = row{d.ToolID().String(), d.Version().String(), d.ID().String()}
	}
	return out
}

// TestSnapshotOrderIsSection50 proves the Section 50 row "Registry Tool
// Definitions": Tool Identifier in segment order, then Tool Version in
// numeric order. The inputs are chosen so that whole-string ASCII order and
// decimal-text order would both give a different result: '.' (2E) sorts
// above '-' (2D), so "a-c.b" < "a.b" as strings but "a" < "a-c" as first
// segments; and "10" < "9" as text but 9 < 10 as generations. The third key,
// definition identity, can never decide in a published snapshot, because one
// Tool Identifier and Version with two identities is an ambiguous resolution
// and rejects.
func TestSnapshotOrderIsSection50(t *testing.T) {
	t.Parallel()
	in := []row{
		{"payments.submit", "10", "payments-submit-10"},
		{"payments-x.submit", "1", "payments-x-submit-1"},
		{"a-c.b", "1", "z-first-as-a-string"},
		{"payments.submit", "9", "payments-submit-9"},
		{"accounts.lookup.v2", "1", "accounts-lookup-v2"},
		{"a.b", "1", "z-last-as-a-string"},
		{"payments.refund", "18446744073709551615", "payments-refund-max"},
		{"accounts.lookup", "2", "accounts-lookup-2"},
		{"payments.submit", "1", "payments-submit-1"},
		{"accounts.lookup", "1", "accounts-lookup-1"},
	}
	want := []row{
		{"a.b", "1", "z-last-as-a-string"},
		{"a-c.b", "1", "z-first-as-a-string"},
		{"accounts.lookup", "1", "accounts-lookup-1"},
		{"accounts.lookup", "2", "accounts-lookup-2"},
		{"accounts.lookup.v2", "1", "accounts-lookup-v2"},
		{"payments.refund", "18446744073709551615", "payments-refund-max"},
		{"payments.submit", "1", "payments-submit-1"},
		{"payments.submit", "9", "payments-submit-9"},
		{"payments.submit", "10", "payments-submit-10"},
		{"payments-x.submit", "1", "payments-x-submit-1"},
	}
	defs := make([]registry.DefinitionDraft, len(in))
	for i, r := range in {
		defs[i] = testutil.Definition(r.ID, r.Tool, r.Version)
	}
	snap := testutil.Publish(t, testutil.RegistryDraft(defs...))
	if diff := cmp.Diff(want, rows(snap)); diff != "" {
		t.Errorf("snapshot order (-want +got):\n%s", diff)
	}
}

// TestSnapshotIsIndependentOfInputOrder: every permutation of five
// definitions publishes the same snapshot, in content (digest and
// Snapshot.Equal) and in order.
func TestSnapshotIsIndependentOfInputOrder(t *testing.T) {
	t.Parallel()
	defs := []registry.DefinitionDraft{
		testutil.PaymentsDefinition(),
		testutil.Definition("payments-submit-2", "payments.submit", "2", testutil.WithLifecycle("deprecated")),
		testutil.Definition("accounts-lookup-1", "accounts.lookup", "1"),
		testutil.Definition("payments-refund-1", "payments.refund", "1", testutil.WithLifecycle("retired")),
		testutil.Definition("a-c-b-1", "a-c.b", "1"),
	}
	ref := testutil.Publish(t, testutil.RegistryDraft(defs...))
	n := 0
	permute(len(defs), func(p []int) {
		n++
		in := make([]registry.DefinitionDraft, len(p))
		for i, j := range p {
			in[i] = defs[j]
		}
		got := testutil.Publish(t, testutil.RegistryDraft(in...))
		if !got.Digest().Equal(ref.Digest()) || !ref.Equal(got) {
			t.Errorf("permutation %v: digest %s, want %s", p, got.Digest(), ref.Digest())
		}
		if diff := cmp.Diff(rows(ref), rows(got)); diff != "" {
			t.Errorf("permutation %v: order (-want +got):\n%s", p, diff)
		}
	})
	if n != 120 {
		t.Fatalf("ran %d permutations, want 5! = 120", n)
	}
}

// permute calls f with every permutation of 0..n-1 (Heap's algorithm).
func permute(n int, f func([]int)) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var gen func(k int)
	gen = func(k int) {
		if k == 1 {
			f(append([]int(nil), p...))
			return
		}
		for i := range k - 1 {
			gen(k - 1)
			if k%2 == 0 {
				p[i], p[k-1] = p[k-1], p[i]
			} else {
				p[0], p[k-1] = p[k-1], p[0]
			}
		}
		gen(k - 1)
	}
	gen(n)
}

func TestPermuteCoversEveryOrder(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	permute(4, func(p []int) { seen[fmt.Sprint(p)] = true })
	if len(seen) != 24 {
		t.Errorf("permute(4) produced %d distinct orders, want 24", len(seen))
	}
}
