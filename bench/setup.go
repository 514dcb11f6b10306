package bench

import (
	"errors"
	"testing"
)

// Sizes are the generated rule sets. In the indexed rows ("rules20",
// "rules512") toolgate's rule index, and at 512 the tenant's policy, leave
// it a fraction of the rules to evaluate (at 512, the selected tenant's 128
// and of those the rules of the input's tool), while the peers evaluate
// every rule. In the equal-work rows every engine evaluates the same
// rules: "rules20-all", all 20 rules, and "rules512-tenant", the 128 rules
// of the input's tenant — a policy holds at most 128 rules (Section 39), so
// no toolgate decision evaluates 512, and the peers are given the same 128
// (one instance per tenant, the input's chosen before the measured call
// like toolgate's Selection).
var Sizes = []Size{
	{Name: "rules20", Rules: 20},
	{Name: "rules20-all", Rules: 20, EqualWork: true},
	{Name: "rules512", Rules: 512, PerTenant: true},
	{Name: "rules512-tenant", Rules: 512, PerTenant: true, EqualWork: true},
}

// Size is one generated rule set and how the engines hold it.
type Size struct {
	Name  string
	Rules int
	// PerTenant writes toolgate's snapshot as one policy per tenant (4 ×
	// 128 for 512 rules), the Host selecting the input's tenant's; else one
	// policy "all".
	PerTenant bool
	// EqualWork writes toolgate's tenant and tool conditions inside a
	// one-child any — the same conditions, which the index does not read
	// (it follows all nodes only) — so that toolgate evaluates every rule
	// of the selected policy; with PerTenant the peers are given the same
	// policy's rules.
	EqualWork bool
}

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
	// Each peer's instance per input: the same for every input, or the
	// input's tenant's (Size.EqualWork with PerTenant).
	OPA   []*OPA
	Cedar []*Cedar
	CEL   []*CEL
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
		{"cedar-go", func(i int) (bool, error) { return e.Cedar[i].Decide(i) }},
		{"opa", func(i int) (bool, error) { return e.OPA[i].Decide(i) }},
		{"cel-go", func(i int) (bool, error) { return e.CEL[i].Decide(i) }},
	}
}

// Build prepares every engine for one size.
func Build(tb testing.TB, size Size) *Engines {
	tb.Helper()
	e := &Engines{Rules: Generate(Seed, size.Rules), Inputs: Inputs(Seed, NumInputs)}
	e.Toolgate = NewToolgate(tb, e.Rules, e.Inputs, size.PerTenant, size.EqualWork)
	// The rule set each peer instance holds: all, or one per tenant.
	sets := map[string][]Rule{"": e.Rules}
	key := func(Input) string { return "" }
	if size.PerTenant && size.EqualWork {
		sets = map[string][]Rule{}
		for _, t := range Tenants {
			sets[t] = Selected(e.Rules, true, Input{Tenant: t})
		}
		key = func(in Input) string { return in.Tenant }
	}
	opa, cedar, cel := map[string]*OPA{}, map[string]*Cedar{}, map[string]*CEL{}
	for k, rules := range sets {
		var err error
		if opa[k], err = NewOPA(rules, e.Inputs); err != nil {
			tb.Fatalf("opa: %v", err)
		}
		if cedar[k], err = NewCedar(rules, e.Inputs); err != nil {
			tb.Fatalf("cedar: %v", err)
		}
		if cel[k], err = NewCEL(rules, e.Inputs); err != nil {
			tb.Fatalf("cel: %v", err)
		}
	}
	for _, in := range e.Inputs {
		e.OPA = append(e.OPA, opa[key(in)])
		e.Cedar = append(e.Cedar, cedar[key(in)])
		e.CEL = append(e.CEL, cel[key(in)])
	}
	return e
}
