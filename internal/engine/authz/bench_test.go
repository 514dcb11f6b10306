package authz_test

// BenchmarkPipeline measures the complete Phase 1–6 structural path for one
// model Proposal: raw Proposal JSON → Proposal Assessment → Canonical
// Request → Provenance and Influence → Evaluation Input → Policy Decision →
// Authorization → Validation.
//
// Everything that depends on the Proposal happens inside the loop. Only
// Host configuration that exists before any Proposal arrives is built
// outside it: the Registry Snapshot, the Host Authority and its Role
// Authorities, the Security Context, a bounded-tool Intent (it names the
// tool, not one request, so it can precede the Proposal) and the published
// Policy Snapshot.
//
//	go test -run '^$' -bench BenchmarkPipeline -benchmem ./internal/engine/authz/

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/testutil/pipelinefixture"
)

// newPipeline is the payments fixture of base as a pipelinefixture.Pipeline with
// snapshot published and its policy "tools" v1 selected.
func newPipeline(tb testing.TB, snapshot policy.SnapshotDraft) *pipelinefixture.Pipeline {
	tb.Helper()
	s := base(boundary.New("benchmark host"))
	return pipelinefixture.New(tb, s.B, s.InputSpec, snapshot, "tools", "1")
}

func BenchmarkPipeline(b *testing.B) {
	for name, snapshot := range map[string]func() policy.SnapshotDraft{
		"realistic": func() policy.SnapshotDraft { return realisticPolicy(singleUse(), maxAge(defaultMaxAge)) },
		"maximal":   maximalPolicy,
	} {
		b.Run(name, func(b *testing.B) {
			p := newPipeline(b, snapshot())
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Shape of the maximal Policy Snapshot: every Section 39 snapshot limit is
// reached (512 rules, 8,192 condition nodes). The selected policy has the
// maximum 128 rules; the other 384 rules need at least one node each, which
// leaves 7,808 nodes, so each selected rule has 61 nodes (a 128 × 64 node
// selected policy alone would already use all 8,192 nodes).
const (
	maximalPolicies    = policy.MaxRules / policy.MaxRulesPerPolicy // 4
	maximalRuleNodes   = (policy.MaxNodes - (policy.MaxRules - policy.MaxRulesPerPolicy)) / policy.MaxRulesPerPolicy
	maximalAnyNodes    = 4
	maximalAnyChildren = (maximalRuleNodes - 1 - maximalAnyNodes) / maximalAnyNodes // 14
)

// maximalPolicy is snapshot "payments-policy" v1 holding the selected
// policy "tools" v1 — 127 deny rules that do not match and one allow rule
// that does, each an all over four any nodes of 14 distinct predicates (61
// nodes, depth 3; every node is evaluated) — and three more policies of 128
// one-node rules.
func maximalPolicy() policy.SnapshotDraft {
	matching := []policy.ConditionDraft{
		is("exactToolID", "payments.submit"),
		is("exactTenant", "acme"),
		valuesAre("assuranceIsOneOf", "multiFactor"),
		valuesAre("requestedCapabilitiesSubsetOf", "data.read", "financial.transfer"),
	}
	rules := make([]policy.RuleDraft, 0, policy.MaxRulesPerPolicy)
	for r := range policy.MaxRulesPerPolicy {
		anys := make([]policy.ConditionDraft, maximalAnyNodes)
		for i := range anys {
			children := make([]policy.ConditionDraft, maximalAnyChildren)
			for j := range children {
				children[j] = missPredicate(r, i, j)
			}
			if r == 0 {
				children[0] = matching[i]
			}
			anys[i] = anyOf(children...)
		}
		if r == 0 {
			rule := allowPayments(singleUse(), maxAge(defaultMaxAge))
			rule.Condition = allOf(anys...)
			rules = append(rules, rule)
			continue
		}
		rules = append(rules, denyRule(fmt.Sprintf("deny-%03d", r), "denyRuleMatched", allOf(anys...)))
	}
	d := policyWith(rules...)
	for p := 1; p < maximalPolicies; p++ {
		other := make([]policy.RuleDraft, policy.MaxRulesPerPolicy)
		for r := range other {
			other[r] = denyRule(fmt.Sprintf("deny-%03d", r), "denyRuleMatched", is("exactSubject", fmt.Sprintf("blocked-%d-%03d", p, r)))
		}
		d.Policies = append(d.Policies, policy.DefinitionDraft{
			ID: fmt.Sprintf("archive-%d", p), Generation: "1", Lifecycle: "active", Rules: other,
		})
	}
	return d
}

// missPredicate is a predicate that does not match (and is never
// indeterminate for) the benchmark input, distinct for every (rule, any
// node, child); the predicate kinds rotate.
func missPredicate(r, i, j int) policy.ConditionDraft {
	n := strconv.Itoa(r*1000 + i*100 + j)
	switch j % 7 {
	case 0:
		return is("exactSubject", "subject-"+n)
	case 1:
		return is("exactTenant", "tenant-"+n)
	case 2:
		return is("exactToolID", "tool.t"+n)
	case 3:
		return pred(policy.PredicateDraft{Name: "maximumIntentAge", Seconds: strconv.Itoa(j)})
	case 4:
		return pred(policy.PredicateDraft{
			Name: "evaluationTimeWithin", Window: &policy.WindowDraft{IssuedAt: "0", NotBefore: "0", ExpiresAt: strconv.Itoa(100 + j)},
		})
	case 5:
		return pred(policy.PredicateDraft{Name: "renewalGenerationIs", Generation: strconv.Itoa(100 + j)})
	default:
		return is("exactSession", "session-"+n)
	}
}

// TestPipeline checks what the benchmark measures: both snapshots publish,
// the maximal one at exactly the Section 39 limits, and one pipeline run
// issues and validates.
func TestPipeline(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		snapshot                          func() policy.SnapshotDraft
		rules, nodes, selectedRuleNodes   int
		selectedRules, selectedRuleMaxDep int
	}{
		"realistic": {
			snapshot: func() policy.SnapshotDraft { return realisticPolicy(singleUse(), maxAge(defaultMaxAge)) },
			rules:    20, selectedRules: 20,
		},
		"maximal": {
			snapshot: maximalPolicy,
			rules:    policy.MaxRules, nodes: policy.MaxNodes, selectedRules: policy.MaxRulesPerPolicy,
			selectedRuleNodes: 61, selectedRuleMaxDep: 3,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newPipeline(t, tc.snapshot())
			rules, nodes := 0, 0
			for i := range p.Policy.Len() {
				def := p.Policy.Policy(i)
				rules += def.Len()
				for r := range def.Len() {
					n, depth := countNodes(def.Rule(r).Condition())
					nodes += n
					if def.ID().String() == "tools" && tc.selectedRuleNodes != 0 && (n != tc.selectedRuleNodes || depth != tc.selectedRuleMaxDep) {
						t.Errorf("selected rule %s has %d nodes, depth %d", def.Rule(r).ID(), n, depth)
					}
				}
			}
			sel, err := p.Policy.Lookup(p.Selection.PolicyID, p.Selection.PolicyGeneration)
			if err != nil {
				t.Fatalf("Lookup: %v", err)
			}
			if rules != tc.rules || sel.Len() != tc.selectedRules || (tc.nodes != 0 && nodes != tc.nodes) {
				t.Errorf("snapshot has %d rules and %d nodes, selected %d rules", rules, nodes, sel.Len())
			}
			if err := p.Run(); err != nil {
				t.Fatalf("pipeline: %v", err)
			}
		})
	}
}

// countNodes returns the node count and depth of a condition tree.
func countNodes(c *policy.Condition) (nodes, depth int) {
	nodes, depth = 1, 1
	for i := range c.Len() {
		n, d := countNodes(c.Child(i))
		nodes += n
		depth = max(depth, d+1)
	}
	return nodes, depth
}
