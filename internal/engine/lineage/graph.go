package lineage

import (
	"slices"
	"sync"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// graph is a validated Influence node set in identity ASCII order, with the
// draft index of each node (for rejection paths) and each node's parents as
// positions in that order. Only nodes outlives the NewInfluence call; the
// rest is scratch.
type graph struct {
	nodes      []Node
	index      []int
	parents    [][]int
	acyclicBuf []int // checkAcyclic's array
}

// entry is one parsed node in draft order.
type entry struct {
	node    Node
	parents []keyed // draft order, with draft index
}

// graphScratch is the transient storage of one NewInfluence call: the
// entries, their draft-order parents, and the graph's order, parent
// positions and acyclicity check array (its nodes are kept). Its size is bounded by
// MaxNodes and MaxEdges. release clears it (no identity of one request
// stays reachable) and returns it to the pool.
type graphScratch struct {
	entries []entry
	keyed   []keyed
	g       graph
	all     []int
}

var graphScratches = sync.Pool{New: func() any { return new(graphScratch) }}

func (sc *graphScratch) release() {
	clear(sc.entries[:cap(sc.entries)])
	clear(sc.keyed[:cap(sc.keyed)])
	clear(sc.g.parents[:cap(sc.g.parents)])
	sc.entries, sc.keyed, sc.all = sc.entries[:0], sc.keyed[:0], sc.all[:0]
	sc.g = graph{index: sc.g.index[:0], parents: sc.g.parents[:0], acyclicBuf: sc.g.acyclicBuf[:0]}
	graphScratches.Put(sc)
}

// smallGraph is the node count up to which identities are found by a
// linear scan; larger sets use a map so the checks stay linear.
const smallGraph = 16

// parseNodes parses the node drafts against the declared collections (ASCII
// order) and checks every parent relationship except acyclicity. Rejections
// are reported in draft order. The kept parent lists of all nodes share
// one array of edges entries; everything else is in sc.
func parseNodes(sc *graphScratch, drafts []NodeDraft, cols []Collection, edges int) (*graph, error) {
	entries := sc.entries[:0]
	var backing []ident.ControlledID
	if edges > 0 {
		backing = make([]ident.ControlledID, 0, edges)
	}
	var at map[ident.ControlledID]int // node identity -> draft index, only for many nodes
	if len(drafts) > smallGraph {
		at = make(map[ident.ControlledID]int, len(drafts))
	}
	find := func(id ident.ControlledID) (int, bool) {
		if at != nil {
			i, ok := at[id]
			return i, ok
		}
		i := slices.IndexFunc(entries, func(e entry) bool { return e.node.id == id })
		return i, i >= 0
	}
	for i, d := range drafts {
		e, err := parseNode(sc, d, cols, &backing)
		if err != nil {
			sc.entries = entries
			return nil, fault.Within("nodes"+fault.Index(i), err)
		}
		if _, dup := find(e.node.id); dup {
			sc.entries = entries
			return nil, fault.At("nodes"+fault.Index(i)+".id", fault.Duplicate, "influence node identities are unique")
		}
		if at != nil {
			at[e.node.id] = i
		}
		entries = append(entries, e)
	}
	sc.entries = entries
	for i, e := range entries {
		for _, p := range e.parents {
			path := func() string { return "nodes" + fault.Index(i) + ".parents" + fault.Index(p.index) }
			pi, ok := find(p.id)
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
	return sortGraph(sc, entries), nil
}

// parseNode parses one node draft. Its draft-order parents go to sc.keyed
// (entry.parents is a sub-slice of it) and its kept, sorted parents to the
// shared *backing array.
func parseNode(sc *graphScratch, d NodeDraft, cols []Collection, backing *[]ident.ControlledID) (entry, error) {
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
	if _, ok := slices.BinarySearchFunc(cols, n.boundary, Collection.compare); !ok {
		return entry{}, fault.At("boundary", fault.NotFound, "a node belongs to a declared collection boundary")
	}
	if len(d.Parents) == 0 {
		return entry{node: n}, nil
	}
	base := len(sc.keyed)
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
			dup = slices.ContainsFunc(sc.keyed[base:], func(k keyed) bool { return k.id == p })
		} else {
			seen[p] = true
		}
		if dup {
			return entry{}, fault.At("parents"+fault.Index(j), fault.Duplicate, "the parents of a node are unique")
		}
		sc.keyed = append(sc.keyed, keyed{id: p, index: j})
	}
	parents := sc.keyed[base:len(sc.keyed):len(sc.keyed)]
	start := len(*backing)
	for _, p := range parents {
		*backing = append(*backing, p.id)
	}
	n.parents = (*backing)[start:len(*backing):len(*backing)]
	slices.SortFunc(n.parents, ident.ControlledID.Compare)
	return entry{node: n, parents: parents}, nil
}

// completeIn reports whether boundary b is declared complete in cols.
func completeIn(cols []Collection, b ident.ControlledID) bool {
	c, ok := find(cols, b, Collection.compare)
	return ok && c.IsComplete()
}

// sortGraph orders the nodes by identity and resolves parents to positions.
// Every parent is known to exist. The nodes array is the one kept; order
// and parent positions are in sc.
func sortGraph(sc *graphScratch, entries []entry) *graph {
	g := &sc.g
	order := slices.Grow(g.index[:0], len(entries))
	for i := range entries {
		order = append(order, i)
	}
	slices.SortFunc(order, func(x, y int) int { return entries[x].node.id.Compare(entries[y].node.id) })
	g.index = order
	g.nodes = make([]Node, len(entries))
	for k, i := range order {
		g.nodes[k] = entries[i].node
	}
	edges := 0
	for _, n := range g.nodes {
		edges += len(n.parents)
	}
	g.parents = slices.Grow(g.parents[:0], len(entries))[:len(entries)]
	all := slices.Grow(sc.all[:0], edges) // every node's parent positions, each capped at its own
	for k, n := range g.nodes {
		start := len(all)
		for _, p := range n.parents {
			pos, _ := slices.BinarySearchFunc(g.nodes, p, Node.compare)
			all = append(all, pos)
		}
		g.parents[k] = all[start:len(all):len(all)]
	}
	sc.all = all
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
	buf := slices.Grow(g.acyclicBuf[:0], 4*n+1+edges)[:4*n+1+edges]
	clear(buf)
	g.acyclicBuf = buf
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
