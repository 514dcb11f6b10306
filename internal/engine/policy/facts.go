package policy

import (
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Facts is the read-only view of one complete Evaluation Input that predicates and scope filtering read.
type Facts interface {
	Domain() boundary.Boundary
	Digest() digest.Digest
	Version() vocab.Version
	ToolID() ident.ToolID
	ToolVersion() ident.Generation
	DefinitionID() ident.DefinitionID
	RegistrySnapshotID() ident.SnapshotID
	RegistrySnapshotGeneration() ident.Generation
	Lifecycle() vocab.Lifecycle
	Risk() vocab.Risk
	SideEffect() vocab.SideEffect
	Reversibility() vocab.Reversibility
	Identity() principal.Identity
	Assurance() vocab.Assurance
	AuthMethods() []vocab.AuthMethod
	RequestedCapabilities() []vocab.Capability // ASCII order, unique
	RequestedResources() []ident.Resource      // ASCII order, unique
	IntendedCapabilities() []vocab.Capability
	HostCapabilities() []vocab.Capability
	HostResources() []ident.Resource
	ProvenanceCoverage() vocab.ProvenanceCoverage
	ProvenanceRecords() []ProvenanceFact
	InfluenceCollections() []InfluenceCollectionFact // ASCII order by boundary
	InfluenceKinds() []vocab.InfluenceKind           // one entry per Influence record
	EvaluationTime() epoch.Time
	IntentIssuedAt() epoch.Time
	ContextIssuedAt() epoch.Time
	RenewalGeneration() ident.Generation
}

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
