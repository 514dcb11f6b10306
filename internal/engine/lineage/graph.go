package lineage

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// graph is a validated Influence node set in identity ASCII order, with the
// draft index of each node (for rejection paths) and each node's parents as
// positions in that order.
type graph struct {
	nodes   []Node
	index   []int
	parents [][]int
}

// entry is one parsed node in draft order.
type entry struct {
	node    Node
	parents []keyed // draft order, with draft index
}

// parseNodes parses the node drafts against the declared collections (ASCII
// order) and checks every parent relationship except acyclicity. Rejections
// are reported in draft order.
func parseNodes(drafts []NodeDraft, cols []Collection) (*graph, error) {
	entries := make([]entry, 0, len(drafts))
	at := make(map[ident.ControlledID]int, len(drafts)) // node identity -> draft index
	for i, d := range drafts {
		e, err := parseNode(d, cols)
		if err != nil {
			return nil, fault.Within("nodes"+fault.Index(i), err)
		}
		if _, dup := at[e.node.id]; dup {
			return nil, fault.At("nodes"+fault.Index(i)+".id", fault.Duplicate, "influence node identities are unique")
		}
		at[e.node.id] = i
		entries = append(entries, e)
	}
	for i, e := range entries {
		for _, p := range e.parents {
			path := func() string { return "nodes" + fault.Index(i) + ".parents" + fault.Index(p.index) }
			pi, ok := at[p.id]
			switch {
			case !ok && completeIn(cols, e.node.boundary):
				return nil, fault.At(path(), fault.Missing,
					"a complete boundary contains every node its graph references; missing material makes the completeness claim inconsistent")
			case !ok:
				return nil, fault.At(path(), fault.Missing, "a parent names an influence node of the same set")
			case entries[pi].node.boundary != e.node.boundary:
				return nil, fault.At(path(), fault.Mismatch,
					"a parent edge stays within one collection boundary (cross-boundary edge)")
			}
		}
	}
	return sortGraph(entries), nil
}

func parseNode(d NodeDraft, cols []Collection) (entry, error) {
	var n Node
	var err error
	if n.id, err = ident.ParseControlledID(d.ID); err != nil {
		return entry{}, fault.Within("id", err)
	}
	if n.kind, err = vocab.ParseInfluenceKind(d.Kind); err != nil {
		return entry{}, fault.Within("kind", err)
	}
	if n.boundary, err = ident.ParseControlledID(d.Boundary); err != nil {
		return entry{}, fault.Within("boundary", err)
	}
	if _, ok := slices.BinarySearchFunc(cols, n.boundary, func(c Collection, b ident.ControlledID) int {
		return c.boundary.Compare(b)
	}); !ok {
		return entry{}, fault.At("boundary", fault.NotFound, "a node belongs to a declared collection boundary")
	}
	if len(d.Parents) == 0 {
		return entry{node: n}, nil
	}
	parents := make([]keyed, 0, len(d.Parents))
	var seen map[ident.ControlledID]bool // only for many parents; few are compared directly
	if len(d.Parents) > 16 {
		seen = make(map[ident.ControlledID]bool, len(d.Parents))
	}
	for j, s := range d.Parents {
		p, err := ident.ParseControlledID(s)
		if err != nil {
			return entry{}, fault.Within("parents"+fault.Index(j), err)
		}
		if p == n.id {
			return entry{}, fault.At("parents"+fault.Index(j), fault.Malformed, "a node is not its own parent (self edge)")
		}
		dup := seen[p]
		if seen == nil {
			dup = slices.ContainsFunc(parents, func(k keyed) bool { return k.id == p })
		} else {
			seen[p] = true
		}
		if dup {
			return entry{}, fault.At("parents"+fault.Index(j), fault.Duplicate, "the parents of a node are unique")
		}
		parents = append(parents, keyed{id: p, index: j})
	}
	n.parents = make([]ident.ControlledID, 0, len(parents))
	for _, p := range parents {
		n.parents = append(n.parents, p.id)
	}
	slices.SortFunc(n.parents, ident.ControlledID.Compare)
	return entry{node: n, parents: parents}, nil
}

// completeIn reports whether boundary b is declared complete in cols.
func completeIn(cols []Collection, b ident.ControlledID) bool {
	i, ok := slices.BinarySearchFunc(cols, b, func(c Collection, b ident.ControlledID) int { return c.boundary.Compare(b) })
	return ok && cols[i].IsComplete()
}

// sortGraph orders the nodes by identity and resolves parents to positions.
// Every parent is known to exist.
func sortGraph(entries []entry) *graph {
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return entries[x].node.id.Compare(entries[y].node.id) })
	g := &graph{
		nodes:   make([]Node, len(entries)),
		index:   order,
		parents: make([][]int, len(entries)),
	}
	for k, i := range order {
		g.nodes[k] = entries[i].node
	}
	edges := 0
	for _, n := range g.nodes {
		edges += len(n.parents)
	}
	all := make([]int, 0, edges) // every node's parent positions, each capped at its own
	for k, n := range g.nodes {
		start := len(all)
		for _, p := range n.parents {
			pos, _ := slices.BinarySearchFunc(g.nodes, p, func(m Node, id ident.ControlledID) int { return m.id.Compare(id) })
			all = append(all, pos)
		}
		g.parents[k] = all[start:len(all):len(all)]
	}
	return g
}

// checkAcyclic runs Kahn's algorithm over the nodes in identity order. When
// nodes remain, it follows the smallest remaining parent from the smallest
// remaining node until it is on a cycle, and reports the cycle's smallest
// node, so the rejection path is independent of draft order.
func (g *graph) checkAcyclic() error {
	n, edges := len(g.nodes), 0
	for _, ps := range g.parents {
		edges += len(ps)
	}
	// One array: unresolved parents per node, the queue, and every node's
	// children (positions start[p]..start[p+1] of kids, in node order).
	buf := make([]int, 4*n+1+edges)
	pending, start, fill := buf[:n:n], buf[n:2*n+1:2*n+1], buf[2*n+1:3*n+1:3*n+1]
	kids := buf[3*n+1 : 3*n+1+edges : 3*n+1+edges]
	queue := buf[3*n+1+edges : 3*n+1+edges : 4*n+1+edges]
	for _, ps := range g.parents {
		for _, p := range ps {
			start[p+1]++
		}
	}
	for p := range n {
		start[p+1] += start[p]
	}
	copy(fill, start[:n])
	for k, ps := range g.parents {
		pending[k] = len(ps)
		for _, p := range ps {
			kids[fill[p]] = k
			fill[p]++
		}
		if len(ps) == 0 {
			queue = append(queue, k)
		}
	}
	for head := 0; head < len(queue); head++ {
		p := queue[head]
		for _, c := range kids[start[p]:start[p+1]] {
			if pending[c]--; pending[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	if len(queue) == n {
		return nil
	}
	// A remaining node always has a remaining parent.
	next := func(k int) int {
		ps := g.parents[k]
		return ps[slices.IndexFunc(ps, func(p int) bool { return pending[p] > 0 })]
	}
	cur := slices.IndexFunc(pending, func(c int) bool { return c > 0 })
	for range n {
		cur = next(cur)
	}
	low := cur
	for k := next(cur); k != cur; k = next(k) {
		low = min(low, k)
	}
	return fault.At("nodes"+fault.Index(g.index[low])+".parents", fault.Malformed,
		"influence parent relationships are acyclic")
}
