package policy

import (
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Decision is the complete, immutable Policy Decision of Section 22. It is
// deterministic controlled evidence, not permission to execute: even an
// exact allow Decision is not Authorization.
//
// Its collections are held as sets over the evaluated definition, which is
// immutable and bound by the Decision: reasons as a mask (Section 48 order
// is bit order), matched rules as positions in the definition's rules
// (identity order), the Resource scope as positions in the definition's
// scope Resources (ASCII order). Every accessor and the digest expand them
// in that order, so the content and the digest are those of the lists they
// stand for; evaluation allocates only this small Decision.
type Decision struct {
	input    facts // the exact Evaluation Input; its digest is the bound input digest
	snapshot *Snapshot
	policy   *Definition // nil when the selected policy is missing or unknown
	domain   boundary.Domain
	id       ident.PolicyID
	// The policy part of the Selection when no definition is bound (a
	// missing policy or unknown generation); otherwise it is the bound
	// definition's identity and generation, which find matched exactly.
	// The snapshot part is snapshot's (Evaluate checks it).
	selection   *policySelection
	obligations []Obligation // Section 50 order, unique

	matched      ruleSet // positions in policy.rules: ASCII order, unique
	resources    uint32  // constrained scope: bit i is policy.scopeResources[i]; empty unless non-deny
	capabilities uint32  // constrained scope; empty unless the outcome is non-deny
	reasons      uint32  // bit r for reason r
	version      vocab.Version
	outcome      vocab.Effect

	// The complete-content digest, computed on first use (Digest, Equal):
	// a Decision is complete and immutable when Evaluate returns it, and
	// its digest is a function of that content, so when it is computed
	// changes nothing but who pays for it. Reproduces compares a
	// re-evaluated Decision by content and never hashes it. A pointer (8
	// octets) rather than the digest and a sync.Once (44) keeps the
	// Decision that every evaluation allocates small; the digest is
	// allocated when first asked for. Goroutines that ask at once may
	// each compute it; the first stored is kept, and all are equal.
	digest atomic.Pointer[digest.Digest]
}

// policySelection is the policy part of a Selection.
type policySelection struct {
	id  ident.PolicyID
	gen ident.Generation
}

// ID returns the Decision identity.
func (d *Decision) ID() ident.PolicyID { return d.id }

// Version returns the Decision representation version (v1).
func (d *Decision) Version() vocab.Version { return d.version }

// Input returns the exact Evaluation Input the Decision was computed from
// (nil for the test facts of this package's tests).
func (d *Decision) Input() *evalinput.Input {
	in, _ := d.input.(*evalinput.Input)
	return in
}

// InputDigest returns the digest of the Evaluation Input, as bound.
func (d *Decision) InputDigest() digest.Digest { return d.input.Digest() }

// Snapshot returns the exact Policy Snapshot evaluated.
func (d *Decision) Snapshot() *Snapshot { return d.snapshot }

// Policy returns the selected Policy Definition; nil when the selection
// named a missing policy or unknown generation. A retired policy is bound
// (it is inspectable) but was not evaluated.
func (d *Decision) Policy() *Definition { return d.policy }

// Selection returns the requested Snapshot and Policy identities and
// generations.
func (d *Decision) Selection() Selection {
	return Selection{
		SnapshotID: d.snapshot.id, SnapshotGeneration: d.snapshot.gen,
		PolicyID: d.policySelection().id, PolicyGeneration: d.policySelection().gen,
	}
}

func (d *Decision) policySelection() policySelection {
	if d.selection != nil {
		return *d.selection
	}
	return policySelection{d.policy.id, d.policy.gen}
}

// Outcome returns deny, requireConfirmation or allow.
func (d *Decision) Outcome() vocab.Effect { return d.outcome }

// Capabilities returns a copy of the constrained Capability scope in ASCII
// order; empty for a deny.
func (d *Decision) Capabilities() []vocab.Capability { return capabilitiesOf(d.capabilities) }

// Resources returns a copy of the constrained Resource scope in ASCII order;
// empty for a deny.
func (d *Decision) Resources() []ident.Resource {
	out := make([]ident.Resource, 0, bits.OnesCount32(d.resources))
	for m := d.resources; m != 0; m &= m - 1 {
		out = append(out, d.policy.scopeResources[bits.TrailingZeros32(m)])
	}
	return out
}

// Reasons returns a copy of the reasons in Section 48 reason order.
func (d *Decision) Reasons() []vocab.Reason {
	return appendReasons(make([]vocab.Reason, 0, bits.OnesCount32(d.reasons)), d.reasons)
}

// MatchedRules returns a copy of the matched rule identities in ASCII order.
func (d *Decision) MatchedRules() []ident.PolicyID {
	out := make([]ident.PolicyID, 0, d.matched.len())
	for w, word := range d.matched {
		for ; word != 0; word &= word - 1 {
			out = append(out, d.policy.rules[w<<6|bits.TrailingZeros64(word)].id)
		}
	}
	return out
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
func (d *Decision) NumResources() int { return bits.OnesCount32(d.resources) }

// ResourceAt returns member i of the constrained Resource scope (ASCII
// order), 0 ≤ i < NumResources, without copying the scope.
func (d *Decision) ResourceAt(i int) ident.Resource {
	m := d.resources
	for range i {
		m &= m - 1
	}
	if m == 0 {
		panic("policy: Decision.ResourceAt index out of range")
	}
	return d.policy.scopeResources[bits.TrailingZeros32(m)]
}

// HasResource reports whether r is in the constrained Resource scope.
func (d *Decision) HasResource(r ident.Resource) bool {
	if d.resources == 0 {
		return false
	}
	i, ok := slices.BinarySearchFunc(d.policy.scopeResources, r, ident.Resource.Compare)
	return ok && d.resources&(1<<i) != 0
}

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
	if p := d.digest.Load(); p != nil {
		return *p
	}
	sum := d.computeDigest()
	d.digest.CompareAndSwap(nil, &sum)
	return *d.digest.Load()
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
// two in step. The sets (matched rules, Resource scope) are positions in
// the definition, so equal sets over definitions of equal digest (equal
// content) are equal lists.
func (a *Decision) sameContent(b *Decision) bool {
	return a != nil && b != nil && a.domain.Same(b.domain) &&
		a.id == b.id && a.version == b.version &&
		a.input.Digest().Equal(b.input.Digest()) &&
		a.snapshot.digest.Equal(b.snapshot.digest) &&
		a.snapshot.id == b.snapshot.id && a.snapshot.gen == b.snapshot.gen &&
		(a.policy == nil) == (b.policy == nil) && (a.policy == nil || a.policy.digest.Equal(b.policy.digest)) &&
		a.policySelection() == b.policySelection() && a.outcome == b.outcome && a.capabilities == b.capabilities &&
		a.resources == b.resources && a.reasons == b.reasons &&
		a.matched == b.matched && slices.Equal(a.obligations, b.obligations)
}

// DecisionDigestLabel names the Decision encoding computeDigest writes.
//
// Version 2 (docs/decisions.md, "The Decision digest, version 2, and shared
// required predicates") writes the same content as version 1 in fewer
// octets, for SHA-256's cost is its octets: 3 blocks rather than 7 for a
// usual allow Decision. What changed, and why each is still injective:
//
//   - Strings, counts and small numbers are Text and Varint items (a 2-octet
//     head for a short value instead of 9); both are self-delimiting.
//   - The Snapshot's identity and generation are not written again: the
//     Snapshot digest covers them, and Evaluate checks that the Selection's
//     snapshot part is exactly the Snapshot's, so they are a function of a
//     value already written.
//   - Capabilities, Resource scope and reasons are written as their masks:
//     bit c for Capability c and bit r for reason r, which are numbered in
//     Section 48 order in vocabulary v1 (the Decision version written
//     before them); bit i of the Resource scope is position i of the
//     selected definition's scope Resources, which are a function of its
//     rules, so of its digest (written before). A mask is one number, so
//     equal masks are equal sets and equal lists in that order.
//   - Matched rules are their positions in the definition's rules (rule
//     identity order), a count and then each position in increasing order:
//     given the definition digest, which covers every rule in that order,
//     positions name exactly the identities version 1 wrote.
//   - Obligations keep their keys, as Text, in Section 50 order.
//
// The policy digest (or the absence marker) always precedes the Resource
// scope and the matched positions, so two Decisions of equal digest read
// those positions in definitions of equal content.
// TestDecisionEncodingIsInjective and TestSameContentIsDigestEquality check
// this; docs/decisions.md ("The Decision digest, version 2") says what a
// version change means for artifacts in flight.
const DecisionDigestLabel = "toolgate.policy-decision/2"

// decisionOctets is the stack buffer computeDigest writes into: a usual
// Decision takes about 175 octets; a larger one (long identities, many
// matches or obligations) grows it onto the heap.
const decisionOctets = 256

func (d *Decision) computeDigest() digest.Digest {
	var buf [decisionOctets]byte
	b := digest.AppendLabel(buf[:0], DecisionDigestLabel)
	b = digest.AppendText(b, d.id.String())
	b = digest.AppendVarint(b, uint64(d.version))
	b = digest.AppendDigest(b, d.input.Digest())
	b = digest.AppendDigest(b, d.snapshot.digest)
	if d.policy == nil {
		b = digest.AppendAbsent(b)
	} else {
		b = digest.AppendDigest(b, d.policy.digest)
	}
	sel := d.policySelection()
	b = digest.AppendText(b, sel.id.String())
	b = digest.AppendVarint(b, sel.gen.Uint64())
	b = digest.AppendVarint(b, uint64(d.outcome))
	b = digest.AppendVarint(b, uint64(d.capabilities))
	b = digest.AppendVarint(b, uint64(d.resources))
	b = digest.AppendVarint(b, uint64(d.reasons))
	b = digest.AppendVarint(b, uint64(d.matched.len()))
	for w, word := range d.matched {
		for ; word != 0; word &= word - 1 {
			b = digest.AppendVarint(b, uint64(w<<6|bits.TrailingZeros64(word)))
		}
	}
	b = digest.AppendVarint(b, uint64(len(d.obligations)))
	for _, o := range d.obligations {
		b = digest.AppendText(b, o.key)
	}
	return digest.Of(b)
}
