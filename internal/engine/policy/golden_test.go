package policy_test

import (
	"math/rand/v2"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/policy"
)

// decisionDigestsGolden is the digest over the digests of the Decisions
// TestDecisionDigestsUnchanged evaluates, computed with the Decision of
// main at 023457c (reasons, matched rules and scope held as lists): a
// change of the Decision's representation must not change one octet of
// any digest.
const decisionDigestsGolden = "sha256:45fd723d86a7afcb41a551c64ad0ef5a4715d441c7cfaae551c9da082d71cf3d"

// TestDecisionDigestsUnchanged evaluates the differential test's first
// 300 published seeded policies on 10 seeded inputs each, plus a missing
// policy and an unknown generation, and pins the digests of all their
// Decisions.
func TestDecisionDigestsUnchanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := digest.New("policy-test.decision-digests/1")
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
				b.Digest(d.Digest())
			}
		}
	}
	if got := b.Sum().String(); got != decisionDigestsGolden {
		t.Errorf("the Decisions' digests changed: %s, want %s", got, decisionDigestsGolden)
	}
}
