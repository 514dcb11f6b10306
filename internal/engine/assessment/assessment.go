// Package assessment implements Proposal Assessment continuity (spec
// Section 12): privacy-minimized controlled Host evidence binding one raw
// Proposal identity to an independent assessment identity, the expected
// Provenance record identities, the expected Influence collection identities
// and one Host authority domain.
//
// An Assessment can only be created by a caller holding the domain's
// boundary. Every identifier is checked against the Phase 4 controlled
// identity grammar (lower-token(64)), so no raw prompt, document or argument
// text can be carried in one; the identifiers are correlation only.
package assessment

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
)

// Limits of Section 39.
const (
	MaxProvenanceIDs = 64
	MaxInfluenceIDs  = 8
)

// Draft is the Host's description of one assessment.
type Draft struct {
	ProposalID    string   // the raw Proposal identity selected by the untrusted request
	AssessmentID  string   // the independent controlled assessment identity
	ProvenanceIDs []string // expected Provenance record identities, 0–64, unique
	InfluenceIDs  []string // expected Influence collection identities, 0–8, unique
}

// Assessment is controlled, immutable Proposal Assessment evidence.
type Assessment struct {
	domain     boundary.Domain
	proposal   ident.ControlledID
	id         ident.ControlledID
	provenance []ident.ControlledID // unique, ASCII order
	influence  []ident.ControlledID // unique, ASCII order
	digest     digest.Digest
}

// New creates an Assessment in the Host authority domain of b. The assessment
// identity must differ from the Proposal identity: the raw Proposal identity
// alone is insufficient evidence (Section 12).
func New(b boundary.Boundary, d Draft) (*Assessment, error) {
	if b.IsZero() {
		return nil, fault.At("domain", fault.Missing, "an assessment is created within a retained host capability boundary")
	}
	a := &Assessment{domain: b.Domain()}
	var err error
	if a.proposal, err = ident.ParseControlledID(d.ProposalID); err != nil {
		return nil, fault.Within("proposalID", err)
	}
	if a.id, err = ident.ParseControlledID(d.AssessmentID); err != nil {
		return nil, fault.Within("assessmentID", err)
	}
	if a.id == a.proposal {
		return nil, fault.At("assessmentID", fault.Mismatch,
			"the assessment identity is independent of the proposal identity and must differ from it")
	}
	if a.provenance, err = idSet(d.ProvenanceIDs, MaxProvenanceIDs); err != nil {
		return nil, fault.Within("provenanceIDs", err)
	}
	if a.influence, err = idSet(d.InfluenceIDs, MaxInfluenceIDs); err != nil {
		return nil, fault.Within("influenceIDs", err)
	}
	a.digest = a.computeDigest()
	return a, nil
}

// idSet parses a unique identity collection and returns it in ASCII order.
func idSet(raw []string, limit int) ([]ident.ControlledID, error) {
	return ident.ParseSet(raw, ident.ParseControlledID, ident.ControlledID.Compare, limit,
		"too many identities for this collection (see Section 39)", "identities in this collection are unique")
}

// Domain returns the Host authority domain the assessment belongs to.
func (a *Assessment) Domain() boundary.Domain { return a.domain }

// ProposalID returns the assessed raw Proposal identity.
func (a *Assessment) ProposalID() ident.ControlledID { return a.proposal }

// ID returns the assessment identity.
func (a *Assessment) ID() ident.ControlledID { return a.id }

// ProvenanceIDs returns a copy of the expected Provenance record identities.
func (a *Assessment) ProvenanceIDs() []ident.ControlledID { return slices.Clone(a.provenance) }

// InfluenceIDs returns a copy of the expected Influence collection identities.
func (a *Assessment) InfluenceIDs() []ident.ControlledID { return slices.Clone(a.influence) }

// NumProvenanceIDs returns the number of expected Provenance record identities.
func (a *Assessment) NumProvenanceIDs() int { return len(a.provenance) }

// ProvenanceIDAt returns expected Provenance record identity i (the order of
// ProvenanceIDs), 0 ≤ i < NumProvenanceIDs, without copying the others.
func (a *Assessment) ProvenanceIDAt(i int) ident.ControlledID { return a.provenance[i] }

// NumInfluenceIDs returns the number of expected Influence collection identities.
func (a *Assessment) NumInfluenceIDs() int { return len(a.influence) }

// InfluenceIDAt returns expected Influence collection identity i (the order
// of InfluenceIDs), 0 ≤ i < NumInfluenceIDs, without copying the others.
func (a *Assessment) InfluenceIDAt(i int) ident.ControlledID { return a.influence[i] }

// Digest returns the digest of the assessment's content. The domain is not
// part of the digest (it has no content); Equal compares it separately.
func (a *Assessment) Digest() digest.Digest { return a.digest }

// Equal reports exact continuity: the same retained domain and the same
// complete content.
func (a *Assessment) Equal(b *Assessment) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) && a.digest.Equal(b.digest)
}

func (a *Assessment) computeDigest() digest.Digest {
	b := digest.New("toolgate.assessment/1")
	b.String(a.proposal.String())
	b.String(a.id.String())
	digest.Strings(b, a.provenance)
	digest.Strings(b, a.influence)
	return b.Sum()
}
