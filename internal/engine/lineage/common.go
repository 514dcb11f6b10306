package lineage

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Limits of Section 39.
const (
	// MaxRecords bounds the records of one Provenance set.
	MaxRecords = 64
	// MaxTransformations bounds the transformations of one Provenance record.
	MaxTransformations = 8
	// MaxNodes bounds the nodes (Influence records) of one Influence set.
	MaxNodes = 64
	// MaxEdges bounds the parent edges of one Influence set in aggregate.
	MaxEdges = 128
	// MaxCollections bounds the collection boundaries of one Influence set.
	MaxCollections = 8
)

// Digest domain labels. The content label names what the Role Authority
// attests; the complete label adds the attestation itself.
const (
	provenanceContentLabel = "toolgate.provenance.content/1"
	provenanceLabel        = "toolgate.provenance/1"
	influenceContentLabel  = "toolgate.influence.content/1"
	influenceLabel         = "toolgate.influence/1"
)

// checkBinding checks what both attested constructors share: a Role
// Authority holding exactly the role permitted for fact, an assessment in
// that authority's Host domain, a present identity and a validity window.
func checkBinding(r *authority.RoleAuthority, fact vocab.Fact, roleRule string, validity epoch.Validity,
	a *assessment.Assessment, id principal.Identity) error {
	if r == nil {
		return fault.At("authority", fault.Missing, "lineage is attested by a role authority")
	}
	if r.Role() != authority.PermittedRole(fact) {
		return fault.At("authority", fault.Unauthorized, roleRule)
	}
	if err := checkSubject(a, id); err != nil {
		return err
	}
	if !r.Domain().Same(a.Domain()) {
		return fault.At("assessment", fault.MixedDomain,
			"the assessment and the attesting role authority belong to the same host authority domain")
	}
	if validity.IsZero() {
		return fault.At("validity", fault.Missing, "attested lineage needs an explicit validity window")
	}
	return nil
}

// checkSubject checks the assessment and identity every lineage value binds.
func checkSubject(a *assessment.Assessment, id principal.Identity) error {
	if a == nil || a.Domain().IsZero() {
		return fault.At("assessment", fault.Missing, "lineage is bound to a proposal assessment")
	}
	if id.IsZero() {
		return fault.At("identity", fault.Missing, "lineage is bound to an identity")
	}
	return nil
}

// find returns the member of s, in identity order, whose identity is id.
func find[T any](s []T, id ident.ControlledID, compare func(T, ident.ControlledID) int) (T, bool) {
	i, ok := slices.BinarySearchFunc(s, id, compare)
	if !ok {
		var zero T
		return zero, false
	}
	return s[i], true
}

// keyed is one parsed identity of a draft collection with its input index.
type keyed struct {
	id    ident.ControlledID
	index int
}

// matchExpected compares got (unique, ASCII order) with the assessment's
// expected identities (unique, ASCII order). An identity the assessment does
// not expect is a substitution, reported at its draft entry; an expected
// identity that is not represented is reported at the collection.
func matchExpected(got []keyed, expected int, expectedAt func(int) ident.ControlledID,
	collection, field, extraRule, missingRule string) error {
	i, j := 0, 0
	for i < len(got) || j < expected {
		switch {
		case j == expected || (i < len(got) && got[i].id.Compare(expectedAt(j)) < 0):
			return fault.At(collection+fault.Index(got[i].index)+"."+field, fault.Mismatch, extraRule)
		case i == len(got) || got[i].id.Compare(expectedAt(j)) > 0:
			return fault.At(collection, fault.Mismatch, missingRule)
		default:
			i++
			j++
		}
	}
	return nil
}

// parseEvidenceRef parses a required evidence-reference identity. An empty
// reference is Missing rather than Malformed so that the rejection says what
// to add.
func parseEvidenceRef(s, path, missingRule string) (ident.ControlledID, error) {
	if s == "" {
		return ident.ControlledID{}, fault.At(path, fault.Missing, missingRule)
	}
	id, err := ident.ParseControlledID(s)
	if err != nil {
		return ident.ControlledID{}, fault.Within(path, err)
	}
	return id, nil
}

// writeBinding writes the bound assessment, identity and validity window
// (absent when unattested) to a content digest.
func writeBinding(b *digest.Builder, a *assessment.Assessment, id principal.Identity, v epoch.Validity) {
	b.Digest(a.Digest())
	id.WriteDigest(b)
	if v.IsZero() {
		b.Absent()
		return
	}
	v.WriteDigest(b)
}

// completeDigest is the digest of the attested content plus the attestation
// that vouches for it (absent when unattested).
func completeDigest(label string, content digest.Digest, att authority.Attestation) digest.Digest {
	b := digest.New(label)
	b.Digest(content)
	if att.IsZero() {
		b.Absent()
	} else {
		b.Digest(att.Digest())
	}
	return b.Sum()
}

// attested is what a Provenance set and an Influence set share: the Host
// domain, the assessment and identity the set is bound to, the digest of
// its content, and the attestation that vouches for that content (zero
// when nothing was attested: unknown Provenance, no collected Influence).
type attested struct {
	domain      boundary.Domain
	assessment  *assessment.Assessment
	identity    principal.Identity
	attestation authority.Attestation
	content     digest.Digest
	digest      digest.Digest
}

// seal records content, has ra attest it as fact for validity, and
// computes the complete digest under label.
func (v *attested) seal(label string, content digest.Digest, ra *authority.RoleAuthority, attestationID string, fact vocab.Fact, validity epoch.Validity) error {
	att, err := ra.Attest(attestationID, fact, validity, content)
	if err != nil {
		return fault.Within("attestation", err)
	}
	v.content, v.attestation = content, att
	v.digest = completeDigest(label, content, att)
	return nil
}

// sealUnattested records content that no attestation vouches for (unknown
// Provenance, no collected Influence) and computes the complete digest.
func (v *attested) sealUnattested(label string, content digest.Digest) {
	v.content = content
	v.digest = completeDigest(label, content, authority.Attestation{})
}

// Domain returns the Host authority domain (the assessment's).
func (v *attested) Domain() boundary.Domain { return v.domain }

// Assessment returns the Proposal Assessment the set was built for.
func (v *attested) Assessment() *assessment.Assessment { return v.assessment }

// Identity returns the identity binding the set was built for.
func (v *attested) Identity() principal.Identity { return v.identity }

// Attestation returns the attestation of the set's role; false when
// nothing was attested.
func (v *attested) Attestation() (authority.Attestation, bool) {
	return v.attestation, !v.attestation.IsZero()
}

// Validity returns the attested validity window; the zero window when
// nothing was attested.
func (v *attested) Validity() epoch.Validity {
	if v.attestation.IsZero() {
		return epoch.Validity{}
	}
	return v.attestation.Validity()
}

// ContentDigest returns the digest the attestation's subject names: the
// assessment digest, identity, validity and every member of the set.
func (v *attested) ContentDigest() digest.Digest { return v.content }

// Digest returns the digest of the complete value: the content digest and
// the attestation. The domain has no content; Equal compares it separately.
func (v *attested) Digest() digest.Digest { return v.digest }
