// Package registry implements Tool Definitions and Registry Snapshots (spec
// Section 9) with the Section 39 limits and the Section 50 definition order.
//
// A Snapshot is published all-or-nothing from an untrusted Draft and is then
// immutable. Resolution is exact: a Tool Identifier and a Tool Version select
// at most one definition; there is no "latest", no compatible fallback and
// no name-only lookup, and a retired definition does not resolve. A
// Resolution retains the exact Snapshot it came from. Registry presence is
// not authorization (P-003).
package registry

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// MaxDefinitions bounds the definitions of one Snapshot (0–1,024).
const MaxDefinitions = 1024

// Draft is the untrusted description of one Registry Snapshot generation.
type Draft struct {
	ID          string // Registry Snapshot identity, lower-token(64)
	Generation  string // canonical generation text
	Definitions []DefinitionDraft
}

// Snapshot is one immutable, identified generation of Registry content.
type Snapshot struct {
	id     ident.SnapshotID
	gen    ident.Generation
	defs   []*Definition // Section 50 order
	digest digest.Digest
}

// Publish validates a Draft and returns the immutable Snapshot, or rejects
// the whole draft. Definitions are ordered by Tool Identifier (segment
// order), then Tool Version, then definition identity. Two definitions with
// the same identity, or with the same Tool Identifier and Version (an
// ambiguous resolution), reject.
func Publish(d Draft) (*Snapshot, error) {
	// Every definition is checked, so that a publication reports all its
	// violations (each definition's, at its index), not only the first.
	var errs fault.Errors
	id, err := ident.ParseSnapshotID(d.ID)
	errs.Add("id", err)
	gen, err := ident.ParseGeneration(d.Generation)
	errs.Add("generation", err)
	if len(d.Definitions) > MaxDefinitions {
		errs.Add("", fault.At("definitions", fault.LimitExceeded, "a registry snapshot holds at most 1024 definitions"))
		return nil, errs.Err()
	}
	defs := make([]*Definition, 0, len(d.Definitions))
	index := make([]int, 0, len(d.Definitions)) // defs[k] is draft definition index[k]
	byID := make(map[ident.DefinitionID]int, len(d.Definitions))
	for i, dd := range d.Definitions {
		def, err := newDefinition(dd)
		if err != nil {
			errs.Add("definitions"+fault.Index(i), err)
			continue
		}
		if _, dup := byID[def.id]; dup {
			errs.Add("", fault.At("definitions"+fault.Index(i)+".id", fault.Duplicate,
				"tool definition identities are unique within a snapshot"))
			continue
		}
		byID[def.id] = i
		defs = append(defs, def)
		index = append(index, i)
	}
	order := make([]int, len(defs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareDefinitions(defs[a], defs[b]) })
	sorted := make([]*Definition, len(defs))
	for i, j := range order {
		sorted[i] = defs[j]
		if i > 0 && sameResolution(sorted[i-1], sorted[i]) {
			errs.Add("", fault.At("definitions"+fault.Index(index[j]), fault.Duplicate,
				"a tool identifier and version resolve to exactly one definition"))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	s := &Snapshot{id: id, gen: gen, defs: sorted}
	s.digest = s.computeDigest()
	return s, nil
}

func sameResolution(a, b *Definition) bool {
	return a.toolID.Compare(b.toolID) == 0 && a.version.Compare(b.version) == 0
}

func compareDefinitions(a, b *Definition) int {
	if c := a.toolID.Compare(b.toolID); c != 0 {
		return c
	}
	if c := a.version.Compare(b.version); c != 0 {
		return c
	}
	return a.id.Compare(b.id)
}

// ID returns the Snapshot identity.
func (s *Snapshot) ID() ident.SnapshotID { return s.id }

// Generation returns the Snapshot generation.
func (s *Snapshot) Generation() ident.Generation { return s.gen }

// Digest returns the digest of the complete Snapshot content.
func (s *Snapshot) Digest() digest.Digest { return s.digest }

// Len returns the number of definitions.
func (s *Snapshot) Len() int { return len(s.defs) }

// Definition returns definition i in Section 50 order.
func (s *Snapshot) Definition(i int) *Definition { return s.defs[i] }

// Equal reports complete content equality: identity, generation and
// every definition's complete content.
func (a *Snapshot) Equal(b *Snapshot) bool {
	return a != nil && b != nil && a.digest.Equal(b.digest)
}

// Lookup resolves exactly one definition by Tool Identifier and Tool
// Version. Unknown identities or versions reject with fault.NotFound; a
// retired definition rejects with fault.Ineligible. Active and deprecated
// definitions resolve.
func (s *Snapshot) Lookup(tool ident.ToolID, version ident.Generation) (Resolution, error) {
	if tool.IsZero() || version.IsZero() {
		return Resolution{}, fault.New(fault.Missing, "lookup needs an exact tool identifier and version")
	}
	i, found := slices.BinarySearchFunc(s.defs, tool, func(d *Definition, t ident.ToolID) int {
		if c := d.toolID.Compare(t); c != 0 {
			return c
		}
		return cmp.Compare(d.version.Uint64(), version.Uint64())
	})
	if !found {
		return Resolution{}, fault.New(fault.NotFound,
			"no definition with this exact tool identifier and version in the selected snapshot")
	}
	d := s.defs[i]
	if d.lifecycle == vocab.Retired {
		return Resolution{}, fault.New(fault.Ineligible, "retired tool definitions do not resolve")
	}
	return Resolution{snapshot: s, def: d}, nil
}

// Resolution is the result of an exact lookup: one definition together with
// the exact Snapshot it was resolved from. It is ceiling evidence only.
type Resolution struct {
	snapshot *Snapshot
	def      *Definition
}

// Snapshot returns the Snapshot the definition was resolved from.
func (r Resolution) Snapshot() *Snapshot { return r.snapshot }

// Definition returns the resolved definition.
func (r Resolution) Definition() *Definition { return r.def }

// IsZero reports whether r is the zero Resolution.
func (r Resolution) IsZero() bool { return r.def == nil }

func (s *Snapshot) computeDigest() digest.Digest {
	b := digest.New("toolgate.registry-snapshot/1")
	b.String(s.id.String())
	b.Uint(s.gen.Uint64())
	b.Count(len(s.defs))
	for _, d := range s.defs {
		b.Digest(d.digest)
	}
	return b.Sum()
}
