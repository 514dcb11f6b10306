package policy

import (
	"math/bits"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// This file builds the evaluation form of a Policy Definition, once, at
// publication (docs/decisions.md, "Digests, compiled policies and peer
// benchmarks"). The normalized condition trees stay the content of record
// (keys, digests, the reference evaluator in evaluate.go); the compiled form
// is derived from them and never changes a Decision:
//
//   - identifier operands are interned to small integers, so a predicate
//     compares two integers; Resources named by the policy (at most the 16
//     of the Host ceiling) become bits of a mask, so Resource sets and scope
//     constraints are bitsets like Capability sets already are;
//   - every rule carries the set of indeterminacy triggers of its
//     predicates. Because an indeterminate child makes any compound
//     indeterminate (Section 20), a rule is indeterminate exactly when one
//     of its predicates is, whatever the rest of the tree evaluates to; so
//     that is decided per rule from the input, before and without walking
//     the tree, and the tree itself is then two-valued and short-circuits;
//   - rules whose condition requires an exact tool, tenant or subject (the
//     predicate is the root or reachable from it through all nodes only) are
//     indexed by that identifier. A rule whose requirement differs from the
//     input cannot match; it is skipped only after its indeterminacy was
//     decided, so skipping hides no indeterminate predicate, and a rule that
//     does not match contributes nothing to outcome, reasons, matches,
//     obligations or scope;
//   - every rule's condition is split into its required predicates (those
//     reachable from the root through all nodes only: the rule matches only
//     if each holds) and its residual (the any nodes reached that way; the
//     rule matches exactly when every required predicate and every residual
//     node holds). Equal required predicates of different rules are one
//     column holding the set of rules that require it, so that evaluation
//     decides each distinct required predicate once for all the rules still
//     in question and removes the rules it fails from the candidates, then
//     walks only the residual trees of the rules left. This is the
//     two-valued tree walk reordered and shared, not a different reading: a
//     condition is an and/or tree of two-valued predicates once
//     indeterminacy is decided, so its value does not depend on the order
//     in which its conjuncts are decided, and a predicate's value depends on
//     the input only, not on the rule that names it.

// Indeterminacy triggers: the input conditions under which a predicate is
// indeterminate (the Section 20 table's "Indeterminate case" column, as
// predicate.eval implements it).
const (
	trigSessionIndependent = 1 << iota // exactSession
	trigNoDelegation                   // exactDelegationID
	trigNotRepresented                 // provenanceContainsSource, -Transformation, -NoSemanticTransformation
	trigNoTrustEvidence                // provenanceTrustIsOneOf: not represented, or no record
	trigNoCollections                  // allInfluenceBoundariesComplete, influenceContainsNoKind
	trigIntentFuture                   // maximumIntentAge: evaluation precedes the Intent
	trigContextFuture                  // maximumContextAge: evaluation precedes the Security Context
	// influenceBoundaryCompletenessIs is indeterminate when its boundary is
	// absent from the input: per rule, a list of boundaries (cRule.boundaries).

	numTriggers = iota
)

// The input facts a compiled definition reads beyond the identity, tool and
// times, so that evaluation asks the input only for those (each collection
// accessor of an Evaluation Input returns a copy).
const (
	needMethods     = 1 << iota // authentication methods
	needRequested               // requested Capabilities and Resources (predicates, or a non-deny rule's scope)
	needIntended                // intended Capabilities
	needRecords                 // Provenance records
	needCollections             // Influence collections
	needKinds                   // Influence kinds
	needDefinition              // identifiers other than tool, tenant and subject (which the indexes always read)
	needRegistry
	needSession
	needDelegation
)

// ruleSet is a set of rule positions of one definition (at most
// MaxRulesPerPolicy = 128).
type ruleSet [2]uint64

func (s *ruleSet) add(i int)            { s[i>>6] |= 1 << (i & 63) }
func (s ruleSet) and(t ruleSet) ruleSet { return ruleSet{s[0] & t[0], s[1] & t[1]} }
func (s ruleSet) or(t ruleSet) ruleSet  { return ruleSet{s[0] | t[0], s[1] | t[1]} }
func (s ruleSet) len() int              { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }

// cNode is one compiled condition node. Compound nodes hold their children
// as the range nodes[first : first+n] of the definition's flat node list.
type cNode struct {
	kind     vocab.Predicate // 0 for a compound
	all      bool            // compound: all (true) or any (false)
	first, n int32
	id       int32  // interned identifier operand; -1 when none
	num      uint64 // generation, count or seconds
	enum     uint8
	mask     uint32 // closed-vocabulary or Capability set
	res      uint64 // Resource set, bit 1<<(interned Resource + 1)
	window   epoch.Validity
	boundary string // influenceBoundaryCompletenessIs, exactInfluenceBoundary
}

// cRule is the evaluation form of one rule.
type cRule struct {
	rule       *Rule
	triggers   uint32
	boundaries []string // boundaries whose absence makes the rule indeterminate
	res        uint64   // scope constraint Resources as a mask (non-deny rules)
	residual   []int32  // the any nodes the rule requires besides its columns
}

// column is one distinct required predicate (a leaf node) and the rules
// that require it.
type column struct {
	node  int32
	rules ruleSet
}

// compiled is the evaluation form of one Definition.
type compiled struct {
	// Interned identifier operands, and Resources (bit 1<<(index+1); bit 0
	// is "not named by this policy"): maps while compiling, then the
	// tables evaluation probes.
	names, resources         map[string]int32
	nameTable, resourceTable internTable
	nodes                    []cNode
	rules                    []cRule
	triggers                 uint32               // union over rules
	boundary                 ruleSet              // rules with boundary triggers
	byTrigger                [numTriggers]ruleSet // the rules with each trigger
	needs                    uint32               // the input facts some rule reads (need* bits)

	// Indexes: for each interned identifier, the rules requiring exactly it;
	// and the rules with no such requirement.
	// Indexed by interned identifier (shorter when the last ones are
	// never required), so the lookup is a bounds check and a load.
	byTool, byTenant, bySubject    []ruleSet
	anyTool, anyTenant, anySubject ruleSet

	// The distinct required predicates, those required by the most rules
	// first, else in order of first appearance (rule order, then tree
	// order).
	columns []column
}

// maxCompiledResources is the number of distinct Resources a compiled
// definition can hold in a mask (bit 0 is reserved). The Host ceiling
// allows 16, so every publishable definition fits; compile returns nil
// otherwise and the reference evaluator is used.
const maxCompiledResources = 63

// compile builds the evaluation form of d, or nil when d cannot be
// compiled (then the reference evaluator evaluates it).
func compile(d *Definition) *compiled {
	c := &compiled{
		names: map[string]int32{}, resources: map[string]int32{},
	}
	// The scope Resources first, in order, so that interned Resource n <
	// len(d.scopeResources) is position n there (constrainCompiled).
	if _, ok := c.resourceMask(d.scopeResources); !ok {
		return nil
	}
	c.rules = make([]cRule, len(d.rules))
	columns := map[cNode]int{} // compile-time only; looked up, never ranged over
	for i, r := range d.rules {
		cr := &c.rules[i]
		cr.rule = r
		root, ok := c.node(r.condition, cr)
		if !ok {
			return nil
		}
		c.split(root, cr, i, columns)
		if r.effect != vocab.Deny {
			c.needs |= needRequested
			m, ok := c.resourceMask(r.resources)
			if !ok {
				return nil
			}
			cr.res = m
		}
		c.triggers |= cr.triggers
		for t := range numTriggers {
			if cr.triggers&(1<<t) != 0 {
				c.byTrigger[t].add(i)
			}
		}
		if len(cr.boundaries) > 0 {
			c.boundary.add(i)
		}
		index(c, r.condition, i, vocab.ExactToolID, &c.byTool, &c.anyTool)
		index(c, r.condition, i, vocab.ExactTenant, &c.byTenant, &c.anyTenant)
		index(c, r.condition, i, vocab.ExactSubject, &c.bySubject, &c.anySubject)
	}
	// The columns required by the most rules first: one that fails then
	// removes the most candidates, and the many columns of one rule each
	// are mostly skipped for a rule already removed. A stable sort on the
	// first-appearance order keeps the layout deterministic.
	slices.SortStableFunc(c.columns, func(a, b column) int { return b.rules.len() - a.rules.len() })
	c.nameTable = newInternTable(c.names, evalinput.HashIdentifier)
	c.resourceTable = newInternTable(c.resources, evalinput.HashIdentifier)
	c.names, c.resources = nil, nil // compile-time only
	return c
}

func (c *compiled) intern(s string) int32 {
	if n, ok := c.names[s]; ok {
		return n
	}
	n := int32(len(c.names))
	c.names[s] = n
	return n
}

func (c *compiled) internResource(s string) (uint64, bool) {
	n, ok := c.resources[s]
	if !ok {
		if len(c.resources) == maxCompiledResources {
			return 0, false
		}
		n = int32(len(c.resources))
		c.resources[s] = n
	}
	return 1 << (n + 1), true
}

func (c *compiled) resourceMask(rs []ident.Resource) (uint64, bool) {
	var m uint64
	for _, r := range rs {
		b, ok := c.internResource(r.String())
		if !ok {
			return 0, false
		}
		m |= b
	}
	return m, true
}

// node appends the compiled form of n and its subtree and returns its
// position; false when a node cannot be compiled.
func (c *compiled) node(n *Condition, r *cRule) (int32, bool) {
	at := int32(len(c.nodes))
	c.nodes = append(c.nodes, cNode{})
	return at, c.fill(at, n, r)
}

// fill writes the compiled form of n at position at. A compound node's
// children occupy one contiguous block appended after everything so far.
func (c *compiled) fill(at int32, n *Condition, r *cRule) bool {
	if n.kind != vocab.ConditionPredicate {
		first := int32(len(c.nodes))
		c.nodes = append(c.nodes, make([]cNode, len(n.children))...)
		for i, ch := range n.children {
			if !c.fill(first+int32(i), ch, r) {
				return false
			}
		}
		c.nodes[at] = cNode{all: n.kind == vocab.ConditionAll, first: first, n: int32(len(n.children)), id: -1}
		return true
	}
	p := &n.pred
	cn := cNode{kind: p.name, id: -1, num: p.num, enum: p.enum, mask: p.mask, window: p.window}
	c.needs |= needsOf(p.name)
	switch p.name {
	case vocab.ExactToolID, vocab.ExactDefinitionID, vocab.ExactRegistrySnapshot,
		vocab.ExactSubject, vocab.ExactTenant:
		cn.id = c.intern(p.id)
	case vocab.ExactSession:
		cn.id = c.intern(p.id)
		r.triggers |= trigSessionIndependent
	case vocab.ExactDelegationID:
		cn.id = c.intern(p.id)
		r.triggers |= trigNoDelegation
	case vocab.ExactRequestedResource:
		b, ok := c.internResource(p.id)
		if !ok {
			return false
		}
		cn.res = b
	case vocab.RequestedResourcesSubsetOf, vocab.RequestedResourcesInclude:
		m, ok := c.resourceMask(p.resources)
		if !ok {
			return false
		}
		cn.res = m
	case vocab.ProvenanceContainsSource, vocab.ProvenanceContainsTransformation,
		vocab.ProvenanceContainsNoSemanticTransformation:
		r.triggers |= trigNotRepresented
	case vocab.ProvenanceTrustIsOneOf:
		r.triggers |= trigNoTrustEvidence
	case vocab.AllInfluenceBoundariesComplete, vocab.InfluenceContainsNoKind:
		r.triggers |= trigNoCollections
	case vocab.InfluenceBoundaryCompletenessIs:
		cn.boundary = p.id
		if !slices.Contains(r.boundaries, p.id) {
			r.boundaries = append(r.boundaries, p.id)
		}
	case vocab.ExactInfluenceBoundary:
		cn.boundary = p.id
	case vocab.MaximumIntentAge:
		r.triggers |= trigIntentFuture
	case vocab.MaximumContextAge:
		r.triggers |= trigContextFuture
	case vocab.LifecycleIs, vocab.RiskIs, vocab.SideEffectIs, vocab.ReversibilityIs,
		vocab.SessionIsIndependent, vocab.DelegationPresent, vocab.AssuranceIsOneOf,
		vocab.AuthenticationMethodIncludes, vocab.AuthenticationMethodsIncludeAll,
		vocab.RequestedCapabilitiesSubsetOf, vocab.RequestedCapabilitiesInclude,
		vocab.IntendedCapabilitiesInclude, vocab.ProvenanceCoverageIs, vocab.InfluenceContainsKind,
		vocab.MaximumInfluenceCount, vocab.EvaluationTimeWithin, vocab.RenewalGenerationIs,
		vocab.ExactToolVersion:
	default:
		// Not a published predicate: leave it to the reference evaluator,
		// which fails closed.
		return false
	}
	c.nodes[at] = cn
	return true
}

// split files the condition at node at of rule i (cr) under its required
// predicates' columns and its residual any nodes.
func (c *compiled) split(at int32, cr *cRule, i int, columns map[cNode]int) {
	n := c.nodes[at]
	switch {
	case n.kind != 0:
		k, ok := columns[n]
		if !ok {
			k = len(c.columns)
			columns[n] = k
			c.columns = append(c.columns, column{node: at})
		}
		c.columns[k].rules.add(i)
	case n.all:
		for j := n.first; j < n.first+n.n; j++ {
			c.split(j, cr, i, columns)
		}
	default:
		cr.residual = append(cr.residual, at)
	}
}

// index records rule i under the identifier that its condition requires
// for predicate kind k, or among the rules without such a requirement. A
// requirement is a k predicate at the root or reachable from it through
// all nodes only: the rule cannot match unless that predicate matches.
// With two different required identifiers the rule can never match; it is
// indexed under the first, which is still exact.
func index(c *compiled, n *Condition, i int, k vocab.Predicate, by *[]ruleSet, none *ruleSet) {
	if id, ok := required(n, k); ok {
		at := int(c.names[id])
		if at >= len(*by) {
			*by = append(*by, make([]ruleSet, at+1-len(*by))...)
		}
		(*by)[at].add(i)
		return
	}
	none.add(i)
}

func required(n *Condition, k vocab.Predicate) (string, bool) {
	switch n.kind {
	case vocab.ConditionPredicate:
		return n.pred.id, n.pred.name == k
	case vocab.ConditionAll:
		for _, ch := range n.children {
			if id, ok := required(ch, k); ok {
				return id, true
			}
		}
	}
	return "", false
}

// needsOf is the collection facts predicate kind k reads.
func needsOf(k vocab.Predicate) uint32 {
	switch k {
	case vocab.AuthenticationMethodIncludes, vocab.AuthenticationMethodsIncludeAll:
		return needMethods
	case vocab.RequestedCapabilitiesSubsetOf, vocab.RequestedCapabilitiesInclude,
		vocab.ExactRequestedResource, vocab.RequestedResourcesSubsetOf, vocab.RequestedResourcesInclude:
		return needRequested
	case vocab.IntendedCapabilitiesInclude:
		return needIntended
	case vocab.ProvenanceContainsSource, vocab.ProvenanceTrustIsOneOf, vocab.ProvenanceContainsTransformation,
		vocab.ProvenanceContainsNoSemanticTransformation:
		return needRecords
	case vocab.InfluenceBoundaryCompletenessIs, vocab.AllInfluenceBoundariesComplete, vocab.ExactInfluenceBoundary:
		return needCollections
	case vocab.InfluenceContainsNoKind:
		return needCollections | needKinds
	case vocab.InfluenceContainsKind, vocab.MaximumInfluenceCount:
		return needKinds
	case vocab.ExactDefinitionID:
		return needDefinition
	case vocab.ExactRegistrySnapshot:
		return needRegistry
	case vocab.ExactSession:
		return needSession
	case vocab.ExactDelegationID:
		return needDelegation
	}
	return 0
}

// internTable finds an interned string of a compiled definition by its
// evalinput.HashIdentifier, which the Evaluation Input computed once at
// construction, so evaluation hashes nothing: open addressing with linear
// probing in a power-of-two table at most half full. A hit compares the
// text too, so a hash collision never confuses two identifiers; it costs
// at most a longer probe. Built once, from the sorted keys (the layout
// does not depend on map order), and never modified.
type internTable struct {
	slots []internSlot
}

type internSlot struct {
	hash uint64
	text string
	n    int32 // interned value + 1; 0 marks an empty slot
}

func newInternTable(m map[string]int32, hash func(string) uint64) internTable {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	size := 1
	for size < 2*len(keys) {
		size <<= 1
	}
	t := internTable{slots: make([]internSlot, size)}
	mask := uint64(size - 1)
	for _, k := range keys {
		h := hash(k)
		i := h & mask
		for t.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = internSlot{hash: h, text: k, n: m[k] + 1}
	}
	return t
}

// find returns the interned value of id (its text and hash), or -1 when
// the definition never names it.
func (t *internTable) find(id evalinput.Identifier) int32 {
	return t.findHashed(id.Hash, id.Text)
}

// findHashed is find of text, whose hash is h.
func (t *internTable) findHashed(h uint64, text string) int32 {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := &t.slots[i]
		if e.n == 0 {
			return -1
		}
		if e.hash == h && e.text == text {
			return e.n - 1
		}
	}
}
