package policy_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// permute returns a deep copy of d with every semantically unordered
// collection shuffled: policies, rules, compound children, obligations,
// scope members and collection operands.
func permute(r *rand.Rand, d policy.SnapshotDraft) policy.SnapshotDraft {
	out := d
	out.Policies = slices.Clone(d.Policies)
	shuffle(r, out.Policies)
	for i := range out.Policies {
		pd := &out.Policies[i]
		pd.Rules = slices.Clone(pd.Rules)
		shuffle(r, pd.Rules)
		for j := range pd.Rules {
			rd := &pd.Rules[j]
			rd.Condition = permuteCondition(r, rd.Condition)
			rd.Obligations = slices.Clone(rd.Obligations)
			shuffle(r, rd.Obligations)
			if rd.Scope != nil {
				s := *rd.Scope
				s.Capabilities, s.Resources = slices.Clone(s.Capabilities), slices.Clone(s.Resources)
				shuffle(r, s.Capabilities)
				shuffle(r, s.Resources)
				rd.Scope = &s
			}
		}
	}
	return out
}

func permuteCondition(r *rand.Rand, c policy.ConditionDraft) policy.ConditionDraft {
	switch {
	case c.Predicate != nil:
		p := *c.Predicate
		p.Values = slices.Clone(p.Values)
		shuffle(r, p.Values)
		return policy.ConditionDraft{Predicate: &p}
	case c.All != nil:
		return policy.ConditionDraft{All: permuteChildren(r, c.All)}
	default:
		return policy.ConditionDraft{Any: permuteChildren(r, c.Any)}
	}
}

func permuteChildren(r *rand.Rand, cs []policy.ConditionDraft) []policy.ConditionDraft {
	out := make([]policy.ConditionDraft, len(cs))
	for i, c := range cs {
		out[i] = permuteCondition(r, c)
	}
	shuffle(r, out)
	return out
}

func shuffle[T any](r *rand.Rand, s []T) {
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
}

// TestPermutationInvariance proves P-020 determinism and the Section 20/50
// normalization: random permutations (fixed seed) of rule order, compound
// child order, obligation order, scope order and operand order never change
// the Snapshot digest or any Decision digest, across inputs that reach every
// outcome.
func TestPermutationInvariance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	inputs := map[string]func(*facts){
		"allow":                    func(*facts) {},
		"requireConfirmation":      func(f *facts) { f.requestedRes = []ident.Resource{res("acct-1"), res("acct-2")} },
		"deny by rule":             func(f *facts) { f.kinds = append(f.kinds, vocab.InfluenceMemory) },
		"deny by indeterminate":    func(f *facts) { f.identity = identity(principal.Draft{Subject: "alice", SessionIndependent: true}) },
		"deny by scope loss":       func(f *facts) { f.requested = []vocab.Capability{vocab.DataRead, vocab.FinancialTransfer} },
		"deny with no allow match": func(f *facts) { f.renewal = gen(9) },
	}
	base := e.publish(t, realisticDraft())
	want := map[string]*policy.Decision{}
	for name, modify := range inputs {
		in := baseFacts(e.b)
		modify(in)
		want[name] = evaluate(t, in, base)
	}
	for name, reason := range map[string]vocab.Reason{
		"allow":                    vocab.ReasonAllowRuleMatched,
		"requireConfirmation":      vocab.ReasonConfirmationRuleMatched,
		"deny by rule":             vocab.ReasonDenyRuleMatched,
		"deny by indeterminate":    vocab.ReasonConditionIndeterminate,
		"deny by scope loss":       vocab.ReasonCapabilityNotPermitted,
		"deny with no allow match": vocab.ReasonNoAllowRuleMatched,
	} {
		if !slices.Contains(want[name].Reasons(), reason) {
			t.Fatalf("fixture %s: reasons %v lack %v", name, want[name].Reasons(), reason)
		}
	}
	r := rand.New(rand.NewPCG(20, 26))
	for range 50 {
		s := e.publish(t, permute(r, realisticDraft()))
		if !base.Equal(s) {
			t.Fatalf("a permuted draft published a different snapshot")
		}
		for name, modify := range inputs {
			in := baseFacts(e.b)
			modify(in)
			if got := evaluate(t, in, s); !want[name].Equal(got) {
				t.Fatalf("%s: a permuted draft changed the decision: %v %v", name, got.Outcome(), got.Reasons())
			}
		}
	}
}
