package bench

import (
	"errors"
	"testing"
)

// Sizes are the two generated rule sets: 20 rules in one toolgate policy,
// and 512 rules as four tenant policies of 128 (the Section 39 snapshot
// maximum; toolgate evaluates the selected tenant's policy, the peers all
// 512 rules).
var Sizes = []struct {
	Name      string
	Rules     int
	PerTenant bool
}{{"rules20", 20, false}, {"rules512", 512, true}}

// NumInputs is the number of generated inputs per size.
const NumInputs = 64

// Seed of every generated policy and input set.
const Seed = 7

// Engines are every engine's prepared decision over the same rules and
// inputs.
type Engines struct {
	Rules    []Rule
	Inputs   []Input
	Toolgate *Toolgate
	OPA      *OPA
	Cedar    *Cedar
	CEL      *CEL
}

// Decider decides input i: true for allow.
type Decider func(i int) (bool, error)

// Deciders returns the four engines by name, in table order, toolgate
// three times: the evaluation (a complete Decision, its lists held as sets
// over the policy), then with every list expanded through the accessors, then
// with the Decision digest.
func (e *Engines) Deciders() []struct {
	Name   string
	Decide Decider
} {
	return []struct {
		Name   string
		Decide Decider
	}{
		{"toolgate", func(i int) (bool, error) { ok, _, err := e.Toolgate.Decide(i); return ok, err }},
		// The same evaluation, then every list of the Decision expanded
		// (reasons, matched rules, obligations, Capability and Resource
		// scope), as a Host that writes the Decision out reads them: the
		// evaluation holds them as sets over the compiled policy.
		{"toolgate+lists", func(i int) (bool, error) {
			ok, d, err := e.Toolgate.Decide(i)
			if err != nil {
				return ok, err
			}
			// Every list is used, so none can be optimized away.
			if len(d.Reasons()) == 0 || len(d.MatchedRules()) > d.Policy().Len() ||
				len(d.Obligations()) != d.NumObligations() || len(d.Capabilities()) != d.NumCapabilities() ||
				len(d.Resources()) != d.NumResources() {
				return false, errors.New("toolgate: an expanded Decision list disagrees with its count")
			}
			return ok, nil
		}},
		// The same evaluation, then the Decision's complete-content digest
		// (computed on first use: Issue, Equal, Digest), as a Host that
		// issues, compares or records the Decision pays for it.
		{"toolgate+digest", func(i int) (bool, error) {
			ok, d, err := e.Toolgate.Decide(i)
			if err == nil {
				_ = d.Digest()
			}
			return ok, err
		}},
		{"cedar-go", e.Cedar.Decide},
		{"opa", e.OPA.Decide},
		{"cel-go", e.CEL.Decide},
	}
}

// Build prepares every engine for one size.
func Build(tb testing.TB, rules int, perTenant bool) *Engines {
	tb.Helper()
	e := &Engines{Rules: Generate(Seed, rules), Inputs: Inputs(Seed, NumInputs)}
	e.Toolgate = NewToolgate(tb, e.Rules, e.Inputs, perTenant)
	var err error
	if e.OPA, err = NewOPA(e.Rules, e.Inputs); err != nil {
		tb.Fatalf("opa: %v", err)
	}
	if e.Cedar, err = NewCedar(e.Rules, e.Inputs); err != nil {
		tb.Fatalf("cedar: %v", err)
	}
	if e.CEL, err = NewCEL(e.Rules, e.Inputs); err != nil {
		tb.Fatalf("cel: %v", err)
	}
	return e
}
