package policy

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Snapshot is one immutable, exactly versioned Policy Snapshot bound to one
// Host authority domain and to the Role Authority that published it.
type Snapshot struct {
	id        ident.PolicyID
	gen       ident.Generation
	domain    boundary.Domain
	publisher *authority.RoleAuthority
	defs      []*Definition // Section 50: id ASCII order, then generation numeric order
	digest    digest.Digest
}

// ID returns the Snapshot identity.
func (s *Snapshot) ID() ident.PolicyID { return s.id }

// Generation returns the Snapshot generation.
func (s *Snapshot) Generation() ident.Generation { return s.gen }

// Domain returns the Host authority domain the Snapshot is bound to.
func (s *Snapshot) Domain() boundary.Domain { return s.domain }

// Publisher returns the identity of the policy-administration Role
// Authority that published the Snapshot.
func (s *Snapshot) Publisher() authority.Issuer { return s.publisher.Identity() }

// Digest returns the digest of the complete Snapshot content, including the
// publisher's identity and Role Authority digest.
func (s *Snapshot) Digest() digest.Digest { return s.digest }

// Len returns the number of Policy Definitions, retired ones included.
func (s *Snapshot) Len() int { return len(s.defs) }

// Policy returns Policy Definition i in Section 50 order. Retired
// definitions remain inspectable here.
func (s *Snapshot) Policy(i int) *Definition { return s.defs[i] }

// Equal reports complete equality: the same Host domain and the
// same complete content. Identity and generation equality alone is never
// enough.
func (a *Snapshot) Equal(b *Snapshot) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) && a.digest.Equal(b.digest)
}

// Lookup selects exactly one Policy Definition by identity and generation.
// There is no latest or compatible fallback: an unknown identity or
// generation rejects with fault.NotFound and a retired definition with
// fault.Ineligible. Active and deprecated definitions resolve.
func (s *Snapshot) Lookup(id ident.PolicyID, gen ident.Generation) (*Definition, error) {
	d, idFound := s.find(id, gen)
	switch {
	case !idFound:
		return nil, fault.New(fault.NotFound, "no policy with this identity in the selected snapshot")
	case d == nil:
		return nil, fault.New(fault.NotFound, "no policy with this identity and generation in the selected snapshot")
	case d.lifecycle == vocab.PolicyRetired:
		return nil, fault.New(fault.Ineligible, "retired policies are not eligible for lookup or evaluation")
	}
	return d, nil
}

// find returns the definition (id, gen), and whether any generation of id
// exists.
func (s *Snapshot) find(id ident.PolicyID, gen ident.Generation) (*Definition, bool) {
	if len(s.defs) <= 8 {
		// A few definitions: compare for equality, cheaper than the
		// ordered comparisons of a binary search (same result: the
		// definitions are sorted by identity, then generation).
		idFound := false
		for _, d := range s.defs {
			if d.id == id {
				idFound = true
				if d.gen == gen {
					return d, true
				}
			}
		}
		return nil, idFound
	}
	lo, idFound := slices.BinarySearchFunc(s.defs, id, func(d *Definition, id ident.PolicyID) int { return d.id.Compare(id) })
	if !idFound {
		return nil, false
	}
	for _, d := range s.defs[lo:] {
		if d.id != id {
			break
		}
		if d.gen == gen {
			return d, true
		}
	}
	return nil, true
}

func compareDefinitions(a, b *Definition) int {
	if c := a.id.Compare(b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.gen.Uint64(), b.gen.Uint64())
}

func (s *Snapshot) computeDigest() digest.Digest {
	b := digest.New("toolgate.policy-snapshot/1")
	b.String(s.id.String())
	b.Uint(s.gen.Uint64())
	b.String(s.publisher.Issuer().String())
	b.Digest(s.publisher.Digest())
	b.Count(len(s.defs))
	for _, d := range s.defs {
		b.Digest(d.digest)
	}
	return b.Sum()
}

// Definition is one immutable Policy Definition version.
type Definition struct {
	id          ident.PolicyID
	gen         ident.Generation
	lifecycle   vocab.PolicyLifecycle
	rules       []*Rule // rule identity ASCII order
	nodes       int
	rulesDigest digest.Digest // the complete rule content, without the lifecycle
	digest      digest.Digest
	compiled    *compiled        // evaluation form built at publication (compile.go); nil: reference evaluator
	arguments   *argumentBinding // the argument-predicate opt-in; nil: a Phase 1–6 definition

	// Every Resource of a non-deny rule's scope constraint, ASCII order,
	// unique: a Decision's Resource scope is a set of positions in it. All
	// lie within the publisher's Host ceiling (at most 16 Resources).
	scopeResources []ident.Resource
}

// ID returns the Policy identity.
func (d *Definition) ID() ident.PolicyID { return d.id }

// Generation returns the Policy generation.
func (d *Definition) Generation() ident.Generation { return d.gen }

// Lifecycle returns the lifecycle.
func (d *Definition) Lifecycle() vocab.PolicyLifecycle { return d.lifecycle }

// Len returns the number of rules.
func (d *Definition) Len() int { return len(d.rules) }

// Rule returns rule i in rule-identity order.
func (d *Definition) Rule(i int) *Rule { return d.rules[i] }

// Digest returns the digest of the complete definition: identity,
// generation, lifecycle and every rule.
func (d *Definition) Digest() digest.Digest { return d.digest }

func (d *Definition) computeDigests() {
	b := digest.New("toolgate.policy-rules/1")
	b.Count(len(d.rules))
	for _, r := range d.rules {
		b.Digest(r.digest)
	}
	// The opt-in is rule content (a successor cannot change it in a
	// retained version); written only when present, so a Phase 1–6
	// definition's digests are exactly what they were.
	if a := d.arguments; a != nil {
		b.String(argpred.Vocabulary)
		b.String(a.registry.String())
		b.Uint(a.generation.Uint64())
		b.Digest(a.digest)
	}
	d.rulesDigest = b.Sum()
	b = digest.New("toolgate.policy-definition/1")
	b.String(d.id.String())
	b.Uint(d.gen.Uint64())
	b.Uint(uint64(d.lifecycle))
	b.Digest(d.rulesDigest)
	d.digest = b.Sum()
}

// argumentBinding is a definition's argument-predicate opt-in: the exact
// Registry Snapshot its predicates were checked against.
type argumentBinding struct {
	registry   ident.SnapshotID
	generation ident.Generation
	digest     digest.Digest
}

// ArgumentVocabulary returns the argument-predicate vocabulary the
// definition opted in to, and its bound Registry Snapshot identity and
// generation; ok is false for a Phase 1–6 definition.
func (d *Definition) ArgumentVocabulary() (vocabulary string, registryID ident.SnapshotID, registryGeneration ident.Generation, ok bool) {
	if d.arguments == nil {
		return "", ident.SnapshotID{}, ident.Generation{}, false
	}
	return argpred.Vocabulary, d.arguments.registry, d.arguments.generation, true
}

// Rule is one immutable Policy Rule.
type Rule struct {
	id           ident.PolicyID
	effect       vocab.Effect
	reason       vocab.Reason
	condition    *Condition
	scoped       bool
	capabilities uint32           // constraint, bit 1<<Capability
	resources    []ident.Resource // constraint, ASCII order
	obligations  []Obligation     // Section 50 key order
	digest       digest.Digest
}

// ID returns the rule identity.
func (r *Rule) ID() ident.PolicyID { return r.id }

// Effect returns the rule effect.
func (r *Rule) Effect() vocab.Effect { return r.effect }

// Reason returns the rule's stable reason.
func (r *Rule) Reason() vocab.Reason { return r.reason }

// Condition returns the normalized condition tree.
func (r *Rule) Condition() *Condition { return r.condition }

// HasScope reports whether the rule carries a scope constraint (every
// non-deny rule does; no deny rule does).
func (r *Rule) HasScope() bool { return r.scoped }

// Capabilities returns a copy of the Capability constraint in ASCII order.
func (r *Rule) Capabilities() []vocab.Capability { return capabilitiesOf(r.capabilities) }

// Resources returns a copy of the Resource constraint in ASCII order.
func (r *Rule) Resources() []ident.Resource { return slices.Clone(r.resources) }

// Obligations returns a copy of the rule's obligations in Section 50 order.
func (r *Rule) Obligations() []Obligation { return slices.Clone(r.obligations) }

// Digest returns the digest of the complete rule content.
func (r *Rule) Digest() digest.Digest { return r.digest }

func (r *Rule) computeDigest() {
	b := digest.New("toolgate.policy-rule/1")
	b.String(r.id.String())
	b.Uint(uint64(r.effect))
	b.Uint(uint64(r.reason))
	b.String(r.condition.key)
	b.Bool(r.scoped)
	writeCapabilities(b, r.capabilities)
	writeResources(b, r.resources)
	writeObligations(b, r.obligations)
	r.digest = b.Sum()
}

// capabilitiesOf expands a Capability mask in ASCII (= Section 48) order.
func capabilitiesOf(m uint32) []vocab.Capability {
	out := []vocab.Capability{}
	for _, c := range allCapabilities {
		if m&bit(c) != 0 {
			out = append(out, c)
		}
	}
	return out
}

func writeCapabilities(b *digest.Builder, m uint32) {
	n := 0
	for _, c := range allCapabilities {
		if m&bit(c) != 0 {
			n++
		}
	}
	b.Count(n)
	for _, c := range allCapabilities { // ASCII (= Section 48) order, as capabilitiesOf
		if m&bit(c) != 0 {
			b.String(c.String())
		}
	}
}

func writeResources(b *digest.Builder, rs []ident.Resource) {
	b.Count(len(rs))
	for _, r := range rs {
		b.String(r.String())
	}
}

func writeObligations(b *digest.Builder, os []Obligation) {
	b.Count(len(os))
	for _, o := range os {
		b.String(o.key)
	}
}
