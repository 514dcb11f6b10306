package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/policy"
)

// TestAgreement checks, before any number is taken, that every engine
// returns the same decision on every input: the peers exactly the common
// reading (Decide), toolgate the common reading except where the protocol
// itself differs (Difference), each such case listed with its reason.
func TestAgreement(t *testing.T) {
	for _, size := range Sizes {
		t.Run(size.Name, func(t *testing.T) {
			e := Build(t, size)
			allows, differences := 0, 0
			for i, in := range e.Inputs {
				want := Decide(e.Rules, in)
				if want {
					allows++
				}
				for _, d := range e.Deciders() {
					got, err := d.Decide(i)
					if err != nil {
						t.Fatalf("%s input %d: %v", d.Name, i, err)
					}
					wantHere := want
					if strings.HasPrefix(d.Name, "toolgate") {
						if why := Difference(Selected(e.Rules, size.PerTenant, in), in); why != "" {
							wantHere = false
							if d.Name == "toolgate" { // toolgate+lists and +digest are the same evaluation: listed once
								differences++
								t.Logf("input %d (%s %s): common reading allow, toolgate deny: %s", i, in.Tenant, in.Tool, why)
							}
						}
					}
					if got != wantHere {
						t.Errorf("%s input %d (%+v): allow = %v, want %v", d.Name, i, in, got, wantHere)
					}
				}
			}
			t.Logf("%d inputs: %d allowed by the common reading, %d protocol differences", len(e.Inputs), allows, differences)
			// Seed 7 gives no difference with 20 rules and four with 512 (one
			// indeterminate trust condition, three scope losses): a change
			// of generator or semantics shows here first.
			if want := map[string]int{"rules20": 0, "rules20-all": 0, "rules512": 4, "rules512-tenant": 4}[size.Name]; differences != want {
				t.Errorf("%d protocol differences, want %d", differences, want)
			}
			// The generated inputs must exercise both outcomes and the
			// differences, or the agreement proves little.
			if allows < len(e.Inputs)/8 || allows == len(e.Inputs) {
				t.Errorf("only %d of %d inputs are allowed", allows, len(e.Inputs))
			}
		})
	}
}

// TestEqualWorkRulesAreNotIndexed: in the equal-work rows no toolgate rule
// requires its tenant or tool where the compiled evaluator's index looks —
// a predicate at the root or reached through all nodes only — so toolgate
// evaluates every rule of the selected policy; in the indexed rows every
// rule does (the index applies).
func TestEqualWorkRulesAreNotIndexed(t *testing.T) {
	var indexable func(c policy.ConditionDraft) bool
	indexable = func(c policy.ConditionDraft) bool {
		if c.Predicate != nil {
			return c.Predicate.Name == "exactTenant" || c.Predicate.Name == "exactToolID"
		}
		return slices.ContainsFunc(c.All, indexable)
	}
	for _, size := range Sizes {
		d := ToolgateDraft(Generate(Seed, size.Rules), size.PerTenant, size.EqualWork)
		for _, p := range d.Policies {
			if len(p.Rules) > 128 {
				t.Errorf("%s: policy %s has %d rules, more than a policy holds", size.Name, p.ID, len(p.Rules))
			}
			for _, r := range p.Rules {
				if indexable(r.Condition) == size.EqualWork {
					t.Fatalf("%s: rule %s: indexable = %v, want %v", size.Name, r.ID, indexable(r.Condition), !size.EqualWork)
				}
			}
		}
	}
}
