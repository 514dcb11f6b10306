// Package request implements the Canonical Request of spec Section 11: the
// controlled, all-or-nothing result of exact Registry resolution, complete
// Schema validation and canonicalization v1, bound to one exact Proposal
// Assessment (Section 12).
//
// A Canonical Request is request evidence only. It carries no Host
// permission, no policy outcome and no Authorization (P-004). Its equality is
// complete structural equality over every bound value, which is strictly
// stronger than equality of its canonicalization-v1 bytes (P-015).
package request

import (
	"bytes"
	"errors"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// MaxArgumentBytes is the default bound on the raw argument text accepted
// for decoding. The protocol bounds the canonical form (65,536 octets); raw
// JSON may carry insignificant whitespace, so the raw bound is larger but
// still finite. A Host configures its own bound with NewLimited.
const MaxArgumentBytes = 256 * 1024

// Limits are the Host's bounds on a raw Proposal, beyond the protocol's.
type Limits struct {
	// MaxArgumentBytes bounds the raw argument text; it must be positive.
	MaxArgumentBytes int
}

// Proposal is a raw, untrusted model Proposal as the Host parsed it from the
// agent's request. Nothing in it is trusted until validated.
type Proposal struct {
	ProposalID string // raw Proposal identity
	ToolID     string // requested Tool Identifier
	Version    string // requested Tool Version, canonical generation text
	Arguments  []byte // the argument object as JSON text
}

// CanonicalRequest is the controlled result of Section 11 construction.
type CanonicalRequest struct {
	resolution registry.Resolution
	args       schema.Arguments
	bytes      []byte
	assessment *assessment.Assessment
	digest     digest.Digest
}

// New builds the Canonical Request for proposal p from the exactly selected
// registry snapshot and the Host's assessment of that same proposal. Every
// step rejects the whole construction on failure; no partial request is ever
// returned.
func New(snap *registry.Snapshot, p Proposal, a *assessment.Assessment) (*CanonicalRequest, error) {
	return NewLimited(snap, p, a, Limits{MaxArgumentBytes: MaxArgumentBytes})
}

// NewLimited is New under the Host's own limits. A raw argument text longer
// than lim.MaxArgumentBytes rejects with fault.LimitExceeded at "arguments"
// before it is decoded.
func NewLimited(snap *registry.Snapshot, p Proposal, a *assessment.Assessment, lim Limits) (*CanonicalRequest, error) {
	if lim.MaxArgumentBytes <= 0 {
		return nil, fault.At("limits.maxArgumentBytes", fault.OutOfRange, "the raw argument bound must be positive")
	}
	if snap == nil {
		return nil, fault.At("registry", fault.Missing, "an exact registry snapshot must be selected")
	}
	if a == nil || a.Domain().IsZero() {
		return nil, fault.At("assessment", fault.Missing, "a canonical request is bound to a proposal assessment")
	}
	proposalID, err := ident.ParseControlledID(p.ProposalID)
	if err != nil {
		return nil, fault.Within("proposal.proposalID", err)
	}
	if proposalID != a.ProposalID() {
		return nil, fault.At("assessment.proposalID", fault.Mismatch,
			"the assessment must be for the same proposal as the request")
	}
	tool, err := ident.ParseToolID(p.ToolID)
	if err != nil {
		return nil, fault.Within("proposal.toolID", err)
	}
	version, err := ident.ParseGeneration(p.Version)
	if err != nil {
		return nil, fault.Within("proposal.version", err)
	}
	res, err := snap.Lookup(tool, version)
	if err != nil {
		return nil, fault.Within("proposal", err)
	}
	def := res.Definition()
	args, err := validateArguments(def.Schema(), p.Arguments, lim)
	if err != nil {
		return nil, err
	}
	b, err := canon.Encode(canon.Envelope{
		SnapshotID:         snap.ID(),
		SnapshotGeneration: snap.Generation(),
		ToolID:             def.ToolID(),
		ToolVersion:        def.Version(),
		DefinitionID:       def.ID(),
		SchemaID:           def.Schema().ID(),
		SchemaVersion:      def.Schema().Version(),
		Root:               args.Root(),
	})
	if err != nil {
		return nil, fault.Within("arguments", err)
	}
	r := &CanonicalRequest{resolution: res, args: args, bytes: b, assessment: a}
	r.digest = r.computeDigest()
	return r, nil
}

// validateArguments decodes and validates the raw arguments. Schema's
// one-pass ValidateJSON accepts the common request; whatever it does not
// accept goes through the reference path (jsonexact.Decode, then
// Schema.Validate), which owns every rejection, so codes and paths do not
// depend on the fast path. The raw bound applies before either.
func validateArguments(s schema.Schema, raw []byte, lim Limits) (schema.Arguments, error) {
	if len(raw) <= lim.MaxArgumentBytes {
		if args, ok := s.ValidateJSON(raw); ok {
			return args, nil
		}
	}
	return referenceArguments(s, raw, lim)
}

// referenceArguments is the reference path: the occurrence-preserving
// decode, then Schema validation of the decoded tree.
func referenceArguments(s schema.Schema, raw []byte, lim Limits) (schema.Arguments, error) {
	v, err := jsonexact.Decode(raw, jsonexact.Limits{MaxDepth: schema.MaxDepth, MaxBytes: lim.MaxArgumentBytes})
	if err != nil {
		return schema.Arguments{}, decodeFault(err)
	}
	return s.Validate(v)
}

// decodeFault locates a jsonexact rejection of the raw arguments.
func decodeFault(err error) error { return fault.At("arguments", JSONFaultCode(err), err.Error()) }

// JSONFaultCode maps a jsonexact rejection onto the engine's closed codes,
// for every reader of untrusted JSON (arguments here; Schema and condition
// trees in manifests): a duplicate key is Duplicate, null, a fraction or an
// exponent is KindMismatch (JSON that is valid but of a kind the protocol
// does not have), an out-of-range integer or -0 is OutOfRange, excessive
// depth or size is LimitExceeded, anything else Malformed. The jsonexact
// message names the reason and an offset, never input content.
func JSONFaultCode(err error) fault.Code {
	switch {
	case errors.Is(err, jsonexact.ErrDuplicateKey):
		return fault.Duplicate
	case errors.Is(err, jsonexact.ErrNull), errors.Is(err, jsonexact.ErrFraction), errors.Is(err, jsonexact.ErrExponent):
		return fault.KindMismatch
	case errors.Is(err, jsonexact.ErrOutOfRange), errors.Is(err, jsonexact.ErrNegativeZero):
		return fault.OutOfRange
	case errors.Is(err, jsonexact.ErrTooDeep), errors.Is(err, jsonexact.ErrTooLarge):
		return fault.LimitExceeded
	default:
		return fault.Malformed
	}
}

// Snapshot returns the exact Registry Snapshot the request was resolved in.
func (r *CanonicalRequest) Snapshot() *registry.Snapshot { return r.resolution.Snapshot() }

// Definition returns the exact resolved Tool Definition.
func (r *CanonicalRequest) Definition() *registry.Definition { return r.resolution.Definition() }

// Schema returns the complete Schema the arguments were validated against.
func (r *CanonicalRequest) Schema() schema.Schema { return r.resolution.Definition().Schema() }

// CanonicalizationVersion returns the canonicalization version (always v1).
func (r *CanonicalRequest) CanonicalizationVersion() vocab.Version { return vocab.V1 }

// Arguments returns the validated typed arguments.
func (r *CanonicalRequest) Arguments() schema.Arguments { return r.args }

// Bytes returns a copy of the canonicalization-v1 octets.
func (r *CanonicalRequest) Bytes() []byte { return slices.Clone(r.bytes) }

// Resources returns the argument-derived Resources: unique, ASCII order;
// empty means no Resource authority.
func (r *CanonicalRequest) Resources() []ident.Resource { return r.args.Resources() }

// Assessment returns the bound Proposal Assessment.
func (r *CanonicalRequest) Assessment() *assessment.Assessment { return r.assessment }

// Digest returns the digest of the complete request content: snapshot,
// definition (with its complete Schema), canonicalization version, typed
// arguments and Resources (which determine the canonical bytes) and the
// assessment content. The Host
// domain has no content; Equal compares it separately.
func (r *CanonicalRequest) Digest() digest.Digest { return r.digest }

// Equal reports complete structural equality (Section 11): two requests are
// equal only when every bound value is, including the Proposal Assessment and
// its Host domain and the complete definition and snapshot content. Equal
// canonical bytes are not sufficient.
func (a *CanonicalRequest) Equal(b *CanonicalRequest) bool {
	return a != nil && b != nil &&
		a.assessment.Equal(b.assessment) &&
		a.digest.Equal(b.digest) &&
		bytes.Equal(a.bytes, b.bytes)
}

func (r *CanonicalRequest) computeDigest() digest.Digest {
	b := digest.New("toolgate.canonical-request/1")
	b.Digest(r.Snapshot().Digest())
	b.Digest(r.Definition().Digest())
	b.Uint(uint64(vocab.V1))
	// The canonical bytes are a deterministic function of the snapshot and
	// definition identities, the Schema identity and version and the typed
	// arguments, all committed above; hashing them again would double the
	// cost for a 64 KiB request without committing to anything new. Equal
	// still compares them byte for byte.
	r.args.WriteDigest(b)
	b.Digest(r.assessment.Digest())
	return b.Sum()
}
