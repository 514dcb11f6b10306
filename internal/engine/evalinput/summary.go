package evalinput

import (
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Summary is every single-valued fact of an Input that policy reads, as
// plain values, computed once at construction (SummaryOf): a compiled
// policy reads it through one SummaryView instead of one accessor call per
// fact, each through the request, the Security Context or the Intent.
// Nothing of the Input is reachable through a Summary.
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

// Summary returns the Summary of in, computed at construction, read in
// place: no copy per evaluation, and nothing can write through the view.
func (in *Input) Summary() SummaryView { return SummaryView{&in.summary} }

// SummaryView reads one Summary in place. Its only field is unexported, so
// it cannot be written through; each method returns a copy of one fact.
// The zero SummaryView reads nothing (its methods panic).
type SummaryView struct{ s *Summary }

// ViewOf returns a view of a copy of s (for facts that are not an Input).
func ViewOf(s Summary) SummaryView { return SummaryView{&s} }

// Summary returns a copy of the whole Summary.
func (v SummaryView) Summary() Summary { return *v.s }

// ToolID returns Summary.ToolID.
func (v SummaryView) ToolID() Identifier { return v.s.ToolID }

// DefinitionID returns Summary.DefinitionID.
func (v SummaryView) DefinitionID() Identifier { return v.s.DefinitionID }

// RegistrySnapshotID returns Summary.RegistrySnapshotID.
func (v SummaryView) RegistrySnapshotID() Identifier { return v.s.RegistrySnapshotID }

// Subject returns Summary.Subject.
func (v SummaryView) Subject() Identifier { return v.s.Subject }

// Tenant returns Summary.Tenant.
func (v SummaryView) Tenant() Identifier { return v.s.Tenant }

// Session returns Summary.Session.
func (v SummaryView) Session() Identifier { return v.s.Session }

// Delegation returns Summary.Delegation.
func (v SummaryView) Delegation() Identifier { return v.s.Delegation }

// ToolVersion returns Summary.ToolVersion.
func (v SummaryView) ToolVersion() uint64 { return v.s.ToolVersion }

// RegistrySnapshotGeneration returns Summary.RegistrySnapshotGeneration.
func (v SummaryView) RegistrySnapshotGeneration() uint64 { return v.s.RegistrySnapshotGeneration }

// RenewalGeneration returns Summary.RenewalGeneration.
func (v SummaryView) RenewalGeneration() uint64 { return v.s.RenewalGeneration }

// EvaluationTime returns Summary.EvaluationTime.
func (v SummaryView) EvaluationTime() epoch.Time { return v.s.EvaluationTime }

// IntentIssuedAt returns Summary.IntentIssuedAt.
func (v SummaryView) IntentIssuedAt() epoch.Time { return v.s.IntentIssuedAt }

// ContextIssuedAt returns Summary.ContextIssuedAt.
func (v SummaryView) ContextIssuedAt() epoch.Time { return v.s.ContextIssuedAt }

// NumProvenanceRecords returns Summary.NumProvenanceRecords.
func (v SummaryView) NumProvenanceRecords() int { return v.s.NumProvenanceRecords }

// NumInfluenceKinds returns Summary.NumInfluenceKinds.
func (v SummaryView) NumInfluenceKinds() int { return v.s.NumInfluenceKinds }

// Lifecycle returns Summary.Lifecycle.
func (v SummaryView) Lifecycle() vocab.Lifecycle { return v.s.Lifecycle }

// Risk returns Summary.Risk.
func (v SummaryView) Risk() vocab.Risk { return v.s.Risk }

// SideEffect returns Summary.SideEffect.
func (v SummaryView) SideEffect() vocab.SideEffect { return v.s.SideEffect }

// Reversibility returns Summary.Reversibility.
func (v SummaryView) Reversibility() vocab.Reversibility { return v.s.Reversibility }

// Assurance returns Summary.Assurance.
func (v SummaryView) Assurance() vocab.Assurance { return v.s.Assurance }

// Coverage returns Summary.Coverage.
func (v SummaryView) Coverage() vocab.ProvenanceCoverage { return v.s.Coverage }

// SessionIndependent returns Summary.SessionIndependent.
func (v SummaryView) SessionIndependent() bool { return v.s.SessionIndependent }

// Delegated returns Summary.Delegated.
func (v SummaryView) Delegated() bool { return v.s.Delegated }

// Masks returns Summary.Masks.
func (v SummaryView) Masks() FactMasks { return v.s.Masks }

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
