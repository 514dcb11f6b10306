package policy_test

import (
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// leaf returns distinct predicate i: exactToolID("t.k<i>").
func leaf(i int) policy.ConditionDraft { return toolIs("t.k" + strconv.Itoa(i)) }

// nodes returns a condition of exactly n nodes (2 ≤ n ≤ 65, depth 3): an
// all over up to nine any nodes of six leaves, topped up with leaves, so the
// last node in pre-order is the root's last child.
func nodes(n int) policy.ConditionDraft {
	var children []policy.ConditionDraft
	next, used := 0, 1
	for used+7 <= n && len(children) < 9 {
		var leaves []policy.ConditionDraft
		for range 6 {
			leaves = append(leaves, leaf(next))
			next++
		}
		children = append(children, anyOf(leaves...))
		used += 7
	}
	for used < n {
		children = append(children, leaf(next))
		next++
		used++
	}
	return allOf(children...)
}

// flat returns an any over n distinct leaves.
func flat(n int) policy.ConditionDraft {
	cs := make([]policy.ConditionDraft, n)
	for i := range cs {
		cs[i] = leaf(i)
	}
	return anyOf(cs...)
}

// chain returns a condition of depth d: d-1 nested all nodes over one leaf.
func chain(d int) policy.ConditionDraft {
	c := matches
	for range d - 1 {
		c = allOf(c)
	}
	return c
}

func rulesOf(n int, c policy.ConditionDraft) []policy.RuleDraft {
	rs := make([]policy.RuleDraft, n)
	for i := range rs {
		rs[i] = deny("r"+strconv.Itoa(i), c)
	}
	return rs
}

func policies(n, rules int, c policy.ConditionDraft) []policy.DefinitionDraft {
	ps := make([]policy.DefinitionDraft, n)
	for i := range ps {
		ps[i] = policy.DefinitionDraft{ID: "p" + strconv.Itoa(i), Generation: "1", Lifecycle: "active", Rules: rulesOf(rules, c)}
	}
	return ps
}

func ageObligations(from, n int) []policy.ObligationDraft {
	os := make([]policy.ObligationDraft, n)
	for i := range os {
		os[i] = policy.ObligationDraft{Kind: "maximumEvaluationAgeSeconds", Seconds: strconv.Itoa(from + i)}
	}
	return os
}

func values(prefix string, n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = prefix + strconv.Itoa(i)
	}
	return vs
}

// TestStructuralLimits proves every Section 39 policy limit at its bound
// (accepted) and one past it (rejected with LimitExceeded, no snapshot).
func TestStructuralLimits(t *testing.T) {
	t.Parallel()
	one := func(c policy.ConditionDraft, obligations []policy.ObligationDraft) policy.SnapshotDraft {
		r := deny("r", c)
		r.Obligations = obligations
		return snapshotOf(r)
	}
	withPolicies := func(ps ...policy.DefinitionDraft) policy.SnapshotDraft {
		return policy.SnapshotDraft{ID: "snap", Generation: "1", Policies: ps}
	}
	cases := map[string]struct {
		draft    func() policy.SnapshotDraft
		wantPath string // "" when the draft is at its bound and must publish
	}{
		"32 policies per snapshot": {
			draft: func() policy.SnapshotDraft { return withPolicies(policies(32, 1, matches)...) }},
		"33 policies per snapshot": {
			draft: func() policy.SnapshotDraft { return withPolicies(policies(33, 1, matches)...) }, wantPath: "policies"},
		"128 rules per policy": {
			draft: func() policy.SnapshotDraft { return withPolicies(policies(1, 128, matches)...) }},
		"129 rules per policy": {
			draft: func() policy.SnapshotDraft { return withPolicies(policies(1, 129, matches)...) }, wantPath: "policies[0].rules"},
		"512 rules per snapshot (4 x 128)": {
			draft: func() policy.SnapshotDraft { return withPolicies(policies(4, 128, matches)...) }},
		"513 rules per snapshot (4 x 128 + 1)": {
			draft: func() policy.SnapshotDraft {
				ps := policies(5, 128, matches)
				ps[4].Rules = ps[4].Rules[:1]
				return withPolicies(ps...)
			}, wantPath: "policies"},
		"8,192 condition nodes per snapshot (128 rules x 64 nodes)": {
			draft: func() policy.SnapshotDraft { return withPolicies(policies(1, 128, nodes(64))...) }},
		"8,193 condition nodes per snapshot": {
			draft: func() policy.SnapshotDraft {
				ps := policies(2, 128, nodes(64))
				ps[1].Rules = rulesOf(1, matches)
				return withPolicies(ps...)
			}, wantPath: "policies[1].rules[0].condition"},
		"64 nodes per rule": {
			draft: func() policy.SnapshotDraft { return one(nodes(64), nil) }},
		"65 nodes per rule": {
			draft: func() policy.SnapshotDraft { return one(nodes(65), nil) }, wantPath: "policies[0].rules[0].condition.all[9]"},
		"depth 8 counting the root": {
			draft: func() policy.SnapshotDraft { return one(chain(8), nil) }},
		"depth 9": {
			draft:    func() policy.SnapshotDraft { return one(chain(9), nil) },
			wantPath: "policies[0].rules[0].condition.all[0].all[0].all[0].all[0].all[0].all[0].all[0].all[0]"},
		"16 compound children": {
			draft: func() policy.SnapshotDraft { return one(flat(16), nil) }},
		"17 compound children": {
			draft: func() policy.SnapshotDraft { return one(flat(17), nil) }, wantPath: "policies[0].rules[0].condition.any"},
		"8 obligations per rule": {
			draft: func() policy.SnapshotDraft { return one(matches, ageObligations(1, 8)) }},
		"9 obligations per rule": {
			draft: func() policy.SnapshotDraft { return one(matches, ageObligations(1, 9)) }, wantPath: "policies[0].rules[0].obligations"},
		"17 constraint capabilities": {
			draft: func() policy.SnapshotDraft {
				r := allow("r", matches)
				r.Scope.Capabilities = make([]string, 17)
				return snapshotOf(r)
			}, wantPath: "policies[0].rules[0].scope.capabilities"},
		"33 constraint resources": {
			draft: func() policy.SnapshotDraft {
				r := allow("r", matches)
				r.Scope.Resources = values("r", 33)
				return snapshotOf(r)
			}, wantPath: "policies[0].rules[0].scope.resources"},
		"17 capability operand members": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "requestedCapabilitiesInclude", Values: make([]string, 17)}), nil)
			}, wantPath: "policies[0].rules[0].condition.predicate.values"},
		"33 resource operand members": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "requestedResourcesInclude", Values: values("r", 33)}), nil)
			}, wantPath: "policies[0].rules[0].condition.predicate.values"},
		"6 assurance operand members (Reference)": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "assuranceIsOneOf", Values: tokens(vocab.AllAssurance())}), nil)
			}},
		"7 assurance operand members": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "assuranceIsOneOf", Values: append(tokens(vocab.AllAssurance()), "unknown")}), nil)
			}, wantPath: "policies[0].rules[0].condition.predicate.values"},
		"6 authentication-method operand members (Reference)": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "authenticationMethodsIncludeAll", Values: tokens(vocab.AllAuthMethod())}), nil)
			}},
		"7 authentication-method operand members": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "authenticationMethodsIncludeAll", Values: append(tokens(vocab.AllAuthMethod()), "unknown")}), nil)
			}, wantPath: "policies[0].rules[0].condition.predicate.values"},
		"3 trust operand members (Reference)": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: tokens(vocab.AllTrust())}), nil)
			}},
		"4 trust operand members": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "provenanceTrustIsOneOf", Values: append(tokens(vocab.AllTrust()), "unknown")}), nil)
			}, wantPath: "policies[0].rules[0].condition.predicate.values"},
		"an influence count of 64": {
			draft: func() policy.SnapshotDraft {
				return one(pred(policy.PredicateDraft{Name: "maximumInfluenceCount", Count: "64"}), nil)
			}},
		"a maximum evaluation age of 3600": {
			draft: func() policy.SnapshotDraft {
				return one(matches, []policy.ObligationDraft{{Kind: "maximumEvaluationAgeSeconds", Seconds: "3600"}})
			}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			s, err := policy.Publish(e.admin, tc.draft())
			if tc.wantPath == "" {
				if err != nil {
					t.Fatalf("a draft at its bound must publish: %v", err)
				}
				return
			}
			if s != nil {
				t.Errorf("a rejected draft returned a snapshot")
			}
			wantFault(t, err, fault.ErrLimitExceeded, tc.wantPath)
		})
	}
}

// TestConstraintBoundsMeetTheCeiling records how the Section 39 constraint
// bounds interact with the Section 19 ceiling rule: 32 unique Resources pass
// the size check but exceed any Host Authority (at most 16 Resources), so
// the ceiling rejects them; 16 Capabilities cannot be unique among the five
// Section 48 Capabilities.
func TestConstraintBoundsMeetTheCeiling(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := allow("r", matches)
	r.Scope.Resources = make([]string, 32)
	for i := range r.Scope.Resources {
		r.Scope.Resources[i] = "r" + twoDigits(i)
	}
	_, err := policy.Publish(e.admin, snapshotOf(r))
	wantFault(t, err, fault.ErrOutOfRange, "policies[0].rules[0].scope.resources[14]")
	r = allow("r", matches)
	r.Scope.Capabilities = append(tokens(vocab.AllCapability()), "data.read")
	_, err = policy.Publish(e.admin, snapshotOf(r))
	wantFault(t, err, fault.ErrDuplicate, "policies[0].rules[0].scope.capabilities[5]")
	r = allow("r", matches)
	r.Scope = &policy.ScopeDraft{Capabilities: tokens(vocab.AllCapability()), Resources: hostResources()}
	if _, err := policy.Publish(e.admin, snapshotOf(r)); err != nil {
		t.Errorf("a constraint equal to the whole ceiling must publish: %v", err)
	}
}

// TestDecisionObligationLimit proves the Section 39 Decision aggregation
// limit: 128 unique obligations are carried; 129 make a deny Decision whose
// only reason is policyLimitExceeded, with empty scope, no matched rules and
// no obligations.
func TestDecisionObligationLimit(t *testing.T) {
	t.Parallel()
	build := func(unique int) policy.SnapshotDraft {
		var rules []policy.RuleDraft
		for i := 0; i*8 < unique; i++ {
			r := allow("allow-"+twoDigits(i), matches)
			n := min(8, unique-i*8)
			r.Obligations = ageObligations(i*8+1, n)
			// Pad with duplicates of earlier obligations: they are deduplicated.
			r.Obligations = append(r.Obligations, ageObligations(1, 8-n)...)
			rules = append(rules, r)
		}
		return snapshotOf(rules...)
	}
	e := newEnv(t)
	d := evaluate(t, baseFacts(e.b), e.publish(t, build(128)))
	if d.Outcome() != vocab.Allow || len(d.Obligations()) != 128 || len(d.MatchedRules()) != 16 {
		t.Errorf("128 obligations: outcome %v with %d obligations, %d matches; want allow, 128, 16",
			d.Outcome(), len(d.Obligations()), len(d.MatchedRules()))
	}
	d = evaluate(t, baseFacts(e.b), e.publish(t, build(129)))
	if d.Outcome() != vocab.Deny || len(d.Reasons()) != 1 || d.Reasons()[0] != vocab.ReasonPolicyLimitExceeded {
		t.Errorf("129 obligations: outcome %v %v, want deny [policyLimitExceeded]", d.Outcome(), d.Reasons())
	}
	if len(d.Obligations()) != 0 || len(d.MatchedRules()) != 0 || len(d.Capabilities()) != 0 || len(d.Resources()) != 0 {
		t.Errorf("a limit deny carries obligations, matches or scope")
	}
}
