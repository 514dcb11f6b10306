package evidence

import (
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// requireRole rejects a missing Role Authority or one of another role.
func requireRole(r *authority.RoleAuthority, want vocab.Role) error {
	if r == nil {
		return fault.At("authority", fault.Missing, "this evidence is established by a role authority")
	}
	if r.Role() != want {
		return fault.At("authority", fault.Unauthorized,
			"this evidence is established only by the role authority of its fact class")
	}
	return nil
}

// writeOptional writes s, or the absent marker when s is empty.
func writeOptional(b *digest.Builder, s string) {
	if s == "" {
		b.Absent()
		return
	}
	b.String(s)
}

// attested is what every piece of evidence shares: the attestation that
// vouches for its content and the digest of its complete value.
type attested struct {
	attestation authority.Attestation
	digest      digest.Digest
}

// seal has r attest content as fact for validity (rejections are located
// under "attestation") and computes the digest of the complete value under
// label: the attested content and the attestation.
func (a *attested) seal(label string, r *authority.RoleAuthority, id string, fact vocab.Fact, v epoch.Validity, content digest.Digest) error {
	att, err := r.Attest(id, fact, v, content)
	if err != nil {
		return fault.Within("attestation", err)
	}
	a.attestation = att
	b := digest.New(label)
	b.Digest(att.Subject())
	b.Digest(att.Digest())
	a.digest = b.Sum()
	return nil
}

// Validity returns the attested validity window.
func (a *attested) Validity() epoch.Validity { return a.attestation.Validity() }

// Attestation returns the attestation of the evidence's role authority.
func (a *attested) Attestation() authority.Attestation { return a.attestation }

// Domain returns the Host authority domain of the attesting role authority.
func (a *attested) Domain() boundary.Domain { return a.attestation.Domain() }

// same reports the same Host domain and the same complete content: evidence
// from independent boundaries is never the same, however alike (P-016).
func (a *attested) same(b *attested) bool {
	return a.Domain().Same(b.Domain()) && a.digest.Equal(b.digest)
}

// Digest returns the digest of the complete evidence: its content and its
// attestation.
func (a *attested) Digest() digest.Digest { return a.digest }
