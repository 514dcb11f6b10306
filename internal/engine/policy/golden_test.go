package policy_test

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// decisionDigestsGolden is the digest over the version 1 digests of the
// Decisions goldenDecisions evaluates, computed with the Decision of main
// at 023457c (reasons, matched rules and scope held as lists, the digest
// "toolgate.policy-decision/1"): a change of the Decision's representation
// must not change its content. Version 2 writes the same content in other
// octets; decisionV1Digest writes version 1 from the accessors, so the pin
// still holds every Decision's content to that of 023457c.
const decisionDigestsGolden = "sha256:45fd723d86a7afcb41a551c64ad0ef5a4715d441c7cfaae551c9da082d71cf3d"

// goldenDecisions evaluates the differential test's first 300 published
// seeded policies on 10 seeded inputs each, plus a missing policy and an
// unknown generation: 9,000 Decisions, in a fixed order.
func goldenDecisions(t *testing.T) []*policy.Decision {
	t.Helper()
	e := newEnv(t)
	var out []*policy.Decision
	n := 0
	for seed := uint64(0); n < 300; seed++ {
		g := diffGen{r: rand.New(rand.NewPCG(seed, 0x70_6f_6c_69_63_79))}
		s, err := policy.Publish(e.admin, g.draft())
		if err != nil {
			continue
		}
		n++
		base := baseFacts(e.b)
		sels := []policy.Selection{selection(s, "p", 1),
			{SnapshotID: s.ID(), SnapshotGeneration: s.Generation(), PolicyID: pid("p"), PolicyGeneration: gen(9)},
			{SnapshotID: s.ID(), SnapshotGeneration: s.Generation(), PolicyID: pid("zz-missing"), PolicyGeneration: gen(1)}}
		for i := range 10 {
			in := g.facts(base)
			for _, sel := range sels {
				d, err := policy.EvaluateFacts(in, s, sel, "decision-1")
				if err != nil {
					t.Fatalf("seed %d input %d: %v", seed, i, err)
				}
				out = append(out, d)
			}
		}
	}
	return out
}

// decisionV1Digest is the version 1 Decision digest, written from the
// Decision's accessors as main at 023457c wrote it from its lists.
func decisionV1Digest(d *policy.Decision) digest.Digest {
	b := digest.New("toolgate.policy-decision/1")
	b.String(d.ID().String())
	b.Uint(uint64(d.Version()))
	b.Digest(d.InputDigest())
	b.Digest(d.Snapshot().Digest())
	if d.Policy() == nil {
		b.Absent()
	} else {
		b.Digest(d.Policy().Digest())
	}
	sel := d.Selection()
	b.String(sel.SnapshotID.String())
	b.Uint(sel.SnapshotGeneration.Uint64())
	b.String(sel.PolicyID.String())
	b.Uint(sel.PolicyGeneration.Uint64())
	b.Uint(uint64(d.Outcome()))
	digest.Strings(b, d.Capabilities())
	digest.Strings(b, d.Resources())
	b.Count(len(d.Reasons()))
	for _, r := range d.Reasons() {
		b.Uint(uint64(r))
	}
	digest.Strings(b, d.MatchedRules())
	b.Count(len(d.Obligations()))
	for _, o := range d.Obligations() {
		b.String(o.Key())
	}
	return b.Sum()
}

// TestDecisionDigestsUnchanged pins the content of every golden Decision,
// through its version 1 digest, to that of 023457c.
func TestDecisionDigestsUnchanged(t *testing.T) {
	t.Parallel()
	b := digest.New("policy-test.decision-digests/1")
	for _, d := range goldenDecisions(t) {
		b.Digest(decisionV1Digest(d))
	}
	if got := b.Sum().String(); got != decisionDigestsGolden {
		t.Errorf("the Decisions' content changed: %s, want %s", got, decisionDigestsGolden)
	}
}

// decisionV2Octets writes the version 2 encoding as its documentation
// (DecisionDigestLabel) says, octet by octet, from the accessors: the
// matched rules as positions of their identities in the definition, the
// Resource scope as positions in its scope Resources, Capabilities and
// reasons as masks of their Section 48 numbers.
func decisionV2Octets(t *testing.T, d *policy.Decision) []byte {
	t.Helper()
	item := func(out []byte, tag byte, v uint64) []byte { return binary.AppendUvarint(append(out, tag), v) }
	text := func(out []byte, s string) []byte { return append(item(out, 8, uint64(len(s))), s...) }
	nested := func(out []byte, x digest.Digest) []byte { return append(append(out, 3), x[:]...) }
	out := append(binary.BigEndian.AppendUint64([]byte{1}, uint64(len(policy.DecisionDigestLabel))), policy.DecisionDigestLabel...)
	out = text(out, d.ID().String())
	out = item(out, 7, uint64(d.Version()))
	out = nested(out, d.InputDigest())
	out = nested(out, d.Snapshot().Digest())
	if d.Policy() == nil {
		out = append(out, 6)
	} else {
		out = nested(out, d.Policy().Digest())
	}
	sel := d.Selection()
	out = text(out, sel.PolicyID.String())
	out = item(out, 7, sel.PolicyGeneration.Uint64())
	out = item(out, 7, uint64(d.Outcome()))
	var caps, res, reasons uint64
	for _, c := range d.Capabilities() {
		caps |= 1 << c
	}
	for _, r := range d.Resources() {
		i := slices.IndexFunc(policy.ScopeResources(d.Policy()), func(x ident.Resource) bool { return x == r })
		if i < 0 {
			t.Fatalf("scope Resource %s is not a scope Resource of the definition", r)
		}
		res |= 1 << i
	}
	for _, r := range d.Reasons() {
		reasons |= 1 << r
	}
	out = item(out, 7, caps)
	out = item(out, 7, res)
	out = item(out, 7, reasons)
	matched := d.MatchedRules()
	out = item(out, 7, uint64(len(matched)))
	for _, id := range matched {
		i := slices.IndexFunc(definitionRules(d.Policy()), func(r *policy.Rule) bool { return r.ID() == id })
		if i < 0 {
			t.Fatalf("matched rule %s is not a rule of the definition", id)
		}
		out = item(out, 7, uint64(i))
	}
	out = item(out, 7, uint64(len(d.Obligations())))
	for _, o := range d.Obligations() {
		out = text(out, o.Key())
	}
	return out
}

func definitionRules(def *policy.Definition) []*policy.Rule {
	var out []*policy.Rule
	for i := range def.Len() {
		out = append(out, def.Rule(i))
	}
	return out
}

// TestDecisionEncodingIsInjective shows, over the golden Decisions, that
// the version 2 digest is the documented encoding and distinguishes
// exactly the Decisions that version 1 distinguishes: two Decisions have
// equal version 2 digests if and only if they have equal version 1
// digests (equal content). The argument for every input, not only these,
// is DecisionDigestLabel's comment.
func TestDecisionEncodingIsInjective(t *testing.T) {
	t.Parallel()
	v1ByV2 := map[digest.Digest]digest.Digest{}
	v2ByV1 := map[digest.Digest]digest.Digest{}
	outcomes := map[vocab.Effect]int{}
	withMatches, withScope, maxOctets := 0, 0, 0
	for i, d := range goldenDecisions(t) {
		octets := decisionV2Octets(t, d)
		v2, v1 := d.Digest(), decisionV1Digest(d)
		if want := digest.Digest(sha256.Sum256(octets)); v2 != want {
			t.Fatalf("decision %d: digest %s is not SHA-256 of the documented version 2 octets (%s)", i, v2, want)
		}
		if prev, ok := v1ByV2[v2]; ok && prev != v1 {
			t.Fatalf("decision %d: two Decisions of different content share the version 2 digest %s", i, v2)
		}
		if prev, ok := v2ByV1[v1]; ok && prev != v2 {
			t.Fatalf("decision %d: two Decisions of the same content have different version 2 digests", i)
		}
		v1ByV2[v2], v2ByV1[v1] = v1, v2
		outcomes[d.Outcome()]++
		if len(d.MatchedRules()) > 1 {
			withMatches++
		}
		if d.NumResources() > 0 {
			withScope++
		}
		maxOctets = max(maxOctets, len(octets))
	}
	// The sample must exercise what the argument is about.
	if len(v1ByV2) < 1000 || outcomes[vocab.Allow] == 0 || outcomes[vocab.RequireConfirmation] == 0 || withMatches == 0 || withScope == 0 {
		t.Fatalf("the golden Decisions do not exercise the encoding: %d distinct, outcomes %v, %d with several matches, %d with a scope",
			len(v1ByV2), outcomes, withMatches, withScope)
	}
	t.Logf("%d distinct Decisions, at most %d octets", len(v1ByV2), maxOctets)
}
