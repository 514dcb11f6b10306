package policy

import (
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// facts is the read-only view of one complete Evaluation Input that
// predicates and scope filtering read. It is unexported on purpose (Section
// 21, structural evaluator misuse): Evaluate accepts only an engine-built
// *evalinput.Input, so no caller can obtain a Decision over facts it made
// up. Tests of predicate semantics reach it through export_test.go.
type facts interface {
	// The single-valued facts, the provenance and influence counts, the
	// times and FactMasks: what evalinput.SummaryOf reads.
	evalinput.SummarySource
	Domain() boundary.Domain
	Digest() digest.Digest
	Version() vocab.Version
	// Request is the Canonical Request, read only by argument predicates
	// (its validated arguments and its definition's digest); nil in tests
	// of the other predicates, which makes an argument predicate
	// indeterminate.
	Request() *request.CanonicalRequest
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
	ProvenanceRecordAt(i int) (vocab.ProvenanceSource, vocab.Trust)
	NumProvenanceTransformations(i int) int
	ProvenanceTransformationAt(i, j int) vocab.Transformation
	NumInfluenceCollections() int
	InfluenceCollectionAt(i int) evalinput.InfluenceCollectionFact // ASCII order by boundary
	InfluenceKindAt(i int) vocab.InfluenceKind                     // one entry per Influence record
	// Summary is the single-valued facts, and RequestedResourceHashAt
	// the hash of each requested Resource, computed once when the input is
	// built (evalinput.SummaryOf, evalinput.HashIdentifier); FactMasks is
	// the collections as bit masks (bit, maskAt).
	Summary() evalinput.SummaryView
	RequestedResourceHashAt(i int) uint64
}

var _ facts = (*evalinput.Input)(nil)
