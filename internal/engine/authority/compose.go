package authority

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Composition is the checked set of attestations contributing to one input:
// one domain, one exact entitlement ceiling, valid at one explicit time.
type Composition struct {
	host   *HostAuthority
	at     epoch.Time
	atts   []Attestation // attestation identity ASCII order
	digest digest.Digest
}

// Compose checks the attestations contributing to one Evaluation Input
// (Sections 14 and 17, "Role evidence"). In input order, each attestation
// must:
//   - be present (fault.Missing);
//   - come from h's exact domain (fault.MixedDomain, P-016);
//   - have an issuer attenuated from exactly h: same domain and complete
//     content, one entitlement ceiling, never a union (fault.Mismatch);
//   - have an identity no earlier attestation has (fault.Duplicate);
//   - not name an issuer identity that an earlier attestation names with a
//     different role: duplicate conflicting role issuers (fault.Duplicate);
//   - be valid at t, NotBefore <= t < ExpiresAt (fault.Expired).
//
// There are 1–16 attestations. The result lists them in attestation-identity
// ASCII order (Section 50). Compose does not require any particular fact or
// role to be present: which facts an input needs is the caller's rule.
func Compose(h *HostAuthority, t epoch.Time, atts []Attestation) (Composition, error) {
	if h == nil {
		return Composition{}, fault.At("host", fault.Missing, "attestations compose under one host authority")
	}
	if len(atts) == 0 {
		return Composition{}, fault.At("attestations", fault.Missing, "a composition holds 1–16 attestations")
	}
	if len(atts) > MaxAttestations {
		return Composition{}, fault.At("attestations", fault.LimitExceeded, "a composition holds at most 16 attestations")
	}
	for i, a := range atts {
		if err := checkMember(h, t, atts[:i], a); err != nil {
			return Composition{}, fault.Within("attestations"+fault.Index(i), err)
		}
	}
	// Sort positions rather than the attestations themselves (over 100
	// octets each), then copy each once into place. Identities are unique
	// (checkMember), so the order is total and does not depend on the
	// sort's stability.
	var order [MaxAttestations]uint8
	idx := order[:len(atts)]
	for i := range idx {
		idx[i] = uint8(i)
	}
	slices.SortFunc(idx, func(x, y uint8) int { return atts[x].id.Compare(atts[y].id) })
	sorted := make([]Attestation, len(atts))
	for i, k := range idx {
		sorted[i] = atts[k]
	}
	c := Composition{host: h, at: t, atts: sorted}
	c.digest = c.computeDigest()
	return c, nil
}

// checkMember checks a against h, t and the attestations before it.
func checkMember(h *HostAuthority, t epoch.Time, earlier []Attestation, a Attestation) error {
	if a.IsZero() {
		return fault.New(fault.Missing, "every attestation is made by a role authority")
	}
	if !a.issuer.host.domain.Same(h.domain) {
		return fault.At("issuer", fault.MixedDomain, "attestations from different host authority domains never compose")
	}
	if !a.issuer.host.Equal(h) {
		return fault.At("issuer", fault.Mismatch,
			"every issuer shares one exact entitlement ceiling: the host authority of the composition")
	}
	for _, e := range earlier {
		if e.id == a.id {
			return fault.At("id", fault.Duplicate, "attestation identities are unique within a composition")
		}
		if e.issuer.issuer == a.issuer.issuer && e.issuer.role != a.issuer.role {
			return fault.At("issuer", fault.Duplicate,
				"one issuer identity holds exactly one role within a composition (duplicate conflicting role issuers)")
		}
	}
	if err := a.validity.Check(t); err != nil {
		return fault.Within("validity", err)
	}
	return nil
}

// Host returns the composition's Host Authority.
func (c Composition) Host() *HostAuthority { return c.host }

// Domain returns the Host authority domain; zero for the zero Composition.
func (c Composition) Domain() boundary.Domain {
	if c.host == nil {
		return boundary.Domain{}
	}
	return c.host.domain
}

// At returns the explicit time the composition was checked at.
func (c Composition) At() epoch.Time { return c.at }

// Attestations returns a copy of the attestations, in identity ASCII order.
func (c Composition) Attestations() []Attestation { return slices.Clone(c.atts) }

// Len returns the number of attestations.
func (c Composition) Len() int { return len(c.atts) }

// AttestationAt returns attestation i in identity ASCII order, 0 ≤ i < Len, without
// copying the others.
func (c Composition) AttestationAt(i int) Attestation { return c.atts[i] }

// Find returns the attestation with identity id, if any.
func (c Composition) Find(id ident.ControlledID) (Attestation, bool) {
	i, ok := slices.BinarySearchFunc(c.atts, id, func(a Attestation, id ident.ControlledID) int { return a.id.Compare(id) })
	if !ok {
		return Attestation{}, false
	}
	return c.atts[i], true
}

// OfFact returns the attestations of fact class f, in identity ASCII order.
func (c Composition) OfFact(f vocab.Fact) []Attestation {
	var out []Attestation
	for _, a := range c.atts {
		if a.fact == f {
			out = append(out, a)
		}
	}
	return out
}

// ExpiresAt returns the earliest exclusive expiry among the attestations:
// nothing derived from the composition may outlive it (Section 26). Zero for
// the zero Composition.
func (c Composition) ExpiresAt() epoch.Time {
	var earliest epoch.Time
	for i, a := range c.atts {
		if e := a.validity.ExpiresAt(); i == 0 || e.Before(earliest) {
			earliest = e
		}
	}
	return earliest
}

// Digest returns the digest of the complete content: the Host Authority
// digest, the explicit time and every attestation digest in order.
func (c Composition) Digest() digest.Digest { return c.digest }

// IsZero reports whether c is the zero Composition.
func (c Composition) IsZero() bool { return c.host == nil }

// Equal reports the same domain and complete content.
func (a Composition) Equal(b Composition) bool {
	return !a.IsZero() && !b.IsZero() && a.host.domain.Same(b.host.domain) && a.digest.Equal(b.digest)
}

func (c Composition) computeDigest() digest.Digest {
	b := digest.New("toolgate.attestation-composition/1")
	b.Digest(c.host.digest)
	b.Uint(c.at.Seconds())
	b.Count(len(c.atts))
	for _, a := range c.atts {
		b.Digest(a.digest)
	}
	return b.Sum()
}
