package lineage

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// RecordDraft is the Host's description of one Provenance record. It
// carries classifications and references only, never raw content.
type RecordDraft struct {
	ID              string   // Provenance record identity (controlled identity)
	Source          string   // Section 48 provenance source
	Custody         string   // privacy-safe custody evidence reference (controlled identity)
	Transformations []string // 0–8 Section 48 transformations, in lineage order; may repeat
	Verification    string   // unverified | hostVerified
}

// Record is one validated Provenance record.
type Record struct {
	id              ident.ControlledID
	source          vocab.ProvenanceSource
	custody         ident.ControlledID
	transformations []vocab.Transformation
	verification    vocab.Verification
	trust           vocab.Trust
}

// ID returns the record identity.
func (r Record) ID() ident.ControlledID { return r.id }

// Source returns the source classification.
func (r Record) Source() vocab.ProvenanceSource { return r.source }

// Custody returns the custody evidence reference.
func (r Record) Custody() ident.ControlledID { return r.custody }

// Transformations returns a copy of the transformations in declared order.
func (r Record) Transformations() []vocab.Transformation { return slices.Clone(r.transformations) }

// NumTransformations returns the number of transformations.
func (r Record) NumTransformations() int { return len(r.transformations) }

// TransformationAt returns transformation i, 0 ≤ i < NumTransformations,
// without copying the others.
func (r Record) TransformationAt(i int) vocab.Transformation { return r.transformations[i] }

// Verification returns the verification state.
func (r Record) Verification() vocab.Verification { return r.verification }

// Trust returns the derived trust classification (see [Classify]).
func (r Record) Trust() vocab.Trust { return r.trust }

// compare orders a record against an identity (binary search).
func (r Record) compare(id ident.ControlledID) int { return r.id.Compare(id) }

// HasSemanticTransformation reports whether any transformation of r is
// semantic (see [Semantic]).
func (r Record) HasSemanticTransformation() bool {
	return slices.ContainsFunc(r.transformations, Semantic)
}

// Semantic reports whether t is a semantic transformation: summarized,
// translated, generatedByModel or combined. A semantic transformation never
// receives a trust upgrade (Section 16). The structural transformations
// extracted, filtered and redacted do not by themselves prevent one.
func Semantic(t vocab.Transformation) bool {
	switch t {
	case vocab.Summarized, vocab.Translated, vocab.GeneratedByModel, vocab.Combined:
		return true
	}
	return false
}

// Classify derives the trust classification of a record (Section 16:
// "missing coverage defaults to unknown; known but unverified and
// model-asserted records remain untrusted"):
//
//   - unknown when the source is unknown, whatever its verification;
//   - hostVerified only when verification is hostVerified, the source is not
//     modelOutput and no transformation is semantic;
//   - untrusted otherwise.
//
// hostVerified means only that exact controlled Host evidence matched the
// record and its permitted transformation lineage; it is not a truth,
// content-safety or authority claim.
func Classify(s vocab.ProvenanceSource, v vocab.Verification, ts []vocab.Transformation) vocab.Trust {
	switch {
	case s == vocab.SourceUnknown:
		return vocab.TrustUnknown
	case v == vocab.HostVerified && s != vocab.SourceModelOutput && !slices.ContainsFunc(ts, Semantic):
		return vocab.TrustHostVerified
	}
	return vocab.TrustUntrusted
}

// Provenance is a controlled, immutable Provenance set bound to one Proposal
// Assessment, identity and Host authority domain.
type Provenance struct {
	attested
	coverage vocab.ProvenanceCoverage
	records  []Record // ASCII order of identity
}

// NewProvenance validates records as represented Provenance for assessment
// a and identity id, attested by p under attestationID for validity. p must
// hold the provenanceAuthority role (Unauthorized otherwise) in a's Host
// domain (MixedDomain otherwise). There are 1–64 records with unique
// identities, and their identity set is exactly a.ProvenanceIDs(): an
// unexpected identity (substitution) or an expected identity that is not
// represented is a Mismatch. Records are returned in identity ASCII order.
func NewProvenance(p *authority.RoleAuthority, attestationID string, validity epoch.Validity,
	a *assessment.Assessment, id principal.Identity, records []RecordDraft) (*Provenance, error) {
	err := checkBinding(p, vocab.FactProvenance,
		"provenance is attested only by the provenanceAuthority role", validity, a, id)
	if err != nil {
		return nil, err
	}
	switch {
	case len(records) == 0:
		return nil, fault.At("records", fault.Missing,
			"represented provenance has at least one record; use unknown coverage when there is none")
	case len(records) > MaxRecords:
		return nil, fault.At("records", fault.LimitExceeded, "a provenance set has at most 64 records")
	}
	out := make([]Record, 0, len(records))
	// The keys are transient and bounded by MaxRecords: an array on the
	// stack (1.5 KiB) holds them.
	var keyBuf [MaxRecords]keyed
	keys := keyBuf[:0]
	for i, d := range records {
		r, err := parseRecord(d)
		if err != nil {
			return nil, fault.Within("records"+fault.Index(i), err)
		}
		if slices.ContainsFunc(out, func(x Record) bool { return x.id == r.id }) {
			return nil, fault.At("records"+fault.Index(i)+".id", fault.Duplicate, "provenance record identities are unique")
		}
		out = append(out, r)
		keys = append(keys, keyed{id: r.id, index: i})
	}
	slices.SortFunc(out, func(x, y Record) int { return x.id.Compare(y.id) })
	slices.SortFunc(keys, func(x, y keyed) int { return x.id.Compare(y.id) })
	if err := matchExpected(keys, a.NumProvenanceIDs(), a.ProvenanceIDAt, "records", "id",
		"the record identity is not one the assessment expects (collection substitution)",
		"every provenance identity the assessment expects must be represented"); err != nil {
		return nil, err
	}
	v := &Provenance{
		attested: attested{domain: a.Domain(), assessment: a, identity: id},
		coverage: vocab.CoverageRepresented,
		records:  out,
	}
	if err := v.seal(provenanceLabel, v.contentDigest(validity), p, attestationID, vocab.FactProvenance, validity); err != nil {
		return nil, err
	}
	return v, nil
}

// UnknownProvenance returns Provenance with unknown coverage: no records and
// no attestation. It is only for an assessment that expects no Provenance
// identities; it can never stand in for expected records (Mismatch).
func UnknownProvenance(a *assessment.Assessment, id principal.Identity) (*Provenance, error) {
	if err := checkSubject(a, id); err != nil {
		return nil, err
	}
	if a.NumProvenanceIDs() != 0 {
		return nil, fault.At("records", fault.Mismatch,
			"the assessment expects provenance records; unknown coverage cannot replace them")
	}
	v := &Provenance{attested: attested{domain: a.Domain(), assessment: a, identity: id}, coverage: vocab.CoverageUnknown}
	v.sealUnattested(provenanceLabel, v.contentDigest(epoch.Validity{}))
	return v, nil
}

func parseRecord(d RecordDraft) (Record, error) {
	var r Record
	var err error
	if r.id, err = ident.ParseControlledID(d.ID); err != nil {
		return Record{}, fault.Within("id", err)
	}
	if r.source, err = vocab.ParseProvenanceSource(d.Source); err != nil {
		return Record{}, fault.Within("source", err)
	}
	if r.custody, err = parseEvidenceRef(d.Custody, "custody",
		"a record names its custody evidence reference; custody is never inferred"); err != nil {
		return Record{}, err
	}
	if len(d.Transformations) > MaxTransformations {
		return Record{}, fault.At("transformations", fault.LimitExceeded,
			"a provenance record has at most 8 transformations")
	}
	r.transformations = make([]vocab.Transformation, 0, len(d.Transformations))
	for j, s := range d.Transformations {
		t, err := vocab.ParseTransformation(s)
		if err != nil {
			return Record{}, fault.Within("transformations"+fault.Index(j), err)
		}
		r.transformations = append(r.transformations, t)
	}
	if r.verification, err = vocab.ParseVerification(d.Verification); err != nil {
		return Record{}, fault.Within("verification", err)
	}
	r.trust = Classify(r.source, r.verification, r.transformations)
	return r, nil
}

func (v *Provenance) contentDigest(validity epoch.Validity) digest.Digest {
	b := digest.New(provenanceContentLabel)
	writeBinding(b, v.assessment, v.identity, validity)
	b.Uint(uint64(v.coverage))
	b.Count(len(v.records))
	for _, r := range v.records {
		b.String(r.id.String())
		b.Uint(uint64(r.source))
		b.String(r.custody.String())
		b.Count(len(r.transformations))
		for _, t := range r.transformations {
			b.Uint(uint64(t))
		}
		b.Uint(uint64(r.verification))
		b.Uint(uint64(r.trust))
	}
	return b.Sum()
}

// Coverage returns represented for an attested set, unknown otherwise.
func (v *Provenance) Coverage() vocab.ProvenanceCoverage { return v.coverage }

// Records returns a copy of the records in identity ASCII order; empty when
// coverage is unknown.
func (v *Provenance) Records() []Record { return slices.Clone(v.records) }

// NumRecords returns the number of records.
func (v *Provenance) NumRecords() int { return len(v.records) }

// RecordAt returns record i (the order of Records), 0 ≤ i < NumRecords,
// without copying the others. A Record is an immutable value.
func (v *Provenance) RecordAt(i int) Record { return v.records[i] }

// Len returns the number of records.
func (v *Provenance) Len() int { return len(v.records) }

// Record returns the record with identity id.
func (v *Provenance) Record(id ident.ControlledID) (Record, bool) {
	return find(v.records, id, Record.compare)
}

// Equal reports exact continuity: the same retained Host domain and the same
// complete content, attestation included. Equal record identities with any
// other difference are not Equal.
func (v *Provenance) Equal(o *Provenance) bool {
	return v != nil && o != nil && v.domain.Same(o.domain) && v.digest.Equal(o.digest)
}
