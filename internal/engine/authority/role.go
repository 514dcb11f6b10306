package authority

import (
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// RoleAuthority is a Host Authority attenuated to one declared role for one
// issuer identity (Section 14). It shares its Host Authority's exact ceiling
// and domain; it cannot imply another role or broaden either.
type RoleAuthority struct {
	host   *HostAuthority
	role   vocab.Role
	issuer ident.ControlledID
	digest digest.Digest
}

// Grant attenuates h to one declared role for one issuer identity.
// Presenting b proves possession of h's domain: a different boundary is
// fault.MixedDomain and a zero boundary fault.Missing. A role h does not
// declare is fault.Unauthorized.
func Grant(b boundary.Boundary, h *HostAuthority, role vocab.Role, issuer string) (*RoleAuthority, error) {
	if h == nil {
		return nil, fault.At("host", fault.Missing, "a role authority is granted from a host authority")
	}
	if b.IsZero() {
		return nil, fault.At("domain", fault.Missing, "granting a role requires the retained host capability boundary")
	}
	if !b.Holds(h.domain) {
		return nil, fault.At("domain", fault.MixedDomain,
			"a role is granted only with the exact boundary of the host authority's domain")
	}
	if !role.IsValid() {
		return nil, fault.At("role", fault.UnknownToken, "the role must be one of the six closed role kinds")
	}
	if !h.HasRole(role) {
		return nil, fault.At("role", fault.Unauthorized, "the host authority does not declare this role")
	}
	id, err := ident.ParseControlledID(issuer)
	if err != nil {
		return nil, fault.Within("issuer", err)
	}
	r := &RoleAuthority{host: h, role: role, issuer: id}
	r.digest = r.computeDigest()
	return r, nil
}

// Host returns the exact Host Authority the role was attenuated from.
func (r *RoleAuthority) Host() *HostAuthority { return r.host }

// Role returns the role.
func (r *RoleAuthority) Role() vocab.Role { return r.role }

// Issuer returns the issuer identity.
func (r *RoleAuthority) Issuer() ident.ControlledID { return r.issuer }

// Identity returns the non-privileged identity of r, which artifacts may
// carry and expose: it names the role and issuer but attests nothing.
func (r *RoleAuthority) Identity() Issuer {
	if r == nil || r.host == nil {
		return Issuer{}
	}
	return Issuer{domain: r.host.domain, role: r.role, id: r.issuer, digest: r.digest}
}

// Domain returns the Host authority domain; zero for a RoleAuthority not
// made by Grant.
func (r *RoleAuthority) Domain() boundary.Domain {
	if r.host == nil {
		return boundary.Domain{}
	}
	return r.host.domain
}

// Digest returns the digest of the complete content: the Host Authority's
// digest, the role and the issuer.
func (r *RoleAuthority) Digest() digest.Digest { return r.digest }

// Equal reports the same domain and complete content.
func (a *RoleAuthority) Equal(b *RoleAuthority) bool {
	return a != nil && b != nil && a.Domain().Same(b.Domain()) && a.digest.Equal(b.digest)
}

func (r *RoleAuthority) computeDigest() digest.Digest {
	b := digest.New("toolgate.role-authority/1")
	b.Digest(r.host.digest)
	b.String(r.role.String())
	b.String(r.issuer.String())
	return b.Sum()
}

// Issuer is the non-privileged identity of a Role Authority: its domain,
// role, issuer identity and complete content digest. Attestations and Policy
// Snapshots expose the Issuer that made them, never the Role Authority
// itself, which is a capability (it attests) that only the Host holds.
type Issuer struct {
	domain boundary.Domain
	role   vocab.Role
	id     ident.ControlledID
	digest digest.Digest
}

// Domain returns the issuer's Host authority domain.
func (i Issuer) Domain() boundary.Domain { return i.domain }

// Role returns the issuer's role.
func (i Issuer) Role() vocab.Role { return i.role }

// ID returns the issuer identity.
func (i Issuer) ID() ident.ControlledID { return i.id }

// Digest returns the Role Authority's complete content digest.
func (i Issuer) Digest() digest.Digest { return i.digest }

// IsZero reports whether i identifies no Role Authority.
func (i Issuer) IsZero() bool { return i.domain.IsZero() }

// Equal reports the same domain and the same complete Role Authority
// content.
func (i Issuer) Equal(o Issuer) bool { return i.domain.Same(o.domain) && i.digest.Equal(o.digest) }

// PermittedRole maps each fact class to its only permitted role (Section 48):
// securityContext to authenticationAuthority, userIntent to
// intentCaptureAuthority, provenance to provenanceAuthority,
// influenceCollection to influenceCollector and delegation to
// delegationAuthority. An invalid fact maps to the invalid zero Role.
// policyAdministrationAuthority is permitted no fact.
func PermittedRole(f vocab.Fact) vocab.Role {
	//exhaustive:enforce
	switch f {
	case vocab.FactSecurityContext:
		return vocab.AuthenticationAuthority
	case vocab.FactUserIntent:
		return vocab.IntentCaptureAuthority
	case vocab.FactProvenance:
		return vocab.ProvenanceAuthority
	case vocab.FactInfluenceCollection:
		return vocab.InfluenceCollector
	case vocab.FactDelegation:
		return vocab.DelegationAuthority
	default:
		return 0
	}
}

// Attestation is one Role Authority's statement that a fact of one class,
// whose complete content digest is Subject, holds within Validity.
type Attestation struct {
	id       ident.ControlledID
	fact     vocab.Fact
	issuer   *RoleAuthority
	validity epoch.Validity
	subject  digest.Digest
	digest   digest.Digest
}

// Attest makes r vouch for one fact whose complete content digest is
// subject, valid in validity. A fact outside r's class is role substitution
// and rejects with fault.Unauthorized; a zero validity or subject is
// fault.Missing. Attest checks no time: validity is checked at composition.
func (r *RoleAuthority) Attest(id string, fact vocab.Fact, validity epoch.Validity, subject digest.Digest) (Attestation, error) {
	if r == nil {
		return Attestation{}, fault.At("issuer", fault.Missing, "an attestation is made by a role authority")
	}
	aid, err := ident.ParseControlledID(id)
	if err != nil {
		return Attestation{}, fault.Within("id", err)
	}
	if !fact.IsValid() {
		return Attestation{}, fault.At("fact", fault.UnknownToken, "the fact must be one of the five closed fact classes")
	}
	if PermittedRole(fact) != r.role {
		return Attestation{}, fault.At("fact", fault.Unauthorized,
			"a role authority attests only the fact class of its own role")
	}
	if validity.IsZero() {
		return Attestation{}, fault.At("validity", fault.Missing, "an attestation needs an explicit validity window")
	}
	if subject.IsZero() {
		return Attestation{}, fault.At("subject", fault.Missing, "an attestation covers the complete content digest of its fact")
	}
	a := Attestation{id: aid, fact: fact, issuer: r, validity: validity, subject: subject}
	a.digest = a.computeDigest()
	return a, nil
}

// ID returns the attestation identity.
func (a Attestation) ID() ident.ControlledID { return a.id }

// Fact returns the attested fact class.
func (a Attestation) Fact() vocab.Fact { return a.fact }

// Issuer returns the identity of the attesting Role Authority; zero for the
// zero Attestation.
func (a Attestation) Issuer() Issuer { return a.issuer.Identity() }

// Validity returns the validity window.
func (a Attestation) Validity() epoch.Validity { return a.validity }

// Subject returns the complete content digest of the attested fact.
func (a Attestation) Subject() digest.Digest { return a.subject }

// Domain returns the issuer's Host authority domain; zero for the zero
// Attestation.
func (a Attestation) Domain() boundary.Domain {
	if a.issuer == nil {
		return boundary.Domain{}
	}
	return a.issuer.host.domain
}

// Digest returns the digest of the complete content: identity, fact, the
// issuer's digest (which covers its Host Authority), validity and subject.
func (a Attestation) Digest() digest.Digest { return a.digest }

// IsZero reports whether a is the zero Attestation, made by no one.
func (a Attestation) IsZero() bool { return a.issuer == nil }

// Equal reports the same domain and complete content.
func (a Attestation) Equal(b Attestation) bool {
	return !a.IsZero() && !b.IsZero() && a.Domain().Same(b.Domain()) && a.digest.Equal(b.digest)
}

func (a Attestation) computeDigest() digest.Digest {
	b := digest.New("toolgate.attestation/1")
	b.String(a.id.String())
	b.String(a.fact.String())
	b.Digest(a.issuer.digest)
	a.validity.WriteDigest(b)
	b.Digest(a.subject)
	return b.Sum()
}
