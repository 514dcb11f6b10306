// Package ident implements the identifier and name grammars of spec
// Section 49 and their Section 39 bounds.
//
// Every type here can be obtained only from its Parse function, which checks
// the exact grammar on ASCII octets: nothing is trimmed, case-folded,
// normalized, repaired or aliased. The zero value of each type is invalid and
// reports IsZero. Rejections are *fault.Error values whose text never contains
// the rejected input.
package ident

import (
	"cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

// Bounds from Sections 39 and 49.
const (
	// MaxTokenLen is the bound N of lower-token(64) identities.
	MaxTokenLen = 64
	// MaxToolIDLen bounds a complete Tool Identifier.
	MaxToolIDLen = 128
	// MinToolIDSegments and MaxToolIDSegments bound the dot-separated segments.
	MinToolIDSegments = 2
	MaxToolIDSegments = 8
	// MaxToolIDSegmentLen bounds each segment (lower-token(32)).
	MaxToolIDSegmentLen = 32
	// MaxGenerationDigits bounds generation text.
	MaxGenerationDigits = 20
	// MaxDocRefLen bounds a documentation reference.
	MaxDocRefLen = 64
	// MaxTitleLen, MaxSummaryLen and MaxIntentDisplayLen bound display text.
	MaxTitleLen         = 80
	MaxSummaryLen       = 240
	MaxIntentDisplayLen = 160
)

func isLowerAlnum(c byte) bool { return ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') }

// isLowerToken reports whether s is lower-token(n): one lower-alnum, or 2..n
// octets whose first and last are lower-alnum and whose interior octets are
// lower-alnum or '-'.
func isLowerToken(s string, n int) bool {
	if len(s) == 0 || len(s) > n {
		return false
	}
	if !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// family names one lower-token(64) identity family, so identities of
// different families cannot be mixed up at compile time.
type family interface{ rule() string }

// Token is a lower-token(64) identity of family F.
type Token[F family] struct{ s string }

// String returns the exact identity text.
func (t Token[F]) String() string { return t.s }

// IsZero reports whether t is the invalid zero value.
func (t Token[F]) IsZero() bool { return t.s == "" }

// Compare orders identities by ASCII octets (Section 50).
func (t Token[F]) Compare(u Token[F]) int { return cmp.Compare(t.s, u.s) }

func parseToken[F family](s string) (Token[F], error) {
	if !isLowerToken(s, MaxTokenLen) {
		var f F
		return Token[F]{}, fault.New(fault.Malformed, f.rule())
	}
	return Token[F]{s: s}, nil
}

const lowerTokenRule = " must be 1–64 octets of a–z, 0–9 and '-', starting and ending with a letter or digit"

type (
	snapshotFamily   struct{}
	definitionFamily struct{}
	schemaFamily     struct{}
	nameFamily       struct{}
	resourceFamily   struct{}
	controlledFamily struct{}
	policyFamily     struct{}
	artifactFamily   struct{}
)

func (snapshotFamily) rule() string   { return "snapshot identity" + lowerTokenRule }
func (definitionFamily) rule() string { return "tool definition identity" + lowerTokenRule }
func (schemaFamily) rule() string     { return "schema identity" + lowerTokenRule }
func (nameFamily) rule() string       { return "field or enumeration name" + lowerTokenRule }
func (resourceFamily) rule() string   { return "resource identifier" + lowerTokenRule }
func (controlledFamily) rule() string { return "controlled identity" + lowerTokenRule }
func (policyFamily) rule() string     { return "policy identity" + lowerTokenRule }
func (artifactFamily) rule() string {
	return "authorization, replay or consumption identity" + lowerTokenRule
}

// The lower-token(64) identity families of Section 49.
type (
	// SnapshotID identifies a Registry Snapshot.
	SnapshotID = Token[snapshotFamily]
	// DefinitionID identifies a Tool Definition.
	DefinitionID = Token[definitionFamily]
	// SchemaID identifies a Schema.
	SchemaID = Token[schemaFamily]
	// Name is a Schema field name or enumeration case.
	Name = Token[nameFamily]
	// Resource is a protected-resource identifier.
	Resource = Token[resourceFamily]
	// ControlledID is a Phase 4 controlled identity: Context, Host Authority,
	// attestation, Proposal Assessment, Proposal, Intent, subject, tenant,
	// session, delegation, Provenance record, Influence node and collection
	// boundary, and evidence-reference identities.
	ControlledID = Token[controlledFamily]
	// PolicyID identifies a Policy Snapshot, Policy Definition, Policy Rule or Decision.
	PolicyID = Token[policyFamily]
	// ArtifactID is an Authorization, replay or Consumption identity
	// (Reference bound lower-token(64)).
	ArtifactID = Token[artifactFamily]
)

// ParseSnapshotID parses a Registry Snapshot identity.
func ParseSnapshotID(s string) (SnapshotID, error) { return parseToken[snapshotFamily](s) }

// ParseDefinitionID parses a Tool Definition identity.
func ParseDefinitionID(s string) (DefinitionID, error) { return parseToken[definitionFamily](s) }

// ParseSchemaID parses a Schema identity.
func ParseSchemaID(s string) (SchemaID, error) { return parseToken[schemaFamily](s) }

// ParseName parses a field name or enumeration case.
func ParseName(s string) (Name, error) { return parseToken[nameFamily](s) }

// ParseResource parses a Resource identifier.
func ParseResource(s string) (Resource, error) { return parseToken[resourceFamily](s) }

// ParseControlledID parses a Phase 4 controlled identity.
func ParseControlledID(s string) (ControlledID, error) { return parseToken[controlledFamily](s) }

// ParsePolicyID parses a Policy-family identity.
func ParsePolicyID(s string) (PolicyID, error) { return parseToken[policyFamily](s) }

// ParseArtifactID parses an Authorization, replay or Consumption identity.
func ParseArtifactID(s string) (ArtifactID, error) { return parseToken[artifactFamily](s) }
