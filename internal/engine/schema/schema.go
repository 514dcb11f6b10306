package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Schema limits of Section 39. Every bound is inclusive and checked at the
// exact boundary; nothing is truncated.
const (
	// MaxFields bounds the declared fields of one object Schema (0–64) and
	// the members of one object input.
	MaxFields = value.MaxFields
	// MaxCases bounds the cases of one enumeration Schema (1–64).
	MaxCases = 64
	// MaxElements bounds the elements of one array input (0–64).
	MaxElements = value.MaxElements
	// MaxStringLen bounds one string input in octets (0–1,024).
	MaxStringLen = value.MaxStringLen
	// MaxDepth bounds the levels of a Schema tree, counting the root as
	// level 1; every node (field types, item schemas, scalar leaves) sits one
	// level below its parent.
	MaxDepth = 8
	// MaxNodes bounds the nodes of a complete Schema tree: the root, every
	// field type and every item schema.
	MaxNodes = 256
)

// digestLabel is the digest domain of Schema content; the "/1" is the
// digest encoding version, not the Schema version (which is hashed too).
const digestLabel = "toolgate.schema/1"

// Rules of New. Constant text: a draft token may itself be the invalid
// value, so no rule quotes the draft.
const (
	ruleID          = "schema identity is required"
	ruleRootKind    = "a version 1 schema root must be of kind object"
	ruleDepth       = "a schema is at most 8 levels deep, counting the root; every field type and item schema adds a level"
	ruleNodes       = "a schema has at most 256 nodes, counting the root, every field type and every item schema"
	ruleCasesOnly   = "cases are allowed only on kind enumeration"
	ruleItemsOnly   = "items are allowed only on kind array"
	ruleFieldsOnly  = "fields are allowed only on kind object"
	ruleCaseCount   = "an enumeration declares 1 to 64 cases"
	ruleDupCase     = "enumeration cases must be unique"
	ruleNoItems     = "an array declares its item schema in items"
	ruleManyFields  = "an object declares at most 64 fields"
	ruleDupField    = "field names must be unique within an object"
	ruleNotBuilt    = "the schema is not constructed; build it with schema.New"
	ruleVersionOnly = "schema version must be v1"
)

// node is one compiled, normalized Schema node. Nodes are never mutated
// after New returns, so Schemas share them freely.
type node struct {
	kind   vocab.ValueKind
	cases  []ident.Name // enumeration: ASCII order, unique
	items  *node        // array
	fields []field      // object: field-name ASCII order, unique
}

type field struct {
	name ident.Name
	req  vocab.Requirement
	typ  *node
}

// Schema is a constructed, immutable v1 Schema. The zero Schema is invalid
// and reports IsZero. Compare Schemas with [Equal], not ==.
type Schema struct {
	id      ident.SchemaID
	version vocab.Version
	root    *node
	nodes   int
	depth   int
	hasRes  bool
	scratch int // field slots Validate needs at most at once; see scratchFields
	content digest.Digest
}

// New builds a Schema from an untrusted draft (Section 10). It rejects an
// unknown version, a zero identity, a non-object root, unknown kind or
// requirement tokens, malformed or duplicate names and cases, attributes that
// do not belong to a node's kind, and every Section 39 bound; it never
// truncates. Error paths are relative to the schema ("fields[3].type.cases[5]")
// and use draft indices, because a draft name may be the invalid value.
func New(id ident.SchemaID, version vocab.Version, root Draft) (Schema, error) {
	if !version.IsValid() {
		return Schema{}, fault.At("version", fault.Unsupported, ruleVersionOnly)
	}
	if id.IsZero() {
		return Schema{}, fault.At("id", fault.Missing, ruleID)
	}
	kind, err := vocab.ParseValueKind(root.Kind)
	if err != nil {
		return Schema{}, fault.Within("kind", err)
	}
	if kind != vocab.KindObject {
		return Schema{}, fault.At("kind", fault.Unsupported, ruleRootKind)
	}
	var c compiler
	n, err := c.compile(&root, 1, "")
	if err != nil {
		return Schema{}, err
	}
	s := Schema{id: id, version: version, root: n, nodes: c.nodes, depth: c.depth, hasRes: c.hasRes,
		scratch: scratchFields(n)}
	s.content = s.computeDigest()
	return s, nil
}

// compiler carries the tree-wide counts of one New call. Counting as nodes
// are entered, with an early exit, bounds the work New does on any draft,
// including one whose Items pointers form a cycle.
type compiler struct {
	nodes  int
	depth  int
	hasRes bool
}

func (c *compiler) compile(d *Draft, depth int, path string) (*node, error) {
	if depth > MaxDepth {
		return nil, fault.At(path, fault.LimitExceeded, ruleDepth)
	}
	c.nodes++
	if c.nodes > MaxNodes {
		return nil, fault.At(path, fault.LimitExceeded, ruleNodes)
	}
	c.depth = max(c.depth, depth)
	kind, err := vocab.ParseValueKind(d.Kind)
	if err != nil {
		return nil, fault.Within(fault.Join(path, "kind"), err)
	}
	// Present means non-nil: an attribute written for another kind is a
	// confused declaration and is rejected rather than ignored.
	switch {
	case d.Cases != nil && kind != vocab.KindEnumeration:
		return nil, fault.At(fault.Join(path, "cases"), fault.Malformed, ruleCasesOnly)
	case d.Items != nil && kind != vocab.KindArray:
		return nil, fault.At(fault.Join(path, "items"), fault.Malformed, ruleItemsOnly)
	case d.Fields != nil && kind != vocab.KindObject:
		return nil, fault.At(fault.Join(path, "fields"), fault.Malformed, ruleFieldsOnly)
	}
	n := &node{kind: kind}
	//exhaustive:enforce
	switch kind {
	case vocab.KindString, vocab.KindBool, vocab.KindSignedInteger, vocab.KindUnsignedInteger:
		// Scalar kinds have no attributes.
	case vocab.KindResourceID:
		c.hasRes = true
	case vocab.KindEnumeration:
		n.cases, err = compileCases(d.Cases, fault.Join(path, "cases"))
	case vocab.KindArray:
		if d.Items == nil {
			return nil, fault.At(fault.Join(path, "items"), fault.Missing, ruleNoItems)
		}
		n.items, err = c.compile(d.Items, depth+1, fault.Join(path, "items"))
	case vocab.KindObject:
		n.fields, err = c.compileFields(d.Fields, depth, fault.Join(path, "fields"))
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func compileCases(cases []string, path string) ([]ident.Name, error) {
	switch {
	case len(cases) == 0:
		return nil, fault.At(path, fault.Missing, ruleCaseCount)
	case len(cases) > MaxCases:
		return nil, fault.At(path, fault.LimitExceeded, ruleCaseCount)
	}
	var errs fault.Errors // every case is checked: all violations are reported
	out := make([]ident.Name, len(cases))
	for i, s := range cases {
		n, err := ident.ParseName(s)
		if err != nil {
			errs.Add(index(path, i), err)
			continue
		}
		out[i] = n
	}
	if j := firstDuplicate(cases); j >= 0 {
		errs.Add("", fault.At(index(path, j), fault.Duplicate, ruleDupCase))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, ident.Name.Compare)
	return out, nil
}

func (c *compiler) compileFields(drafts []FieldDraft, depth int, path string) ([]field, error) {
	if len(drafts) > MaxFields {
		return nil, fault.At(path, fault.LimitExceeded, ruleManyFields)
	}
	// Every field is checked, so that a publication reports the violations
	// of all fields, in draft order, not only the first. A bound exceeded
	// (nodes, depth) stops the walk: the work New does stays bounded.
	var errs fault.Errors
	names := make([]string, len(drafts))
	out := make([]field, len(drafts))
	for i := range drafts {
		fd := &drafts[i]
		fp := index(path, i)
		name, err := ident.ParseName(fd.Name)
		if err != nil {
			errs.Add(fault.Join(fp, "name"), err)
		}
		req, err := vocab.ParseRequirement(fd.Requirement)
		if err != nil {
			errs.Add(fault.Join(fp, "requirement"), err)
		}
		names[i], out[i] = fd.Name, field{name: name, req: req}
	}
	if j := firstDuplicate(names); j >= 0 {
		errs.Add("", fault.At(fault.Join(index(path, j), "name"), fault.Duplicate, ruleDupField))
	}
	for i := range drafts {
		typ, err := c.compile(&drafts[i].Type, depth+1, fault.Join(index(path, i), "type"))
		if err != nil {
			errs.Add("", err)
			if fault.CodeOf(err) == fault.LimitExceeded {
				break
			}
			continue
		}
		out[i].typ = typ
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b field) int { return a.name.Compare(b.name) })
	return out, nil
}

// firstDuplicate returns the smallest index j such that s[j] equals an
// earlier element, or -1. Inputs are at most 64 long, already bounded.
func firstDuplicate(s []string) int {
	order := make([]int, len(s))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(s[a], s[b]) })
	j := -1
	for k := 1; k < len(order); k++ {
		if s[order[k]] == s[order[k-1]] && (j < 0 || order[k] < j) {
			j = order[k]
		}
	}
	return j
}

// scratchFields is the largest sum of object field counts along one
// root-to-leaf path: the most field slots Validate's scratch stack holds at
// once, so it can be allocated once per call.
func scratchFields(n *node) int {
	//exhaustive:enforce
	switch n.kind {
	case vocab.KindString, vocab.KindResourceID, vocab.KindBool, vocab.KindSignedInteger, vocab.KindUnsignedInteger, vocab.KindEnumeration:
		return 0
	case vocab.KindArray:
		return scratchFields(n.items)
	case vocab.KindObject:
		deepest := 0
		for _, f := range n.fields {
			deepest = max(deepest, scratchFields(f.typ))
		}
		return len(n.fields) + deepest
	}
	return 0
}

// ID returns the Schema identity.
func (s Schema) ID() ident.SchemaID { return s.id }

// Version returns the Schema version (always vocab.V1 for a constructed Schema).
func (s Schema) Version() vocab.Version { return s.version }

// Digest returns the digest of the complete Schema content: identity,
// version and every node (kind, requirement, field names, cases, item and
// field types) in normalized order.
func (s Schema) Digest() digest.Digest { return s.content }

// Nodes returns the number of nodes in the Schema tree, counting the root.
func (s Schema) Nodes() int { return s.nodes }

// Depth returns the number of levels of the Schema tree, counting the root.
func (s Schema) Depth() int { return s.depth }

// IsZero reports whether s is the invalid zero Schema.
func (s Schema) IsZero() bool { return s.root == nil }

// HasResources reports whether any node is of kind resourceID, that is
// whether validated arguments can derive any Resource.
func (s Schema) HasResources() bool { return s.hasRes }

// Equal reports complete content equality of a and b: same identity,
// version and normalized tree. Identifier equality alone is not enough
// (Section 9).
func (a Schema) Equal(b Schema) bool { return a.content.Equal(b.content) }

func (s Schema) computeDigest() digest.Digest {
	b := digest.New(digestLabel)
	b.String(s.id.String())
	b.Uint(uint64(s.version))
	writeNode(b, s.root)
	return b.Sum()
}

// writeNode writes one node in pre-order; kinds, counts and the fixed
// attribute set per kind keep the encoding injective.
func writeNode(b *digest.Builder, n *node) {
	b.Uint(uint64(n.kind))
	//exhaustive:enforce
	switch n.kind {
	case vocab.KindString, vocab.KindResourceID, vocab.KindBool, vocab.KindSignedInteger, vocab.KindUnsignedInteger:
		// Scalar kinds have no attributes: the kind alone is their content.
	case vocab.KindEnumeration:
		b.Count(len(n.cases))
		for _, c := range n.cases {
			b.String(c.String())
		}
	case vocab.KindArray:
		writeNode(b, n.items)
	case vocab.KindObject:
		b.Count(len(n.fields))
		for _, f := range n.fields {
			b.String(f.name.String())
			b.Uint(uint64(f.req))
			writeNode(b, f.typ)
		}
	}
}
