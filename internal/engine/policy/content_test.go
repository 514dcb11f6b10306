package policy_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestSameContentIsDigestEquality shows that the Decision digest is a
// complete-content digest (Section 22 equality): changing any one field
// that distinguishes Decisions changes the digest (or, for the Host domain,
// which has no content, Equal), and that the field-by-field comparison
// policy.Reproduces uses agrees with Equal on every such change.
func TestSameContentIsDigestEquality(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.publish(t, realisticDraft())
	decisions := map[string]*policy.Decision{}
	for name, sel := range map[string]policy.Selection{
		"allow":          selection(s, "payments", 1),
		"missing policy": {SnapshotID: s.ID(), SnapshotGeneration: s.Generation(), PolicyID: s.Policy(0).ID(), PolicyGeneration: gen(77)},
	} {
		d, err := policy.EvaluateFacts(baseFacts(e.b), s, sel, "decision-1")
		if err != nil {
			t.Fatalf("%s: EvaluateFacts: %v", name, err)
		}
		decisions[name] = d
	}
	if d := decisions["allow"]; d.Outcome() != vocab.Allow || len(d.Obligations()) == 0 || len(d.Resources()) == 0 || d.Policy() == nil {
		t.Fatalf("the allow Decision does not exercise every field: %v %v", d.Outcome(), d.Reasons())
	}
	if decisions["missing policy"].Policy() != nil {
		t.Fatal("the missing-policy Decision binds a policy")
	}
	other := boundary.New("another host").Domain()
	for name, d := range decisions {
		again, err := policy.EvaluateFacts(baseFacts(e.b), s, d.Selection(), "decision-1")
		if err != nil {
			t.Fatal(err)
		}
		if !policy.SameContent(again, d) || !again.Equal(d) {
			t.Errorf("%s: a re-evaluated Decision is not the same content", name)
		}
		variants := policy.DecisionVariants(d, other)
		testutil.CheckVariantsCoverFields(t, "Decision", variants, policy.DecisionContentFields())
		for field, v := range variants {
			if field == "domain" {
				if v.Digest() != d.Digest() {
					t.Errorf("%s: the domain has no content, but changed the digest", name)
				}
			} else if v.Digest() == d.Digest() {
				t.Errorf("%s: changing %s does not change the digest", name, field)
			}
			if v.Equal(d) || policy.SameContent(v, d) || policy.SameContent(d, v) {
				t.Errorf("%s: a Decision differing in %s is Equal %v, same content %v", name, field, v.Equal(d), policy.SameContent(v, d))
			}
		}
	}
	if policy.SameContent(nil, decisions["allow"]) || policy.SameContent(decisions["allow"], nil) {
		t.Error("a nil Decision has the same content")
	}
}

// TestDigestOnFirstUse: a Decision's digest is computed on first use, once,
// whichever goroutines ask for it first, and is the same whether Digest or
// Equal asks first.
func TestDigestOnFirstUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.publish(t, realisticDraft())
	eval := func() *policy.Decision {
		d, err := policy.EvaluateFacts(baseFacts(e.b), s, selection(s, "payments", 1), "decision-1")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := eval(), eval()
	if !a.Equal(b) { // Equal computes both digests
		t.Fatal("two evaluations of the same input differ")
	}
	c := eval()
	done := make(chan [32]byte)
	for range 8 {
		go func() { done <- c.Digest() }()
	}
	for range 8 {
		if got := <-done; got != a.Digest() {
			t.Errorf("a concurrent first Digest is %x, want %x", got, a.Digest())
		}
	}
}
