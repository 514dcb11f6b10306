package policy

import (
	"slices"
	"sync"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Decision is the complete, immutable Policy Decision of Section 22. It is
// deterministic controlled evidence, not permission to execute: even an
// exact allow Decision is not Authorization.
type Decision struct {
	id           ident.PolicyID
	version      vocab.Version
	input        *evalinput.Input
	inputDigest  digest.Digest
	snapshot     *Snapshot
	policy       *Definition // nil when the selected policy is missing or unknown
	selection    Selection
	outcome      vocab.Effect
	capabilities uint32           // constrained scope; empty unless the outcome is non-deny
	resources    []ident.Resource // constrained scope, ASCII order
	reasons      []vocab.Reason   // Section 48 order, unique
	matched      []ident.PolicyID // ASCII order, unique
	obligations  []Obligation     // Section 50 order, unique
	domain       boundary.Domain

	// The complete-content digest, computed once, on first use (Digest,
	// Equal): a Decision is complete and immutable when Evaluate returns
	// it, and its digest is a function of that content, so when it is
	// computed changes nothing but who pays for it. Reproduces compares a
	// re-evaluated Decision by content and never hashes it.
	digestOnce sync.Once
	digest     digest.Digest

	// Inline storage for the usual small collections, so that a compiled
	// evaluation allocates the Decision and nothing else (compiled_eval.go).
	reasonBuf   [4]vocab.Reason
	matchedBuf  [4]ident.PolicyID
	resourceBuf [4]ident.Resource
}

// ID returns the Decision identity.
func (d *Decision) ID() ident.PolicyID { return d.id }

// Version returns the Decision representation version (v1).
func (d *Decision) Version() vocab.Version { return d.version }

// Input returns the exact Evaluation Input the Decision was computed from.
func (d *Decision) Input() *evalinput.Input { return d.input }

// InputDigest returns the digest of the Evaluation Input, as bound.
func (d *Decision) InputDigest() digest.Digest { return d.inputDigest }

// Snapshot returns the exact Policy Snapshot evaluated.
func (d *Decision) Snapshot() *Snapshot { return d.snapshot }

// Policy returns the selected Policy Definition; nil when the selection
// named a missing policy or unknown generation. A retired policy is bound
// (it is inspectable) but was not evaluated.
func (d *Decision) Policy() *Definition { return d.policy }

// Selection returns the requested Snapshot and Policy identities and
// generations.
func (d *Decision) Selection() Selection { return d.selection }

// Outcome returns deny, requireConfirmation or allow.
func (d *Decision) Outcome() vocab.Effect { return d.outcome }

// Capabilities returns a copy of the constrained Capability scope in ASCII
// order; empty for a deny.
func (d *Decision) Capabilities() []vocab.Capability { return capabilitiesOf(d.capabilities) }

// Resources returns a copy of the constrained Resource scope in ASCII order;
// empty for a deny.
func (d *Decision) Resources() []ident.Resource {
	if d.resources == nil {
		return []ident.Resource{}
	}
	return slices.Clone(d.resources)
}

// Reasons returns a copy of the reasons in Section 48 reason order.
func (d *Decision) Reasons() []vocab.Reason { return slices.Clone(d.reasons) }

// MatchedRules returns a copy of the matched rule identities in ASCII order.
func (d *Decision) MatchedRules() []ident.PolicyID {
	if d.matched == nil {
		return []ident.PolicyID{}
	}
	return slices.Clone(d.matched)
}

// Obligations returns a copy of the obligations in Section 50 order.
func (d *Decision) Obligations() []Obligation {
	if d.obligations == nil {
		return []Obligation{}
	}
	return slices.Clone(d.obligations)
}

// HasCapability reports whether c is in the constrained Capability scope.
func (d *Decision) HasCapability(c vocab.Capability) bool {
	return slices.Contains(allCapabilities, c) && d.capabilities&bit(c) != 0
}

// NumCapabilities returns the size of the constrained Capability scope.
func (d *Decision) NumCapabilities() int {
	n := 0
	for _, c := range allCapabilities {
		if d.capabilities&bit(c) != 0 {
			n++
		}
	}
	return n
}

// NumResources returns the size of the constrained Resource scope.
func (d *Decision) NumResources() int { return len(d.resources) }

// ResourceAt returns member i of the constrained Resource scope (ASCII
// order), 0 ≤ i < NumResources, without copying the scope.
func (d *Decision) ResourceAt(i int) ident.Resource { return d.resources[i] }

// HasResource reports whether r is in the constrained Resource scope.
func (d *Decision) HasResource(r ident.Resource) bool { return containsResource(d.resources, r) }

// NumObligations returns the number of obligations.
func (d *Decision) NumObligations() int { return len(d.obligations) }

// ObligationAt returns obligation i (Section 50 order), 0 ≤ i <
// NumObligations, without copying the others.
func (d *Decision) ObligationAt(i int) Obligation { return d.obligations[i] }

// Domain returns the Host authority domain of the Decision.
func (d *Decision) Domain() boundary.Domain { return d.domain }

// Digest returns the digest over the complete Decision content: identity,
// version, input digest, snapshot digest, selected definition digest (or its
// absence), selection, outcome, scope, reasons, matched rules and
// obligations.
func (d *Decision) Digest() digest.Digest {
	d.digestOnce.Do(func() { d.digest = d.computeDigest() })
	return d.digest
}

// Equal reports complete Decision equality: the same Host domain and
// the same complete content. Equal outcomes, or equal scopes with different
// reasons, matches or obligations, are not equal Decisions.
func (a *Decision) Equal(b *Decision) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) && a.Digest().Equal(b.Digest())
}

// sameContent reports what Equal reports, by comparing every value the
// digest covers (computeDigest below) directly: a Decision built only to be
// compared need not be hashed. TestSameContentIsDigestEquality keeps the
// two in step.
func (a *Decision) sameContent(b *Decision) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) &&
		a.id == b.id && a.version == b.version &&
		a.inputDigest.Equal(b.inputDigest) &&
		a.snapshot.digest.Equal(b.snapshot.digest) &&
		(a.policy == nil) == (b.policy == nil) && (a.policy == nil || a.policy.digest.Equal(b.policy.digest)) &&
		a.selection == b.selection && a.outcome == b.outcome && a.capabilities == b.capabilities &&
		slices.Equal(a.resources, b.resources) && slices.Equal(a.reasons, b.reasons) &&
		slices.Equal(a.matched, b.matched) && slices.Equal(a.obligations, b.obligations)
}

func (d *Decision) computeDigest() digest.Digest {
	b := digest.New("toolgate.policy-decision/1")
	b.String(d.id.String())
	b.Uint(uint64(d.version))
	b.Digest(d.inputDigest)
	b.Digest(d.snapshot.digest)
	if d.policy == nil {
		b.Absent()
	} else {
		b.Digest(d.policy.digest)
	}
	b.String(d.selection.SnapshotID.String())
	b.Uint(d.selection.SnapshotGeneration.Uint64())
	b.String(d.selection.PolicyID.String())
	b.Uint(d.selection.PolicyGeneration.Uint64())
	b.Uint(uint64(d.outcome))
	writeCapabilities(b, d.capabilities)
	writeResources(b, d.resources)
	b.Count(len(d.reasons))
	for _, r := range d.reasons {
		b.Uint(uint64(r))
	}
	b.Count(len(d.matched))
	for _, m := range d.matched {
		b.String(m.String())
	}
	writeObligations(b, d.obligations)
	return b.Sum()
}
