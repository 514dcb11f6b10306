package evalinput

import (
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Summary is every single-valued fact of an Input that policy reads, as
// plain values, computed once at construction (SummaryOf): a compiled
// policy reads it with one call instead of one accessor call per fact,
// each through the request, the Security Context or the Intent. Like
// FactMasks it is a copy; nothing of the Input is reachable through it.
type Summary struct {
	// Identifiers, exactly as the accessors' String (the zero
	// identifier's is empty), with their HashIdentifier.
	ToolID, DefinitionID, RegistrySnapshotID        Identifier
	Subject, Tenant, Session, Delegation            Identifier
	ToolVersion, RegistrySnapshotGeneration         uint64
	RenewalGeneration                               uint64
	EvaluationTime, IntentIssuedAt, ContextIssuedAt epoch.Time
	NumProvenanceRecords, NumInfluenceKinds         int
	Lifecycle                                       vocab.Lifecycle
	Risk                                            vocab.Risk
	SideEffect                                      vocab.SideEffect
	Reversibility                                   vocab.Reversibility
	Assurance                                       vocab.Assurance
	Coverage                                        vocab.ProvenanceCoverage
	SessionIndependent                              bool // the identity's session is explicitly independent
	Delegated                                       bool // the identity names a delegation
	Masks                                           FactMasks
}

// SummarySource is what SummaryOf reads: the single-valued accessors of an
// Input (and of any view of the same facts).
type SummarySource interface {
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
	ProvenanceCoverage() vocab.ProvenanceCoverage
	NumProvenanceRecords() int
	NumInfluenceKinds() int
	EvaluationTime() epoch.Time
	IntentIssuedAt() epoch.Time
	ContextIssuedAt() epoch.Time
	RenewalGeneration() ident.Generation
	FactMasks() FactMasks
}

// SummaryOf reads the Summary of f through its accessors: New computes an
// Input's with it, so the Summary and the accessors cannot disagree.
func SummaryOf(f SummarySource) Summary {
	id := f.Identity()
	return Summary{
		ToolID:                     identifier(f.ToolID().String()),
		DefinitionID:               identifier(f.DefinitionID().String()),
		RegistrySnapshotID:         identifier(f.RegistrySnapshotID().String()),
		Subject:                    identifier(id.Subject().String()),
		Tenant:                     identifier(id.Tenant().String()),
		Session:                    identifier(id.Session().ID().String()),
		Delegation:                 identifier(id.Delegation().String()),
		ToolVersion:                f.ToolVersion().Uint64(),
		RegistrySnapshotGeneration: f.RegistrySnapshotGeneration().Uint64(),
		RenewalGeneration:          f.RenewalGeneration().Uint64(),
		EvaluationTime:             f.EvaluationTime(),
		IntentIssuedAt:             f.IntentIssuedAt(),
		ContextIssuedAt:            f.ContextIssuedAt(),
		NumProvenanceRecords:       f.NumProvenanceRecords(),
		NumInfluenceKinds:          f.NumInfluenceKinds(),
		Lifecycle:                  f.Lifecycle(),
		Risk:                       f.Risk(),
		SideEffect:                 f.SideEffect(),
		Reversibility:              f.Reversibility(),
		Assurance:                  f.Assurance(),
		Coverage:                   f.ProvenanceCoverage(),
		SessionIndependent:         id.Session().IsIndependent(),
		Delegated:                  !id.Delegation().IsZero(),
		Masks:                      f.FactMasks(),
	}
}

// Summary returns the Summary of in, computed at construction.
func (in *Input) Summary() Summary { return in.summary }

// Identifier is an identifier's text and its HashIdentifier.
type Identifier struct {
	Text string
	Hash uint64
}

func identifier(s string) Identifier { return Identifier{s, HashIdentifier(s)} }

// HashIdentifier is the 64-bit FNV-1a hash of s. The Input hashes its
// identifiers once, at construction, and a compiled policy finds them in
// its table of the identifiers it names with that hash; it is only an
// index: the table compares the text too, so equal hashes of different
// identifiers never match.
func HashIdentifier(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// RequestedResourceHashAt returns the HashIdentifier of requested Resource
// i (ASCII order), computed at construction.
func (in *Input) RequestedResourceHashAt(i int) uint64 {
	return in.resourceHashes[:len(in.resources)][i]
}
