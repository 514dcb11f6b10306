package serving

import (
	"cmp"
	"errors"
	"maps"
	"regexp"
	"slices"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// RevocationKind is the closed set of things a Revocation withdraws.
type RevocationKind uint8

// Revocation kinds, one per RevocationSpec target.
const (
	RevokePolicy RevocationKind = iota + 1
	RevokeRegistry
	RevokeTool
	RevokeAuthorization
	RevokeSigningKey
)

var kindNames = [...]string{
	RevokePolicy: "policySnapshot", RevokeRegistry: "toolRegistry", RevokeTool: "tool",
	RevokeAuthorization: "authorization", RevokeSigningKey: "signingKey",
}

// String returns the kind's name: the RevocationSpec member it comes from.
func (k RevocationKind) String() string {
	if k == 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// ParseRevocationKind reads a kind name; anything else rejects.
func ParseRevocationKind(s string) (RevocationKind, error) {
	for k, n := range kindNames {
		if k != 0 && n == s {
			return RevocationKind(k), nil
		}
	}
	return 0, errors.New("serving: unknown revocation kind")
}

// Revocation is one withdrawn thing: a snapshot generation (ID, Version =
// snapshot identity, generation), a tool version (tool identifier,
// version), an Authorization (ID) or a signing key (ID = key identity).
type Revocation struct {
	Kind        RevocationKind
	ID, Version string
}

var (
	lowerToken = regexp.MustCompile(v1alpha1.LowerTokenPattern)
	generation = regexp.MustCompile(v1alpha1.GenerationPattern)
	toolID     = regexp.MustCompile(v1alpha1.ToolIdentifierPattern)
	keyID      = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// RevocationOf returns the revocation a RevocationSpec names, checking it
// as the CRD schema does (a manifest loaded offline never passed the
// apiserver): exactly one target, every identifier in its grammar. Every
// violation is reported, with its path under spec.
func RevocationOf(spec v1alpha1.RevocationSpec) (Revocation, error) {
	var errs fault.Errors
	check := func(path string, re *regexp.Regexp, s string) {
		if !re.MatchString(s) {
			errs.Add("spec."+path, fault.New(fault.Malformed, "not in the identifier grammar of this member"))
		}
	}
	check("hostAuthorityRef.name", lowerToken, string(spec.HostAuthorityRef.Name))
	if spec.Reason == "" || len(spec.Reason) > 1024 {
		errs.Add("spec.reason", fault.New(fault.Malformed, "a reason of 1–1,024 characters is required"))
	}
	var out []Revocation
	if t := spec.PolicySnapshot; t != nil {
		check("policySnapshot.snapshotID", lowerToken, string(t.SnapshotID))
		check("policySnapshot.generation", generation, string(t.Generation))
		out = append(out, Revocation{RevokePolicy, string(t.SnapshotID), string(t.Generation)})
	}
	if t := spec.ToolRegistry; t != nil {
		check("toolRegistry.snapshotID", lowerToken, string(t.SnapshotID))
		check("toolRegistry.generation", generation, string(t.Generation))
		out = append(out, Revocation{RevokeRegistry, string(t.SnapshotID), string(t.Generation)})
	}
	if t := spec.Tool; t != nil {
		check("tool.toolID", toolID, string(t.ToolID))
		check("tool.version", generation, string(t.Version))
		out = append(out, Revocation{RevokeTool, string(t.ToolID), string(t.Version)})
	}
	if t := spec.Authorization; t != nil {
		check("authorization.id", lowerToken, string(t.ID))
		out = append(out, Revocation{RevokeAuthorization, string(t.ID), ""})
	}
	if t := spec.SigningKey; t != nil {
		check("signingKey.keyID", keyID, t.KeyID)
		out = append(out, Revocation{RevokeSigningKey, t.KeyID, ""})
	}
	if len(out) != 1 {
		errs.Add("spec", fault.New(fault.Malformed, "name exactly one of policySnapshot, toolRegistry, tool, authorization, signingKey"))
	}
	if err := errs.Err(); err != nil {
		return Revocation{}, err
	}
	return out[0], nil
}

// Revocations is an immutable set of revocations. It only grows: With
// returns a new set holding the old one and more. The zero value (and nil)
// is the empty set.
type Revocations struct {
	set map[Revocation]struct{}
}

// With returns the set holding rs and every revocation of s; s itself is
// unchanged (s may be nil).
func (s *Revocations) With(rs ...Revocation) *Revocations {
	out := &Revocations{set: map[Revocation]struct{}{}}
	if s != nil {
		out.set = maps.Clone(s.set)
		if out.set == nil {
			out.set = map[Revocation]struct{}{}
		}
	}
	for _, r := range rs {
		out.set[r] = struct{}{}
	}
	return out
}

// Has reports whether r is revoked.
func (s *Revocations) Has(r Revocation) bool {
	if s == nil {
		return false
	}
	_, ok := s.set[r]
	return ok
}

// Len is the number of revocations in the set.
func (s *Revocations) Len() int {
	if s == nil {
		return 0
	}
	return len(s.set)
}

// All returns the revocations in a deterministic order (kind, ID,
// version).
func (s *Revocations) All() []Revocation {
	if s == nil {
		return nil
	}
	out := slices.Collect(maps.Keys(s.set))
	slices.SortFunc(out, func(a, b Revocation) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Version, b.Version))
	})
	return out
}

// KeyIDs returns the revoked signing-key identities, sorted.
func (s *Revocations) KeyIDs() []string {
	var out []string
	for _, r := range s.All() {
		if r.Kind == RevokeSigningKey {
			out = append(out, r.ID)
		}
	}
	return out
}
