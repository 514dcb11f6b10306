package policy_test

import (
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// mixedLeaf returns distinct predicate i, cycling through four identifier
// predicate kinds that never match baseFacts.
func mixedLeaf(i int) policy.ConditionDraft {
	s := strconv.Itoa(i)
	switch i % 4 {
	case 0:
		return toolIs("t.k" + s)
	case 1:
		return p("exactSubject", withID("s"+s))
	case 2:
		return p("exactTenant", withID("t"+s))
	default:
		return p("exactInfluenceBoundary", withID("b"+s))
	}
}

// bigCondition returns a condition of exactly n nodes (n = 1 + 7k + m,
// m < 7): an all over any nodes of six mixed leaves, topped up with leaves.
func bigCondition(n int) policy.ConditionDraft {
	var children []policy.ConditionDraft
	next, used := 0, 1
	for used+7 <= n && len(children) < 9 {
		leaves := make([]policy.ConditionDraft, 6)
		for j := range leaves {
			leaves[j] = mixedLeaf(next)
			next++
		}
		children = append(children, anyOf(leaves...))
		used += 7
	}
	for ; used < n; used++ {
		children = append(children, mixedLeaf(next))
		next++
	}
	return allOf(children...)
}

// maximalDraft is the largest snapshot Section 39 admits with the selected
// policy as large as possible: 512 rules and 8,192 nodes in total. Four
// policies of 128 rules: the selected "payments" has 128 rules of 61 nodes
// (7,808), the other three 384 one-node rules. (A selected policy of 128 x 64
// = 8,192 nodes leaves no node for any other rule, so 512 rules and a
// 128 x 64 policy cannot coexist; maximalPolicyDraft covers that shape.)
func maximalDraft() policy.SnapshotDraft {
	d := policy.SnapshotDraft{ID: "snap", Generation: "1"}
	for i, id := range []string{"payments", "p1", "p2", "p3"} {
		def := policy.DefinitionDraft{ID: id, Generation: "1", Lifecycle: "active"}
		for j := range 128 {
			c := matches
			if i == 0 {
				c = bigCondition(61)
			}
			def.Rules = append(def.Rules, maximalRule(j, c))
		}
		d.Policies = append(d.Policies, def)
	}
	return d
}

// maximalPolicyDraft is one policy of 128 rules x 64 nodes (8,192 nodes).
func maximalPolicyDraft() policy.SnapshotDraft {
	def := policy.DefinitionDraft{ID: "payments", Generation: "1", Lifecycle: "active"}
	for j := range 128 {
		def.Rules = append(def.Rules, maximalRule(j, bigCondition(64)))
	}
	return policy.SnapshotDraft{ID: "snap", Generation: "1", Policies: []policy.DefinitionDraft{def}}
}

// maximalRule alternates allow rules (with a scope and eight obligations)
// and deny rules.
func maximalRule(j int, c policy.ConditionDraft) policy.RuleDraft {
	id := "rule-" + strconv.Itoa(j)
	if j%2 == 1 {
		return deny(id, c)
	}
	r := scoped(allow(id, c), []string{"financial.transfer", "data.read"}, hostResources())
	r.Obligations = ageObligations(j*8+1, 8)
	return r
}

// digestedFacts carries its digest, Summary and requested-Resource hashes
// computed once, as an engine-built Evaluation Input does (the test facts
// type computes them per call).
type digestedFacts struct {
	*facts
	d      digest.Digest
	sum    evalinput.SummaryView
	hashes []uint64
}

func (f digestedFacts) Digest() digest.Digest                { return f.d }
func (f digestedFacts) Summary() evalinput.SummaryView       { return f.sum }
func (f digestedFacts) RequestedResourceHashAt(i int) uint64 { return f.hashes[i] }

func digested(f *facts) digestedFacts {
	out := digestedFacts{facts: f, d: f.Digest(), sum: f.Summary()}
	for i := range f.NumRequestedResources() {
		out.hashes = append(out.hashes, f.RequestedResourceHashAt(i))
	}
	return out
}

func BenchmarkEvaluate(b *testing.B) {
	for name, draft := range map[string]func() policy.SnapshotDraft{
		"realistic":      realisticDraft,
		"maximal":        maximalDraft,
		"maximal-policy": maximalPolicyDraft,
	} {
		b.Run(name, func(b *testing.B) {
			e := newEnv(b)
			s := e.publish(b, draft())
			var in policy.Facts = digested(baseFacts(e.b))
			sel := selection(s, "payments", 1)
			b.ReportAllocs()
			for b.Loop() {
				d, err := policy.EvaluateFacts(in, s, sel, "decision-1")
				if err != nil || (name == "realistic" && d.Outcome() != vocab.Allow) {
					b.Fatalf("Evaluate: %v", err)
				}
			}
		})
	}
	// The Decision digest is computed on first use; this is the realistic
	// evaluation with it, as issuance or a Decision comparison pays for it.
	b.Run("realistic+digest", func(b *testing.B) {
		e := newEnv(b)
		s := e.publish(b, realisticDraft())
		var in policy.Facts = digested(baseFacts(e.b))
		sel := selection(s, "payments", 1)
		b.ReportAllocs()
		for b.Loop() {
			d, err := policy.EvaluateFacts(in, s, sel, "decision-1")
			if err != nil || d.Outcome() != vocab.Allow {
				b.Fatalf("Evaluate: %v", err)
			}
			_ = d.Digest()
		}
	})
}

func BenchmarkPublish(b *testing.B) {
	for name, draft := range map[string]func() policy.SnapshotDraft{
		"realistic": realisticDraft,
		"maximal":   maximalDraft,
	} {
		b.Run(name, func(b *testing.B) {
			e := newEnv(b)
			d := draft()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := policy.Publish(e.admin, d); err != nil {
					b.Fatalf("Publish: %v", err)
				}
			}
		})
	}
}

// TestMaximalFixtures pins the benchmark fixtures to the Section 39 bounds.
func TestMaximalFixtures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	count := func(c *policy.Condition) int {
		var walk func(*policy.Condition) int
		walk = func(c *policy.Condition) int {
			n := 1
			for i := range c.Len() {
				n += walk(c.Child(i))
			}
			return n
		}
		return walk(c)
	}
	for name, tc := range map[string]struct {
		draft                     policy.SnapshotDraft
		wantRules, wantNodes      int
		wantSelected, wantPerRule int
	}{
		"maximal":        {maximalDraft(), 512, 8192, 128, 61},
		"maximal-policy": {maximalPolicyDraft(), 128, 8192, 128, 64},
	} {
		s := e.publish(t, tc.draft)
		rules, nodes := 0, 0
		for i := range s.Len() {
			def := s.Policy(i)
			rules += def.Len()
			for j := range def.Len() {
				nodes += count(def.Rule(j).Condition())
			}
		}
		sel, err := s.Lookup(pid("payments"), gen(1))
		if err != nil {
			t.Fatal(err)
		}
		if rules != tc.wantRules || nodes != tc.wantNodes || sel.Len() != tc.wantSelected || count(sel.Rule(0).Condition()) != tc.wantPerRule {
			t.Errorf("%s: %d rules, %d nodes, selected %d rules of %d nodes", name, rules, nodes, sel.Len(), count(sel.Rule(0).Condition()))
		}
	}
}
