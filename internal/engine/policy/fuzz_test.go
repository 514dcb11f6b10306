package policy_test

import (
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// draftGen draws draft choices from fuzz bytes; once exhausted it returns
// zeros. Choices are valid unless a byte asks for a fault (bad), so that
// both accepted snapshots and every rejection stay reachable.
type draftGen struct{ b []byte }

func (g *draftGen) next() int {
	if len(g.b) == 0 {
		return 0
	}
	v := int(g.b[0])
	g.b = g.b[1:]
	return v
}

// bad reports a rare request to make the current choice invalid.
func (g *draftGen) bad() bool { return g.next() >= 250 }

func (g *draftGen) pick(s []string) string { return s[g.next()%len(s)] }

var (
	invalid      = []string{"", "Bad", "a..b", "x-", "01", "-1", "bogus", "18446744073709551616", "4102444801"}
	fuzzNumbers  = []string{"0", "1", "60", "64", "65", "3600", "3601", "4102444800", "18446744073709551615"}
	fuzzCaps     = tokens(vocab.AllCapability())
	fuzzRes      = []string{"acct-1", "acct-2", "r00", "r01", "r13"}
	fuzzPreds    = tokens(vocab.AllPredicate())
	fuzzEffects  = tokens(vocab.AllEffect())
	fuzzReasons  = tokens(vocab.AllReason())
	fuzzLifes    = tokens(vocab.AllPolicyLifecycle())
	fuzzEnumSets = map[string][]string{
		"assuranceIsOneOf":                tokens(vocab.AllAssurance()),
		"authenticationMethodsIncludeAll": tokens(vocab.AllAuthMethod()),
		"provenanceTrustIsOneOf":          tokens(vocab.AllTrust()),
		"requestedCapabilitiesSubsetOf":   fuzzCaps,
		"requestedCapabilitiesInclude":    fuzzCaps,
		"intendedCapabilitiesInclude":     fuzzCaps,
		"requestedResourcesSubsetOf":      fuzzRes,
		"requestedResourcesInclude":       fuzzRes,
	}
	fuzzEnums = map[string][]string{
		"lifecycleIs":                      tokens(vocab.AllLifecycle()),
		"riskIs":                           tokens(vocab.AllRisk()),
		"sideEffectIs":                     tokens(vocab.AllSideEffect()),
		"reversibilityIs":                  tokens(vocab.AllReversibility()),
		"authenticationMethodIncludes":     tokens(vocab.AllAuthMethod()),
		"provenanceCoverageIs":             tokens(vocab.AllProvenanceCoverage()),
		"provenanceContainsSource":         tokens(vocab.AllProvenanceSource()),
		"provenanceContainsTransformation": tokens(vocab.AllTransformation()),
		"influenceBoundaryCompletenessIs":  tokens(vocab.AllCompleteness()),
		"influenceContainsKind":            tokens(vocab.AllInfluenceKind()),
		"influenceContainsNoKind":          tokens(vocab.AllInfluenceKind()),
	}
	fuzzIdentifiers = map[string]string{
		"exactToolID": "t.k", "exactDefinitionID": "d", "exactRegistrySnapshot": "reg",
		"exactSubject": "s", "exactTenant": "t", "exactSession": "sess", "exactDelegationID": "deleg",
		"exactRequestedResource": "r0", "influenceBoundaryCompletenessIs": "b", "exactInfluenceBoundary": "b",
	}
	fuzzGenerations = map[string]bool{"exactToolVersion": true, "exactRegistrySnapshot": true, "renewalGenerationIs": true}
)

func (g *draftGen) text(valid string) string {
	if g.bad() {
		return g.pick(invalid)
	}
	return valid
}

func (g *draftGen) predicate() *policy.PredicateDraft {
	p := &policy.PredicateDraft{Name: g.text(g.pick(fuzzPreds))}
	if prefix, ok := fuzzIdentifiers[p.Name]; ok {
		p.Identifier = g.text(prefix + strconv.Itoa(g.next()%8))
		if p.Name == "exactRequestedResource" {
			p.Identifier = g.text(g.pick(fuzzRes))
		}
	}
	if fuzzGenerations[p.Name] {
		p.Generation = g.text(strconv.Itoa(1 + g.next()))
	}
	if vs, ok := fuzzEnums[p.Name]; ok {
		p.Value = g.text(g.pick(vs))
	}
	if vs, ok := fuzzEnumSets[p.Name]; ok {
		n := 1 + g.next()%3
		if g.bad() {
			n = g.next() % 40
		}
		for range n {
			p.Values = append(p.Values, g.text(g.pick(vs)))
		}
	}
	switch p.Name {
	case "maximumInfluenceCount":
		p.Count = g.text(strconv.Itoa(g.next() % 70))
	case "maximumIntentAge", "maximumContextAge":
		p.Seconds = g.text(g.pick(fuzzNumbers))
	case "evaluationTimeWithin":
		a, b, c := g.next(), g.next(), g.next()
		p.Window = &policy.WindowDraft{IssuedAt: g.text(strconv.Itoa(a)), NotBefore: g.text(strconv.Itoa(a + b)), ExpiresAt: g.text(strconv.Itoa(a + b + c))}
	}
	if g.bad() { // an operand the predicate does not take
		p.Values = append(p.Values, "data.read")
	}
	return p
}

func (g *draftGen) condition(depth int) policy.ConditionDraft {
	switch k := g.next() % 6; {
	case k == 0 && depth < 11:
		return policy.ConditionDraft{All: g.children(depth)}
	case k == 1 && depth < 11:
		return policy.ConditionDraft{Any: g.children(depth)}
	case g.bad():
		return policy.ConditionDraft{}
	default:
		return policy.ConditionDraft{Predicate: g.predicate()}
	}
}

func (g *draftGen) children(depth int) []policy.ConditionDraft {
	n := 1 + g.next()%4
	if g.bad() {
		n = g.next() % 20
	}
	cs := make([]policy.ConditionDraft, n)
	for i := range cs {
		cs[i] = g.condition(depth + 1)
	}
	return cs
}

func (g *draftGen) rule(i int) policy.RuleDraft {
	r := policy.RuleDraft{ID: g.text("r" + strconv.Itoa(i)), Effect: g.text(g.pick(fuzzEffects)),
		Reason: g.text(g.pick(fuzzReasons)), Condition: g.condition(1)}
	if (r.Effect != "deny") != g.bad() {
		r.Scope = &policy.ScopeDraft{}
		for range g.next() % 3 {
			r.Scope.Capabilities = append(r.Scope.Capabilities, g.text(g.pick(fuzzCaps)))
		}
		for range g.next() % 3 {
			r.Scope.Resources = append(r.Scope.Resources, g.text(g.pick(fuzzRes)))
		}
	}
	n := g.next() % 3
	if g.bad() {
		n = g.next() % 12
	}
	for range n {
		o := policy.ObligationDraft{Kind: g.text(g.pick(tokens(vocab.AllObligationKind())))}
		switch o.Kind {
		case "maximumEvaluationAgeSeconds":
			o.Seconds = g.text(strconv.Itoa(g.next()*14 + 1))
		case "requireCompleteInfluenceBoundary":
			o.Boundary = g.text("b" + strconv.Itoa(g.next()%8))
		}
		r.Obligations = append(r.Obligations, o)
	}
	return r
}

func (g *draftGen) draft() policy.SnapshotDraft {
	d := policy.SnapshotDraft{ID: g.text("snap"), Generation: g.text("1")}
	n := 1 + g.next()%3
	if g.bad() {
		n = g.next() % 36
	}
	for i := range n {
		def := policy.DefinitionDraft{ID: g.text("p" + strconv.Itoa(i)), Generation: g.text(strconv.Itoa(1 + g.next()%3)), Lifecycle: g.text(g.pick(fuzzLifes))}
		rules := 1 + g.next()%4
		if g.bad() {
			rules = g.next() % 140 // reach the per-policy and aggregate limits
		}
		for j := range rules {
			def.Rules = append(def.Rules, g.rule(j))
		}
		d.Policies = append(d.Policies, def)
	}
	return d
}

// checkLimits walks an accepted snapshot and fails on any Section 39 limit
// or Section 50 order violation.
func checkLimits(t *testing.T, s *policy.Snapshot) {
	t.Helper()
	if s.Len() < 1 || s.Len() > policy.MaxPolicies {
		t.Fatalf("snapshot holds %d policies", s.Len())
	}
	rules, nodes := 0, 0
	var walk func(c *policy.Condition, depth int) int
	walk = func(c *policy.Condition, depth int) int {
		if depth > policy.MaxDepth {
			t.Fatalf("condition depth %d", depth)
		}
		if c.Kind() != vocab.ConditionPredicate && (c.Len() < 1 || c.Len() > policy.MaxChildren) {
			t.Fatalf("compound with %d children", c.Len())
		}
		n := 1
		for i := range c.Len() {
			if i > 0 && c.Child(i-1).Key() >= c.Child(i).Key() {
				t.Fatalf("children not strictly in key order")
			}
			n += walk(c.Child(i), depth+1)
		}
		return n
	}
	for i := range s.Len() {
		def := s.Policy(i)
		if def.Len() < 1 || def.Len() > policy.MaxRulesPerPolicy {
			t.Fatalf("policy with %d rules", def.Len())
		}
		rules += def.Len()
		for j := range def.Len() {
			r := def.Rule(j)
			n := walk(r.Condition(), 1)
			if n > policy.MaxRuleNodes {
				t.Fatalf("rule with %d nodes", n)
			}
			nodes += n
			if len(r.Obligations()) > policy.MaxRuleObligations || r.HasScope() == (r.Effect() == vocab.Deny) {
				t.Fatalf("rule with %d obligations, scope %v for %v", len(r.Obligations()), r.HasScope(), r.Effect())
			}
		}
	}
	if rules > policy.MaxRules || nodes > policy.MaxNodes {
		t.Fatalf("snapshot with %d rules and %d nodes", rules, nodes)
	}
}

// FuzzPublish drives publication with drafts generated from fuzz bytes:
// publication never panics, an accepted snapshot respects every Section 39
// limit and Section 50 order, re-publishing the same draft gives an equal
// snapshot, and evaluating it yields a well-formed Decision.
func FuzzPublish(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 1, 0, 1, 1, 3, 0, 1, 2, 3, 1, 0, 3})
	f.Add([]byte{0, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 9, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 250, 30, 0, 0, 0, 0, 250, 135})
	f.Add([]byte("policy fuzz seed with some longer content to drive nested conditions"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := newEnv(t)
		g := &draftGen{b: data}
		d := g.draft()
		s, err := policy.Publish(e.admin, d)
		if err != nil {
			if s != nil {
				t.Fatalf("a rejected draft returned a snapshot")
			}
			return
		}
		checkLimits(t, s)
		again, err := policy.Publish(e.admin, d)
		if err != nil || !s.Equal(again) {
			t.Fatalf("re-publishing the same draft: %v", err)
		}
		def := s.Policy(0)
		dec, err := policy.EvaluateFacts(baseFacts(e.b), s, selection(s, def.ID().String(), def.Generation().Uint64()), "decision-1")
		if err != nil {
			t.Fatalf("Evaluate: %v", err)
		}
		if len(dec.Reasons()) < 1 || (dec.Outcome() == vocab.Deny && (len(dec.Capabilities()) != 0 || len(dec.Resources()) != 0)) {
			t.Fatalf("malformed decision %v %v", dec.Outcome(), dec.Reasons())
		}
	})
}
