package schema

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
)

// Arguments is the all-or-nothing result of [Schema.Validate]: the validated
// typed argument tree and the Resources derived from it. The zero Arguments
// is what every rejection returns; it reports IsZero.
type Arguments struct {
	root      value.Value
	resources []ident.Resource
}

// Root returns the validated argument object. Its fields are in field-name
// ASCII order regardless of input order; absent optional fields are absent.
func (a Arguments) Root() value.Value { return a.root }

// IsZero reports whether a is the zero Arguments.
func (a Arguments) IsZero() bool { return a.root.IsZero() }

// Resources returns a copy of the derived Resource set (Sections 10, 50):
// every value of a resourceID node anywhere in the tree, unique and in ASCII
// order; repeated occurrences add nothing. Only resourceID fields contribute,
// never a string that merely looks like a Resource. An empty derivation
// returns nil and means no Resource authority, never a wildcard.
func (a Arguments) Resources() []ident.Resource {
	if len(a.resources) == 0 {
		return nil
	}
	return slices.Clone(a.resources)
}

// NumResources returns the size of the derived Resource set.
func (a Arguments) NumResources() int { return len(a.resources) }

// ResourceAt returns member i of the derived Resource set (ASCII order),
// 0 ≤ i < NumResources, without copying the set.
func (a Arguments) ResourceAt(i int) ident.Resource { return a.resources[i] }

// HasResource reports whether r is in the derived Resource set.
func (a Arguments) HasResource(r ident.Resource) bool {
	_, ok := slices.BinarySearchFunc(a.resources, r, ident.Resource.Compare)
	return ok
}

// WriteDigest writes the complete content of a (typed tree, then the
// Resource set) to b. The caller chooses the digest domain.
func (a Arguments) WriteDigest(b *digest.Builder) {
	a.root.WriteDigest(b)
	b.Count(len(a.resources))
	for _, r := range a.resources {
		b.String(r.String())
	}
}

// resourceSet sorts rs into ASCII order and removes repeats, in place.
func resourceSet(rs []ident.Resource) []ident.Resource {
	if len(rs) == 0 {
		return nil
	}
	slices.SortFunc(rs, ident.Resource.Compare)
	return slices.Clip(slices.Compact(rs))
}
