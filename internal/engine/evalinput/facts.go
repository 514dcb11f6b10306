package evalinput

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evidence"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// ProvenanceFact is one represented Provenance record as policy reads it.
type ProvenanceFact struct {
	Source          vocab.ProvenanceSource
	Trust           vocab.Trust
	Transformations []vocab.Transformation
}

// InfluenceCollectionFact is one declared Influence collection boundary and
// its boundary-local completeness.
type InfluenceCollectionFact struct {
	Boundary     ident.ControlledID
	Completeness vocab.Completeness
}

// FactMasks summarizes the enumeration collections of one Input as bit
// sets, computed once at construction: bit v is set for a value v < 32 and
// bit 0 for any value of 32 or more (values that are never valid). It is a
// plain value; nothing of the Input is reachable through it.
type FactMasks struct {
	AuthMethods               uint32 // AuthMethodAt
	RequestedCapabilities     uint32 // RequestedCapabilityAt
	IntendedCapabilities      uint32 // IntendedCapabilityAt
	HostCapabilities          uint32 // HostCapabilityAt
	ProvenanceSources         uint32 // every ProvenanceRecordAt's source
	ProvenanceTrusts          uint32 // every ProvenanceRecordAt's trust
	ProvenanceTransformations uint32 // every ProvenanceTransformationAt
	InfluenceKinds            uint32 // InfluenceKindAt
	// AllCollectionsComplete reports whether every InfluenceCollectionAt is
	// complete (true when there is none).
	AllCollectionsComplete bool
}

// FactMasks returns the masks of in's enumeration collections.
func (in *Input) FactMasks() FactMasks { return in.masks }

func maskBit[T ~uint8](v T) uint32 {
	if v >= 32 {
		return 1
	}
	return 1 << v
}

func (in *Input) deriveMasks() {
	m := FactMasks{AllCollectionsComplete: true}
	for i := range in.NumAuthMethods() {
		m.AuthMethods |= maskBit(in.AuthMethodAt(i))
	}
	for _, c := range in.capabilities {
		m.RequestedCapabilities |= maskBit(c)
	}
	for i := range in.NumIntendedCapabilities() {
		m.IntendedCapabilities |= maskBit(in.IntendedCapabilityAt(i))
	}
	for i := range in.NumHostCapabilities() {
		m.HostCapabilities |= maskBit(in.HostCapabilityAt(i))
	}
	for _, r := range in.provFacts {
		m.ProvenanceSources |= maskBit(r.Source)
		m.ProvenanceTrusts |= maskBit(r.Trust)
		for _, t := range r.Transformations {
			m.ProvenanceTransformations |= maskBit(t)
		}
	}
	for _, c := range in.inflColls {
		m.AllCollectionsComplete = m.AllCollectionsComplete && c.Completeness == vocab.CompletenessComplete
	}
	for _, k := range in.inflKinds {
		m.InfluenceKinds |= maskBit(k)
	}
	in.masks = m
}

func (in *Input) deriveFacts() {
	defer in.deriveMasks()
	prov, infl := in.provenance, in.influence
	n, total := prov.NumRecords(), 0
	for i := range n {
		total += prov.RecordAt(i).NumTransformations()
	}
	// One array holds every record's transformations; each fact's slice is
	// capped at its own, and none is ever modified or returned.
	var all []vocab.Transformation
	if total != 0 {
		all = make([]vocab.Transformation, 0, total)
	}
	if n != 0 {
		in.provFacts = make([]ProvenanceFact, 0, n)
	}
	if c := infl.NumCollections(); c != 0 {
		in.inflColls = make([]InfluenceCollectionFact, 0, c)
	}
	if k := infl.NumNodes(); k != 0 {
		in.inflKinds = make([]vocab.InfluenceKind, 0, k)
	}
	for i := range n {
		r := prov.RecordAt(i)
		var ts []vocab.Transformation
		if r.NumTransformations() == 0 {
			ts = r.Transformations() // empty, exactly as the record's (nothing to copy)
		} else {
			start := len(all)
			for j := range r.NumTransformations() {
				all = append(all, r.TransformationAt(j))
			}
			ts = all[start:len(all):len(all)]
		}
		in.provFacts = append(in.provFacts, ProvenanceFact{Source: r.Source(), Trust: r.Trust(), Transformations: ts})
	}
	for i := range infl.NumCollections() {
		c := infl.CollectionAt(i)
		in.inflColls = append(in.inflColls, InfluenceCollectionFact{Boundary: c.Boundary(), Completeness: c.Completeness()})
	}
	for i := range infl.NumNodes() {
		in.inflKinds = append(in.inflKinds, infl.NodeAt(i).Kind())
	}
}

// Domain returns the Host authority domain.
func (in *Input) Domain() boundary.Domain { return in.domain }

// Digest returns the digest of the complete input.
func (in *Input) Digest() digest.Digest { return in.digest }

// Version returns the Evaluation Input representation version (v1).
func (in *Input) Version() vocab.Version { return vocab.V1 }

// Request returns the bound Canonical Request.
func (in *Input) Request() *request.CanonicalRequest { return in.req }

// Assessment returns the bound Proposal Assessment.
func (in *Input) Assessment() *assessment.Assessment { return in.req.Assessment() }

// Host returns the Host Authority ceiling.
func (in *Input) Host() *authority.HostAuthority { return in.host }

// Attestations returns the composed Role attestations.
func (in *Input) Attestations() authority.Composition { return in.composition }

// SecurityContext returns the bound Security Context.
func (in *Input) SecurityContext() *evidence.SecurityContext { return in.sc }

// Intent returns the bound Intent.
func (in *Input) Intent() *evidence.Intent { return in.intent }

// Delegation returns the bound Delegation, or nil.
func (in *Input) Delegation() *evidence.Delegation { return in.delegation }

// Provenance returns the bound Provenance.
func (in *Input) Provenance() *lineage.Provenance { return in.provenance }

// Influence returns the bound Influence.
func (in *Input) Influence() *lineage.Influence { return in.influence }

// ToolID returns the resolved Tool Identifier.
func (in *Input) ToolID() ident.ToolID { return in.req.Definition().ToolID() }

// ToolVersion returns the resolved Tool Version.
func (in *Input) ToolVersion() ident.Generation { return in.req.Definition().Version() }

// DefinitionID returns the resolved Tool Definition identity.
func (in *Input) DefinitionID() ident.DefinitionID { return in.req.Definition().ID() }

// RegistrySnapshotID returns the Registry Snapshot identity.
func (in *Input) RegistrySnapshotID() ident.SnapshotID { return in.req.Snapshot().ID() }

// RegistrySnapshotGeneration returns the Registry Snapshot generation.
func (in *Input) RegistrySnapshotGeneration() ident.Generation { return in.req.Snapshot().Generation() }

// Lifecycle returns the definition's lifecycle.
func (in *Input) Lifecycle() vocab.Lifecycle { return in.req.Definition().Lifecycle() }

// Risk returns the definition's risk.
func (in *Input) Risk() vocab.Risk { return in.req.Definition().Risk() }

// SideEffect returns the definition's side effect.
func (in *Input) SideEffect() vocab.SideEffect { return in.req.Definition().SideEffect() }

// Reversibility returns the definition's reversibility.
func (in *Input) Reversibility() vocab.Reversibility { return in.req.Definition().Reversibility() }

// Identity returns the exact identity shared by all evidence.
func (in *Input) Identity() principal.Identity { return in.sc.Identity() }

// Assurance returns the Security Context's assurance classification.
func (in *Input) Assurance() vocab.Assurance { return in.sc.Assurance() }

// AuthMethods returns the Security Context's authentication methods.
func (in *Input) AuthMethods() []vocab.AuthMethod { return in.sc.Methods() }

// RequestedCapabilities returns the explicitly requested Capabilities.
func (in *Input) RequestedCapabilities() []vocab.Capability { return slices.Clone(in.capabilities) }

// RequestedResources returns the explicitly requested Resources.
func (in *Input) RequestedResources() []ident.Resource { return slices.Clone(in.resources) }

// IntendedCapabilities returns the Intent's Capability ceiling.
func (in *Input) IntendedCapabilities() []vocab.Capability { return in.intent.Capabilities() }

// IntendedResources returns the Intent's Resource ceiling.
func (in *Input) IntendedResources() []ident.Resource { return in.intent.Resources() }

// HostCapabilities returns the Host Authority's Capability ceiling.
func (in *Input) HostCapabilities() []vocab.Capability { return in.host.Capabilities() }

// HostResources returns the Host Authority's Resource ceiling.
func (in *Input) HostResources() []ident.Resource { return in.host.Resources() }

// ProvenanceCoverage returns the Provenance coverage.
func (in *Input) ProvenanceCoverage() vocab.ProvenanceCoverage { return in.provenance.Coverage() }

// ProvenanceRecords returns the policy view of every Provenance record. The
// copy is deep: each record's transformations are copied too, so a caller
// cannot rewrite the input's lineage.
func (in *Input) ProvenanceRecords() []ProvenanceFact {
	out := slices.Clone(in.provFacts)
	for i := range out {
		out[i].Transformations = slices.Clone(out[i].Transformations)
	}
	return out
}

// InfluenceCollections returns the policy view of every Influence collection.
func (in *Input) InfluenceCollections() []InfluenceCollectionFact { return slices.Clone(in.inflColls) }

// InfluenceKinds returns the kind of every Influence record.
func (in *Input) InfluenceKinds() []vocab.InfluenceKind { return slices.Clone(in.inflKinds) }

// EvaluationTime returns the explicit evaluation time.
func (in *Input) EvaluationTime() epoch.Time { return in.at }

// IntentIssuedAt returns the Intent's issue time.
func (in *Input) IntentIssuedAt() epoch.Time { return in.intent.Validity().IssuedAt() }

// ContextIssuedAt returns the Security Context's issue time.
func (in *Input) ContextIssuedAt() epoch.Time { return in.sc.Validity().IssuedAt() }

// RenewalGeneration returns the bound Intent renewal generation.
func (in *Input) RenewalGeneration() ident.Generation { return in.renewal }

// Equal reports complete equality: the same domain and content.
func (a *Input) Equal(b *Input) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) && a.digest.Equal(b.digest)
}

func (in *Input) computeDigest() digest.Digest {
	b := digest.New("toolgate.evaluation-input/1")
	b.Uint(uint64(vocab.V1))
	b.Digest(in.req.Digest())
	b.Digest(in.host.Digest())
	b.Count(in.composition.Len())
	for i := range in.composition.Len() {
		b.Digest(in.composition.AttestationAt(i).Digest())
	}
	b.Digest(in.sc.Digest())
	b.Digest(in.intent.Digest())
	if in.delegation == nil {
		b.Absent()
	} else {
		b.Digest(in.delegation.Digest())
	}
	b.Digest(in.provenance.Digest())
	b.Digest(in.influence.Digest())
	b.Count(len(in.capabilities))
	for _, c := range in.capabilities {
		b.Uint(uint64(c))
	}
	digest.Strings(b, in.resources)
	b.Uint(in.at.Seconds())
	b.Uint(in.renewal.Uint64())
	return b.Sum()
}

// The index accessors below read the same facts as the copying accessors
// above without copying them: each returns one immutable value (an
// enumeration, a token or a value struct without references), so no caller
// can reach, let alone modify, the input's own storage. Policy evaluation
// reads the input through them. Each At method requires 0 ≤ i < its Num
// method's result and panics otherwise, as a slice index does.

// NumAuthMethods returns the number of authentication methods.
func (in *Input) NumAuthMethods() int { return in.sc.NumMethods() }

// AuthMethodAt returns authentication method i (Section 48 order).
func (in *Input) AuthMethodAt(i int) vocab.AuthMethod { return in.sc.MethodAt(i) }

// NumRequestedCapabilities returns the number of requested Capabilities.
func (in *Input) NumRequestedCapabilities() int { return len(in.capabilities) }

// RequestedCapabilityAt returns requested Capability i (ASCII order).
func (in *Input) RequestedCapabilityAt(i int) vocab.Capability { return in.capabilities[i] }

// NumRequestedResources returns the number of requested Resources.
func (in *Input) NumRequestedResources() int { return len(in.resources) }

// RequestedResourceAt returns requested Resource i (ASCII order).
func (in *Input) RequestedResourceAt(i int) ident.Resource { return in.resources[i] }

// NumIntendedCapabilities returns the size of the Intent's Capability ceiling.
func (in *Input) NumIntendedCapabilities() int { return in.intent.NumCapabilities() }

// IntendedCapabilityAt returns member i of the Intent's Capability ceiling.
func (in *Input) IntendedCapabilityAt(i int) vocab.Capability { return in.intent.CapabilityAt(i) }

// NumHostCapabilities returns the size of the Host Authority's Capability ceiling.
func (in *Input) NumHostCapabilities() int { return in.host.NumCapabilities() }

// HostCapabilityAt returns member i of the Host Authority's Capability ceiling.
func (in *Input) HostCapabilityAt(i int) vocab.Capability { return in.host.CapabilityAt(i) }

// NumHostResources returns the size of the Host Authority's Resource ceiling.
func (in *Input) NumHostResources() int { return in.host.NumResources() }

// HostResourceAt returns member i of the Host Authority's Resource ceiling.
func (in *Input) HostResourceAt(i int) ident.Resource { return in.host.ResourceAt(i) }

// NumProvenanceRecords returns the number of represented Provenance records.
func (in *Input) NumProvenanceRecords() int { return len(in.provFacts) }

// ProvenanceRecordAt returns the source and trust of Provenance record i.
func (in *Input) ProvenanceRecordAt(i int) (vocab.ProvenanceSource, vocab.Trust) {
	return in.provFacts[i].Source, in.provFacts[i].Trust
}

// NumProvenanceTransformations returns the number of transformations of
// Provenance record i.
func (in *Input) NumProvenanceTransformations(i int) int { return len(in.provFacts[i].Transformations) }

// ProvenanceTransformationAt returns transformation j of Provenance record i.
func (in *Input) ProvenanceTransformationAt(i, j int) vocab.Transformation {
	return in.provFacts[i].Transformations[j]
}

// NumInfluenceCollections returns the number of Influence collections.
func (in *Input) NumInfluenceCollections() int { return len(in.inflColls) }

// InfluenceCollectionAt returns Influence collection i (ASCII order by boundary).
func (in *Input) InfluenceCollectionAt(i int) InfluenceCollectionFact { return in.inflColls[i] }

// NumInfluenceKinds returns the number of Influence records.
func (in *Input) NumInfluenceKinds() int { return len(in.inflKinds) }

// InfluenceKindAt returns the kind of Influence record i.
func (in *Input) InfluenceKindAt(i int) vocab.InfluenceKind { return in.inflKinds[i] }
