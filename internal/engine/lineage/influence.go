package lineage

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// CollectionDraft is the Host's description of one Influence collection
// boundary. Evidence (the collector's evidence reference) is required when
// Completeness is complete and forbidden otherwise.
type CollectionDraft struct{ Boundary, Completeness, Evidence string }

// NodeDraft is the Host's description of one Influence record: its identity,
// kind, collection boundary and the identities of the nodes that shaped it.
type NodeDraft struct {
	ID, Kind, Boundary string
	Parents            []string
}

// Collection is one validated collection boundary.
type Collection struct {
	boundary     ident.ControlledID
	completeness vocab.Completeness
	evidence     ident.ControlledID
}

// Boundary returns the collection boundary identity.
func (c Collection) Boundary() ident.ControlledID { return c.boundary }

// Completeness returns the boundary-local completeness.
func (c Collection) Completeness() vocab.Completeness { return c.completeness }

// IsComplete reports whether the boundary is claimed complete.
func (c Collection) IsComplete() bool { return c.completeness == vocab.CompletenessComplete }

// Evidence returns the collector evidence reference backing a complete
// boundary; zero for unknown and partial boundaries.
func (c Collection) Evidence() ident.ControlledID { return c.evidence }

// compare orders a collection against a boundary identity (binary search).
func (c Collection) compare(b ident.ControlledID) int { return c.boundary.Compare(b) }

// Node is one validated Influence record.
type Node struct {
	id       ident.ControlledID
	kind     vocab.InfluenceKind
	boundary ident.ControlledID
	parents  []ident.ControlledID // unique, ASCII order
}

// ID returns the node identity.
func (n Node) ID() ident.ControlledID { return n.id }

// Kind returns the Influence kind.
func (n Node) Kind() vocab.InfluenceKind { return n.kind }

// compare orders a node against an identity (binary search).
func (n Node) compare(id ident.ControlledID) int { return n.id.Compare(id) }

// Boundary returns the collection boundary the node belongs to.
func (n Node) Boundary() ident.ControlledID { return n.boundary }

// Parents returns a copy of the parent identities in ASCII order.
func (n Node) Parents() []ident.ControlledID { return slices.Clone(n.parents) }

// Influence is a controlled, immutable Influence set bound to one Proposal
// Assessment, identity and Host authority domain.
type Influence struct {
	attested
	collections []Collection // boundary ASCII order
	nodes       []Node       // identity ASCII order
	edges       int
}

// NewInfluence validates an Influence graph for assessment a and identity
// id, attested by c under attestationID for validity. c must hold the
// influenceCollector role (Unauthorized otherwise) in a's Host domain
// (MixedDomain otherwise).
//
// Collections: 0–8, unique boundaries, exactly a.InfluenceIDs() (Mismatch
// otherwise); a complete boundary names its collector evidence (Missing
// otherwise) and a non-complete boundary names none (Mismatch: inconsistent
// completeness). Nodes: 0–64, unique; each in a declared boundary
// (NotFound). Parents: unique (Duplicate), not the node itself (Malformed),
// present (Missing; within a complete boundary this is missing material
// that makes the claim inconsistent), in the node's own boundary (Mismatch:
// cross-boundary edge); at most 128 edges in aggregate; the graph is acyclic
// (Malformed). Nodes are returned in identity order, parents in ASCII order.
func NewInfluence(c *authority.RoleAuthority, attestationID string, validity epoch.Validity,
	a *assessment.Assessment, id principal.Identity, collections []CollectionDraft, nodes []NodeDraft) (*Influence, error) {
	err := checkBinding(c, vocab.FactInfluenceCollection,
		"influence is attested only by the influenceCollector role", validity, a, id)
	if err != nil {
		return nil, err
	}
	if len(collections) > MaxCollections {
		return nil, fault.At("collections", fault.LimitExceeded, "an influence set has at most 8 collection boundaries")
	}
	if len(nodes) > MaxNodes {
		return nil, fault.At("nodes", fault.LimitExceeded, "an influence set has at most 64 nodes")
	}
	edges := 0
	for _, n := range nodes {
		edges += len(n.Parents)
	}
	if edges > MaxEdges {
		return nil, fault.At("nodes", fault.LimitExceeded, "an influence set has at most 128 parent edges in aggregate")
	}
	cols, err := parseCollections(collections, a)
	if err != nil {
		return nil, err
	}
	sc := graphScratches.Get().(*graphScratch)
	defer sc.release()
	g, err := parseNodes(sc, nodes, cols, edges)
	if err != nil {
		return nil, err
	}
	if err := g.checkAcyclic(); err != nil {
		return nil, err
	}
	v := &Influence{
		attested:    attested{domain: a.Domain(), assessment: a, identity: id},
		collections: cols,
		nodes:       g.nodes,
		edges:       edges,
	}
	if err := v.seal(influenceLabel, v.contentDigest(validity), c, attestationID, vocab.FactInfluenceCollection, validity); err != nil {
		return nil, err
	}
	return v, nil
}

// NoInfluence returns an Influence set with no collections, no nodes and no
// attestation. It is only for an assessment that expects no Influence
// collections (Mismatch otherwise). It states nothing about completeness.
func NoInfluence(a *assessment.Assessment, id principal.Identity) (*Influence, error) {
	if err := checkSubject(a, id); err != nil {
		return nil, err
	}
	if a.NumInfluenceIDs() != 0 {
		return nil, fault.At("collections", fault.Mismatch,
			"the assessment expects influence collections; no influence cannot replace them")
	}
	v := &Influence{attested: attested{domain: a.Domain(), assessment: a, identity: id}}
	v.sealUnattested(influenceLabel, v.contentDigest(epoch.Validity{}))
	return v, nil
}

func parseCollections(drafts []CollectionDraft, a *assessment.Assessment) ([]Collection, error) {
	cols := make([]Collection, 0, len(drafts))
	// MaxCollections bounds the drafts (checked by the caller), so the keys
	// fit an array on the stack.
	var keyBuf [MaxCollections]keyed
	keys := keyBuf[:0]
	for i, d := range drafts {
		path := func() string { return "collections" + fault.Index(i) }
		var col Collection
		var err error
		if col.boundary, err = ident.ParseControlledID(d.Boundary); err != nil {
			return nil, fault.Within(path()+".boundary", err)
		}
		if slices.ContainsFunc(cols, func(c Collection) bool { return c.boundary == col.boundary }) {
			return nil, fault.At(path()+".boundary", fault.Duplicate, "influence collection boundaries are unique")
		}
		if col.completeness, err = vocab.ParseCompleteness(d.Completeness); err != nil {
			return nil, fault.Within(path()+".completeness", err)
		}
		switch {
		case col.IsComplete():
			if col.evidence, err = parseEvidenceRef(d.Evidence, path()+".evidence",
				"a complete boundary names the collector evidence for every influence within it"); err != nil {
				return nil, err
			}
		case d.Evidence != "":
			return nil, fault.At(path()+".evidence", fault.Mismatch,
				"collector evidence accompanies only a complete boundary (inconsistent completeness)")
		}
		cols = append(cols, col)
		keys = append(keys, keyed{id: col.boundary, index: i})
	}
	slices.SortFunc(cols, func(x, y Collection) int { return x.boundary.Compare(y.boundary) })
	slices.SortFunc(keys, func(x, y keyed) int { return x.id.Compare(y.id) })
	if err := matchExpected(keys, a.NumInfluenceIDs(), a.InfluenceIDAt, "collections", "boundary",
		"the collection boundary is not one the assessment expects (collection substitution)",
		"every influence collection the assessment expects must be declared"); err != nil {
		return nil, err
	}
	return cols, nil
}

// Collections returns a copy of the collection boundaries in ASCII order.
func (v *Influence) Collections() []Collection { return slices.Clone(v.collections) }

// NumCollections returns the number of collections.
func (v *Influence) NumCollections() int { return len(v.collections) }

// CollectionAt returns collection i (the order of Collections), 0 ≤ i <
// NumCollections, without copying the others.
func (v *Influence) CollectionAt(i int) Collection { return v.collections[i] }

// Collection returns the collection with boundary b.
func (v *Influence) Collection(b ident.ControlledID) (Collection, bool) {
	return find(v.collections, b, Collection.compare)
}

// Nodes returns a copy of the nodes in identity ASCII order.
func (v *Influence) Nodes() []Node { return slices.Clone(v.nodes) }

// NumNodes returns the number of Influence records.
func (v *Influence) NumNodes() int { return len(v.nodes) }

// NodeAt returns Influence record i (the order of Nodes), 0 ≤ i < NumNodes,
// without copying the others. A Node is an immutable value.
func (v *Influence) NodeAt(i int) Node { return v.nodes[i] }

// Node returns the node with identity id.
func (v *Influence) Node(id ident.ControlledID) (Node, bool) {
	return find(v.nodes, id, Node.compare)
}

// Len returns the number of nodes (the Influence record count).
func (v *Influence) Len() int { return len(v.nodes) }

// Edges returns the number of parent edges.
func (v *Influence) Edges() int { return v.edges }

// Equal reports exact continuity: the same retained Host domain and the same
// complete content, attestation included.
func (v *Influence) Equal(o *Influence) bool {
	return v != nil && o != nil && v.domain.Same(o.domain) && v.digest.Equal(o.digest)
}

func (v *Influence) contentDigest(validity epoch.Validity) digest.Digest {
	b := digest.New(influenceContentLabel)
	writeBinding(b, v.assessment, v.identity, validity)
	b.Count(len(v.collections))
	for _, c := range v.collections {
		b.String(c.boundary.String())
		b.Uint(uint64(c.completeness))
		if c.evidence.IsZero() {
			b.Absent()
		} else {
			b.String(c.evidence.String())
		}
	}
	b.Count(len(v.nodes))
	for _, n := range v.nodes {
		b.String(n.id.String())
		b.Uint(uint64(n.kind))
		b.String(n.boundary.String())
		b.Count(len(n.parents))
		for _, p := range n.parents {
			b.String(p.String())
		}
	}
	return b.Sum()
}
