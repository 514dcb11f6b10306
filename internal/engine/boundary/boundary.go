// Package boundary implements the Host Capability Boundary of spec Section
// 13: an opaque, process-local value identifying exactly one Host authority
// domain, and the non-privileged domain identity that artifacts carry.
//
// The package separates privilege from identity:
//
//   - A Boundary is the privilege. Only New creates one; possession proves
//     membership of the domain to the transitions that require it (granting
//     a role, creating evidence, building an Evaluation Input, issuing and
//     validating an Authorization). The Host retains it and hands it to
//     nothing untrusted.
//   - A Domain is the identity. Every artifact, piece of evidence, snapshot
//     and Decision exposes one so that callers can compare domains. A Domain
//     can never be turned back into a Boundary: no function returns a
//     Boundary except New, and the two types have different structure, so
//     no conversion between them compiles (Section 13: untrusted paths
//     "MUST NOT be able to reconstruct or recover an equivalent boundary
//     from public artifact content"; Section 29: the boundary "MUST NOT be
//     recovered from Authorization").
//
// Two Boundaries, and two Domains, are the same domain only when they come
// from the same call to New. Equal descriptions never make independently
// created domains equal.
package boundary

// Boundary is an opaque Host Capability Boundary: the privilege of one Host
// authority domain. The zero value is no boundary and is never the same
// domain as anything.
type Boundary struct{ d *domain }

// Domain is the non-privileged identity of one Host authority domain. It
// compares (Same) but grants nothing: no transition accepts a Domain where
// possession of the Boundary is required. The zero value is no domain.
type Domain struct {
	// ref differs in name (and so in type identity) from Boundary.d, so
	// that boundary.Boundary(someDomain) does not compile.
	ref *domain
}

// domain has non-zero size: Go may give all zero-size allocations the same
// address, which would make independently created boundaries equal.
type domain struct {
	description string
}

// New creates a fresh Host authority domain and returns its Boundary. The
// description is non-authoritative metadata for diagnostics only; it plays
// no part in equality.
func New(description string) Boundary {
	return Boundary{d: &domain{description: description}}
}

// Same reports whether b and o are the exact same retained domain. A zero
// Boundary is never the same as anything, including another zero Boundary.
func (b Boundary) Same(o Boundary) bool { return b.d != nil && b.d == o.d }

// IsZero reports whether b is the zero Boundary.
func (b Boundary) IsZero() bool { return b.d == nil }

// Domain returns the identity of b's domain, for binding into artifacts.
func (b Boundary) Domain() Domain { return Domain{ref: b.d} }

// Holds reports whether d is the identity of b's own domain: the check a
// privileged transition makes before it accepts an artifact. A zero
// Boundary holds nothing and a zero Domain is held by nothing.
func (b Boundary) Holds(d Domain) bool { return b.d != nil && b.d == d.ref }

// Same reports whether d and o identify the exact same domain. A zero Domain
// is never the same as anything, including another zero Domain.
func (d Domain) Same(o Domain) bool { return d.ref != nil && d.ref == o.ref }

// IsZero reports whether d is the zero Domain.
func (d Domain) IsZero() bool { return d.ref == nil }

// Description returns the non-authoritative description given to New, for
// diagnostics.
func (d Domain) Description() string {
	if d.ref == nil {
		return ""
	}
	return d.ref.description
}
