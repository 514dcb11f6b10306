package policy

import (
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// facts is the read-only view of one complete Evaluation Input that
// predicates and scope filtering read. It is unexported on purpose (Section
// 21, structural evaluator misuse): Evaluate accepts only an engine-built
// *evalinput.Input, so no caller can obtain a Decision over facts it made
// up. Tests of predicate semantics reach it through export_test.go.
type facts interface {
	Domain() boundary.Domain
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
	// The collection facts are read by index, without copies (each Num
	// method's result bounds its At method's index).
	NumAuthMethods() int
	AuthMethodAt(i int) vocab.AuthMethod
	NumRequestedCapabilities() int
	RequestedCapabilityAt(i int) vocab.Capability // ASCII order, unique
	NumRequestedResources() int
	RequestedResourceAt(i int) ident.Resource // ASCII order, unique
	NumIntendedCapabilities() int
	IntendedCapabilityAt(i int) vocab.Capability
	NumHostCapabilities() int
	HostCapabilityAt(i int) vocab.Capability
	NumHostResources() int
	HostResourceAt(i int) ident.Resource
	ProvenanceCoverage() vocab.ProvenanceCoverage
	NumProvenanceRecords() int
	ProvenanceRecordAt(i int) (vocab.ProvenanceSource, vocab.Trust)
	NumProvenanceTransformations(i int) int
	ProvenanceTransformationAt(i, j int) vocab.Transformation
	NumInfluenceCollections() int
	InfluenceCollectionAt(i int) evalinput.InfluenceCollectionFact // ASCII order by boundary
	NumInfluenceKinds() int
	InfluenceKindAt(i int) vocab.InfluenceKind // one entry per Influence record
	EvaluationTime() epoch.Time
	IntentIssuedAt() epoch.Time
	ContextIssuedAt() epoch.Time
	RenewalGeneration() ident.Generation
	// FactMasks is the collections above as bit masks (bit, maskAt),
	// computed once when the input is built.
	FactMasks() evalinput.FactMasks
	// Summary is the single-valued facts above, and RequestedResourceHashAt
	// the hash of each requested Resource, computed once when the input is
	// built (evalinput.SummaryOf, evalinput.HashIdentifier).
	Summary() evalinput.SummaryView
	RequestedResourceHashAt(i int) uint64
}

var _ facts = (*evalinput.Input)(nil)
