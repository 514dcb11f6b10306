// Package boundary implements the Host Capability Boundary of spec Section 13:
// an opaque, process-local value identifying exactly one Host authority
// domain.
//
// A Boundary can only be created by New, and two Boundaries are the same
// domain only when one is a copy of the other. Equal descriptions never make
// two independently created boundaries equal, and nothing in a public
// artifact allows an equivalent boundary to be reconstructed. Possession is
// privileged: the Host retains the value and hands it only to trusted code.
package boundary

// Boundary is an opaque Host Capability Boundary. The zero value is no
// boundary and is never the same domain as anything.
type Boundary struct{ d *domain }

// domain has non-zero size: Go may give all zero-size allocations the same
// address, which would make independently created boundaries equal.
type domain struct {
	description string
}

// New creates a fresh Host authority domain. The description is
// non-authoritative metadata for diagnostics only; it plays no part in
// equality.
func New(description string) Boundary {
	return Boundary{d: &domain{description: description}}
}

// Same reports whether b and o are the exact same retained domain. A zero
// Boundary is never the same as anything, including another zero Boundary.
func (b Boundary) Same(o Boundary) bool { return b.d != nil && b.d == o.d }

// IsZero reports whether b is the zero Boundary.
func (b Boundary) IsZero() bool { return b.d == nil }

// Description returns the non-authoritative description given to New.
func (b Boundary) Description() string {
	if b.d == nil {
		return ""
	}
	return b.d.description
}
