package policy_test

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// history is generation 1 of snapshot "snap": payments/1 active,
// payments/2 deprecated, refunds/1 active.
func history() policy.SnapshotDraft {
	return policy.SnapshotDraft{ID: "snap", Generation: "1", Policies: []policy.DefinitionDraft{
		{ID: "payments", Generation: "1", Lifecycle: "active", Rules: []policy.RuleDraft{allow("allow", matches)}},
		{ID: "payments", Generation: "2", Lifecycle: "deprecated", Rules: []policy.RuleDraft{allow("allow", matches), deny("deny", misses)}},
		{ID: "refunds", Generation: "1", Lifecycle: "active", Rules: []policy.RuleDraft{deny("deny", matches)}},
	}}
}

func next(mods ...func(*policy.SnapshotDraft)) policy.SnapshotDraft {
	d := history()
	d.Generation = "2"
	for _, m := range mods {
		m(&d)
	}
	return d
}

func lifecycle(i int, l string) func(*policy.SnapshotDraft) {
	return func(d *policy.SnapshotDraft) { d.Policies[i].Lifecycle = l }
}

// TestPublishSuccessor proves the Section 19 successor rules: the same
// snapshot identity and Host domain, exactly the next generation, every
// prior policy version retained with identical rule content, and only
// one-way lifecycle transitions.
func TestPublishSuccessor(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		draft    policy.SnapshotDraft
		wantErr  error
		wantPath string
	}{
		"an identical successor": {draft: next()},
		"a successor adding a new policy version": {draft: next(func(d *policy.SnapshotDraft) {
			d.Policies = append(d.Policies, policy.DefinitionDraft{ID: "payments", Generation: "3", Lifecycle: "active",
				Rules: []policy.RuleDraft{deny("deny", matches)}})
		})},
		"active to deprecated":    {draft: next(lifecycle(0, "deprecated"))},
		"active to retired":       {draft: next(lifecycle(0, "retired"))},
		"deprecated to retired":   {draft: next(lifecycle(1, "retired"))},
		"reordered policy drafts": {draft: next(func(d *policy.SnapshotDraft) { d.Policies[0], d.Policies[2] = d.Policies[2], d.Policies[0] })},
		"deprecated back to active": {
			draft: next(lifecycle(1, "active")), wantErr: fault.ErrIneligible, wantPath: "policies[1].lifecycle"},
		"a skipped generation": {
			draft: func() policy.SnapshotDraft { d := next(); d.Generation = "3"; return d }(), wantErr: fault.ErrMismatch, wantPath: "generation"},
		"the same generation again": {
			draft: func() policy.SnapshotDraft { d := next(); d.Generation = "1"; return d }(), wantErr: fault.ErrMismatch, wantPath: "generation"},
		"another snapshot identity": {
			draft: func() policy.SnapshotDraft { d := next(); d.ID = "other"; return d }(), wantErr: fault.ErrMismatch, wantPath: "id"},
		"a removed prior policy version": {
			draft: next(func(d *policy.SnapshotDraft) { d.Policies = d.Policies[:2] }), wantErr: fault.ErrMissing, wantPath: "policies"},
		"a changed rule in a retained version": {
			draft:   next(func(d *policy.SnapshotDraft) { d.Policies[2].Rules[0].Reason = "tenantMismatch" }),
			wantErr: fault.ErrMismatch, wantPath: "policies[2].rules"},
		"an added rule in a retained version": {
			draft: next(func(d *policy.SnapshotDraft) {
				d.Policies[0].Rules = append(d.Policies[0].Rules, deny("late-deny", matches))
			}),
			wantErr: fault.ErrMismatch, wantPath: "policies[0].rules"},
		"a retained version republished under a new generation only": {
			draft: next(func(d *policy.SnapshotDraft) { d.Policies[0].Generation = "3" }), wantErr: fault.ErrMissing, wantPath: "policies"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			prev := e.publish(t, history())
			before := prev.Digest()
			s, err := policy.PublishSuccessor(e.admin, prev, tc.draft)
			if !prev.Digest().Equal(before) || prev.Policy(0).Lifecycle() != vocab.PolicyActive {
				t.Errorf("publishing a successor changed the previous snapshot")
			}
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("PublishSuccessor: %v", err)
				}
				if s.Generation().Uint64() != 2 || s.ID() != prev.ID() || !s.Domain().Same(prev.Domain()) {
					t.Errorf("successor identity = %v/%v", s.ID(), s.Generation())
				}
				return
			}
			if s != nil {
				t.Errorf("a rejected successor returned a snapshot")
			}
			wantFault(t, err, tc.wantErr, tc.wantPath)
		})
	}
}

// TestSuccessorChain proves that lifecycles only move forward across a chain
// of successors: retired cannot return to deprecated.
func TestSuccessorChain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g1 := e.publish(t, history())
	g2, err := policy.PublishSuccessor(e.admin, g1, next(lifecycle(1, "retired")))
	if err != nil {
		t.Fatalf("generation 2: %v", err)
	}
	d3 := next(lifecycle(1, "deprecated"))
	d3.Generation = "3"
	_, err = policy.PublishSuccessor(e.admin, g2, d3)
	wantFault(t, err, fault.ErrIneligible, "policies[1].lifecycle")
	d3 = next(lifecycle(1, "retired"))
	d3.Generation = "3"
	if _, err := policy.PublishSuccessor(e.admin, g2, d3); err != nil {
		t.Errorf("keeping retired must publish: %v", err)
	}
}

// TestSuccessorDomain proves a successor cannot be published from another
// Host domain, even by a policy administrator there.
func TestSuccessorDomain(t *testing.T) {
	t.Parallel()
	e, other := newEnv(t), newEnv(t)
	prev := e.publish(t, history())
	_, err := policy.PublishSuccessor(other.admin, prev, next())
	wantFault(t, err, fault.ErrMixedDomain, "")
	_, err = policy.PublishSuccessor(e.admin, nil, next())
	wantFault(t, err, fault.ErrMissing, "previous")
}

// TestRetiredPolicy proves that a retired version stays inspectable in the
// snapshot but is ineligible for lookup and evaluation.
func TestRetiredPolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g1 := e.publish(t, history())
	g2, err := policy.PublishSuccessor(e.admin, g1, next(lifecycle(0, "retired")))
	if err != nil {
		t.Fatalf("PublishSuccessor: %v", err)
	}
	if g2.Policy(0).Lifecycle() != vocab.PolicyRetired || g2.Policy(0).Len() != 1 {
		t.Errorf("the retired version is not inspectable")
	}
	if _, err := g2.Lookup(pid("payments"), gen(1)); !errors.Is(err, fault.ErrIneligible) {
		t.Errorf("Lookup(retired) = %v, want ineligible", err)
	}
	d := evaluate(t, baseFacts(e.b), g2)
	if d.Outcome() != vocab.Deny || d.Reasons()[0] != vocab.ReasonPolicyRetired {
		t.Errorf("retired evaluation = %v %v, want deny policyRetired", d.Outcome(), d.Reasons())
	}
	if d := evaluate(t, baseFacts(e.b), g1); d.Outcome() != vocab.Allow {
		t.Errorf("the old snapshot changed: %v", d.Outcome())
	}
	if def, err := g2.Lookup(pid("payments"), gen(2)); err != nil || def.Lifecycle() != vocab.PolicyDeprecated {
		t.Errorf("Lookup(deprecated) = %v, %v", def, err)
	}
	for name, sel := range map[string][2]any{"unknown identity": {"loans", uint64(1)}, "unknown generation": {"payments", uint64(7)}} {
		if _, err := g2.Lookup(pid(sel[0].(string)), gen(sel[1].(uint64))); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("Lookup(%s) = %v, want not found", name, err)
		}
	}
}
