package policy_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// The differential test: random policies and random facts, drawn from small
// shared vocabularies so that identifiers collide and every predicate both
// matches and misses, evaluated by the compiled evaluator (Evaluate) and by
// the reference evaluator; the complete Decisions must be equal.

// diffIDs are the identifier operands and facts, per predicate kind.
var diffIDs = map[string][]string{
	"exactToolID":                     {"payments.submit", "reports.list", "email.send"},
	"exactDefinitionID":               {"payments-submit-3", "def-2"},
	"exactRegistrySnapshot":           {"registry-main", "reg-2"},
	"exactSubject":                    {"alice", "bob", "mallory"},
	"exactTenant":                     {"acme", "globex"},
	"exactSession":                    {"sess-1", "sess-2"},
	"exactDelegationID":               {"del-1", "del-2"},
	"exactRequestedResource":          {"acct-1", "acct-2", "r00"},
	"influenceBoundaryCompletenessIs": {"inbox", "web", "chat"},
	"exactInfluenceBoundary":          {"inbox", "web", "chat"},
}

// diffResources are Resources a request may name: four the policies name,
// one only in the Host ceiling, one outside it.
var diffResources = []string{"acct-1", "acct-2", "r00", "r01", "r05", "zz-foreign"}

type diffGen struct{ r *rand.Rand }

func (g diffGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g diffGen) subset(s []string, max int) []string {
	n := 1 + g.r.IntN(max)
	out := make([]string, 0, n)
	for range n {
		if v := g.pick(s); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func (g diffGen) predicate(name string) *policy.PredicateDraft {
	p := &policy.PredicateDraft{Name: name}
	if ids, ok := diffIDs[name]; ok {
		p.Identifier = g.pick(ids)
	}
	if fuzzGenerations[name] {
		p.Generation = strconv.Itoa(1 + g.r.IntN(3))
	}
	if vs, ok := fuzzEnums[name]; ok {
		p.Value = g.pick(vs)
	}
	if vs, ok := fuzzEnumSets[name]; ok {
		if name == "requestedCapabilitiesSubsetOf" || name == "requestedCapabilitiesInclude" || name == "intendedCapabilitiesInclude" {
			vs = diffCaps
		}
		if name == "requestedResourcesSubsetOf" || name == "requestedResourcesInclude" {
			vs = diffResources[:4]
		}
		p.Values = g.subset(vs, 3)
	}
	switch name {
	case "maximumInfluenceCount":
		p.Count = strconv.Itoa(g.r.IntN(5))
	case "maximumIntentAge", "maximumContextAge":
		p.Seconds = strconv.Itoa(g.r.IntN(300))
	case "evaluationTimeWithin":
		a := g.r.IntN(1000)
		b := a + g.r.IntN(200)
		p.Window = &policy.WindowDraft{IssuedAt: strconv.Itoa(a), NotBefore: strconv.Itoa(b), ExpiresAt: strconv.Itoa(b + 1 + g.r.IntN(300))}
	}
	return p
}

// diffCaps are the Capabilities of the test Host ceiling.
var diffCaps = []string{"communication.external", "data.read", "data.write", "financial.transfer", "resource.delete"}

func (g diffGen) condition(depth int) policy.ConditionDraft {
	switch k := g.r.IntN(10); {
	case k < 2 && depth < 4:
		return policy.ConditionDraft{All: g.children(depth)}
	case k < 4 && depth < 4:
		return policy.ConditionDraft{Any: g.children(depth)}
	default:
		return policy.ConditionDraft{Predicate: g.predicate(g.pick(fuzzPreds))}
	}
}

func (g diffGen) children(depth int) []policy.ConditionDraft {
	cs := make([]policy.ConditionDraft, 1+g.r.IntN(4))
	for i := range cs {
		cs[i] = g.condition(depth + 1)
	}
	return cs
}

// root is a rule condition. Half of them are an all that requires an exact
// tool, tenant or subject (what the indexes use), beside other children.
func (g diffGen) root() policy.ConditionDraft {
	if g.r.IntN(2) == 0 {
		return g.condition(1)
	}
	cs := g.children(1)
	for _, k := range []string{"exactToolID", "exactTenant", "exactSubject"} {
		if g.r.IntN(2) == 0 {
			cs = append(cs, policy.ConditionDraft{Predicate: g.predicate(k)})
		}
	}
	return policy.ConditionDraft{All: cs}
}

func (g diffGen) rule(i int) policy.RuleDraft {
	effect := g.pick([]string{"allow", "allow", "allow", "requireConfirmation", "deny", "deny"})
	r := policy.RuleDraft{ID: "r" + twoDigits(i), Effect: effect, Reason: g.pick(fuzzReasons), Condition: g.root()}
	if r.Effect != "deny" {
		r.Scope = &policy.ScopeDraft{Capabilities: []string{}, Resources: []string{}}
		if g.r.IntN(8) != 0 {
			r.Scope.Capabilities = g.subset(diffCaps, 5)
		}
		if g.r.IntN(8) != 0 {
			r.Scope.Resources = g.subset(diffResources[:4], 4)
		}
	}
	for range g.r.IntN(3) {
		o := policy.ObligationDraft{Kind: g.pick(tokens(vocab.AllObligationKind()))}
		switch o.Kind {
		case "maximumEvaluationAgeSeconds":
			o.Seconds = strconv.Itoa(1 + g.r.IntN(3))
		case "requireCompleteInfluenceBoundary":
			o.Boundary = g.pick(diffIDs["exactInfluenceBoundary"])
		}
		if !slices.ContainsFunc(r.Obligations, func(p policy.ObligationDraft) bool { return p == o }) {
			r.Obligations = append(r.Obligations, o)
		}
	}
	return r
}

// draft is one snapshot of one active policy "p" of 1–24 rules.
func (g diffGen) draft() policy.SnapshotDraft {
	lifecycle := g.pick([]string{"active", "deprecated"}) // drawn first: the golden Decisions depend on the order of draws
	return g.draftOf(lifecycle, 1+g.r.IntN(12)+g.r.IntN(2)*g.r.IntN(13))
}

func (g diffGen) draftOf(lifecycle string, rules int) policy.SnapshotDraft {
	def := policy.DefinitionDraft{ID: "p", Generation: "1", Lifecycle: lifecycle}
	for i := range rules {
		def.Rules = append(def.Rules, g.rule(i))
	}
	return policy.SnapshotDraft{ID: "snap", Generation: "1", Policies: []policy.DefinitionDraft{def}}
}

// largeDraft is one snapshot of one policy of 65–128 rules, so that rule
// sets span two words: one rule in 64 drawn as rule draws it, the
// others from predicates that are never indeterminate, mostly non-deny
// (128 rules drawn by rule would almost always hold an indeterminate or
// matching deny rule, and every Decision would be a deny).
func (g diffGen) largeDraft() policy.SnapshotDraft {
	d := g.draftOf(g.pick([]string{"active", "deprecated"}), 0)
	for i := range 65 + g.r.IntN(64) {
		r := g.rule(i)
		if g.r.IntN(64) != 0 {
			r.Condition = g.plainCondition()
			if r.Effect == "deny" && g.r.IntN(16) != 0 {
				r.Effect = "allow"
			}
			if r.Effect != "deny" && (r.Scope == nil || g.r.IntN(4) != 0) {
				r.Scope = &policy.ScopeDraft{Capabilities: diffCaps, Resources: diffResources[:4]}
			}
		}
		d.Policies[0].Rules = append(d.Policies[0].Rules, r)
	}
	return d
}

// plainPredicates are never indeterminate.
var plainPredicates = []string{"exactToolID", "exactTenant", "exactSubject", "riskIs", "sideEffectIs",
	"requestedCapabilitiesSubsetOf", "requestedCapabilitiesInclude", "requestedResourcesSubsetOf"}

// plainCondition is an all of one to three distinct plain predicates, or
// an any of them.
func (g diffGen) plainCondition() policy.ConditionDraft {
	var cs []policy.ConditionDraft
	for _, i := range g.r.Perm(len(plainPredicates))[:1+g.r.IntN(3)] {
		cs = append(cs, policy.ConditionDraft{Predicate: g.predicate(plainPredicates[i])})
	}
	if g.r.IntN(3) == 0 {
		return policy.ConditionDraft{Any: cs}
	}
	return policy.ConditionDraft{All: cs}
}

func enumOf[T ~uint8](g diffGen, all []T) T {
	if g.r.IntN(20) == 0 {
		return 0 // an invalid value: predicates must fail closed identically
	}
	return all[g.r.IntN(len(all))]
}

func enumsOf[T ~uint8](g diffGen, all []T) []T {
	var out []T
	for range g.r.IntN(4) {
		out = append(out, enumOf(g, all))
	}
	return out
}

// facts draws one input from the same vocabularies.
func (g diffGen) facts(base *facts) *facts {
	f := *base
	f.toolID = must(ident.ParseToolID(g.pick(diffIDs["exactToolID"])))
	f.definitionID = must(ident.ParseDefinitionID(g.pick(diffIDs["exactDefinitionID"])))
	f.registryID = must(ident.ParseSnapshotID(g.pick(diffIDs["exactRegistrySnapshot"])))
	f.toolVersion, f.registryGen, f.renewal = gen(uint64(1+g.r.IntN(3))), gen(uint64(1+g.r.IntN(3))), gen(uint64(1+g.r.IntN(3)))
	pd := principal.Draft{Subject: g.pick(diffIDs["exactSubject"])}
	if g.r.IntN(5) != 0 {
		pd.Tenant = g.pick(diffIDs["exactTenant"])
	}
	if g.r.IntN(8) == 0 {
		pd.SessionIndependent = true
	} else {
		pd.Session = g.pick(diffIDs["exactSession"])
	}
	if g.r.IntN(4) != 0 {
		pd.Delegation = g.pick(diffIDs["exactDelegationID"])
	}
	f.identity = identity(pd)
	f.lifecycle = enumOf(g, vocab.AllLifecycle())
	f.risk = enumOf(g, vocab.AllRisk())
	f.sideEffect = enumOf(g, vocab.AllSideEffect())
	f.reversibility = enumOf(g, vocab.AllReversibility())
	f.assurance = enumOf(g, vocab.AllAssurance())
	f.methods = enumsOf(g, vocab.AllAuthMethod())
	f.requested = enumsOf(g, vocab.AllCapability())
	f.intended = enumsOf(g, vocab.AllCapability())
	f.hostCaps = enumsOf(g, vocab.AllCapability())
	f.requestedRes, f.hostRes = nil, nil
	for range g.r.IntN(4) { // any order, duplicates possible
		f.requestedRes = append(f.requestedRes, res(g.pick(diffResources)))
	}
	for range g.r.IntN(6) {
		f.hostRes = append(f.hostRes, res(g.pick(diffResources)))
	}
	f.coverage = vocab.CoverageRepresented
	if g.r.IntN(6) == 0 {
		f.coverage = enumOf(g, vocab.AllProvenanceCoverage())
	}
	f.records = nil
	for range 1 + g.r.IntN(2) - g.r.IntN(8)/7 {
		f.records = append(f.records, evalinput.ProvenanceFact{
			Source: enumOf(g, vocab.AllProvenanceSource()), Trust: enumOf(g, vocab.AllTrust()),
			Transformations: enumsOf(g, vocab.AllTransformation()),
		})
	}
	f.collections = nil
	bs := diffIDs["exactInfluenceBoundary"]
	if g.r.IntN(6) == 0 {
		bs = g.subset(bs, 3)
		bs = bs[:min(len(bs), g.r.IntN(3))]
	}
	for _, b := range bs {
		f.collections = append(f.collections, evalinput.InfluenceCollectionFact{Boundary: cid(b), Completeness: enumOf(g, vocab.AllCompleteness())})
	}
	slices.SortFunc(f.collections, func(a, b evalinput.InfluenceCollectionFact) int { return a.Boundary.Compare(b.Boundary) })
	f.kinds = enumsOf(g, vocab.AllInfluenceKind())
	f.now = at(uint64(800 + g.r.IntN(400)))
	f.intentAt = at(uint64(700 + g.r.IntN(250) + g.r.IntN(8)/7*400))
	f.contextAt = at(uint64(700 + g.r.IntN(250) + g.r.IntN(8)/7*400))
	return &f
}

// decisionView is a complete Decision as comparable values.
type decisionView struct {
	Outcome      string
	Reasons      []string
	Matched      []string
	Obligations  []string
	Capabilities []string
	Resources    []string
	Digest       string
}

func viewOf(d *policy.Decision) decisionView {
	v := decisionView{Outcome: d.Outcome().String(), Digest: d.Digest().String()}
	for _, r := range d.Reasons() {
		v.Reasons = append(v.Reasons, r.String())
	}
	for _, m := range d.MatchedRules() {
		v.Matched = append(v.Matched, m.String())
	}
	for _, o := range d.Obligations() {
		v.Obligations = append(v.Obligations, o.Key())
	}
	for _, c := range d.Capabilities() {
		v.Capabilities = append(v.Capabilities, c.String())
	}
	for _, r := range d.Resources() {
		v.Resources = append(v.Resources, r.String())
	}
	return v
}

// indexAccessorsAgree checks the Decision's index and membership accessors
// against its copying accessors: the Decision holds its lists as sets over
// the definition, and both kinds of accessor expand them.
func indexAccessorsAgree(d *policy.Decision) string {
	rs := d.Resources()
	if d.NumResources() != len(rs) {
		return "NumResources differs from len(Resources)"
	}
	for i, r := range rs {
		if d.ResourceAt(i) != r || !d.HasResource(r) {
			return "ResourceAt or HasResource differs from Resources"
		}
	}
	for _, name := range diffResources {
		if d.HasResource(res(name)) != slices.Contains(rs, res(name)) {
			return "HasResource(" + name + ") differs from Resources"
		}
	}
	caps := d.Capabilities()
	if d.NumCapabilities() != len(caps) {
		return "NumCapabilities differs from len(Capabilities)"
	}
	for _, c := range vocab.AllCapability() {
		if d.HasCapability(c) != slices.Contains(caps, c) {
			return "HasCapability(" + c.String() + ") differs from Capabilities"
		}
	}
	os := d.Obligations()
	if d.NumObligations() != len(os) {
		return "NumObligations differs from len(Obligations)"
	}
	for i, o := range os {
		if d.ObligationAt(i).Key() != o.Key() {
			return "ObligationAt differs from Obligations"
		}
	}
	if !slices.IsSortedFunc(d.MatchedRules(), ident.PolicyID.Compare) || len(d.Reasons()) == 0 {
		return "matched rules out of order, or no reason"
	}
	return ""
}

// diffStats counts what a run covered, so that the test fails if the
// generator stops reaching a case.
type diffStats struct {
	pairs, compiled int
	beyond64        int // Decisions matching a rule at position 64 or later
	outcomes        map[string]int
	reasons         map[string]int
}

// differential publishes policies drawn from seed and compares both
// evaluators on inputs drawn from the same seed.
func differential(t *testing.T, e env, seed uint64, inputs int, st *diffStats) {
	t.Helper()
	differentialOf(t, e, seed, inputs, st, diffGen.draft)
}

// differentialOf is differential with the policies draft draws.
func differentialOf(t *testing.T, e env, seed uint64, inputs int, st *diffStats, draft func(diffGen) policy.SnapshotDraft) {
	t.Helper()
	g := diffGen{r: rand.New(rand.NewPCG(seed, 0x70_6f_6c_69_63_79))}
	s, err := policy.Publish(e.admin, draft(g))
	if err != nil {
		return // a generated duplicate child or rule; drawn again by the next seed
	}
	if policy.Compiled(s, 0) {
		st.compiled++
	}
	sel := selection(s, "p", 1)
	base := baseFacts(e.b)
	for i := range inputs {
		in := g.facts(base)
		got, err := policy.EvaluateFacts(in, s, sel, "decision-1")
		if err != nil {
			t.Fatalf("seed %d input %d: Evaluate: %v", seed, i, err)
		}
		want, err := policy.EvaluateFactsReference(in, s, sel, "decision-1")
		if err != nil {
			t.Fatalf("seed %d input %d: reference: %v", seed, i, err)
		}
		if diff := cmp.Diff(viewOf(want), viewOf(got)); diff != "" || !want.Equal(got) {
			t.Fatalf("seed %d input %d: compiled Decision differs from the reference (-reference +compiled):\n%s", seed, i, diff)
		}
		for name, d := range map[string]*policy.Decision{"compiled": got, "reference": want} {
			if err := indexAccessorsAgree(d); err != "" {
				t.Fatalf("seed %d input %d: %s Decision: %s", seed, i, name, err)
			}
		}
		st.pairs++
		if m := got.MatchedRules(); len(m) > 0 && slices.IndexFunc(definitionRules(s.Policy(0)), func(r *policy.Rule) bool { return r.ID() == m[len(m)-1] }) >= 64 {
			st.beyond64++
		}
		st.outcomes[got.Outcome().String()]++
		for _, r := range got.Reasons() {
			st.reasons[r.String()]++
		}
	}
}

// TestCompiledEvaluatorMatchesReference compares complete Decisions of the
// compiled and the reference evaluator on 100,000 seeded (policy, input)
// pairs: the first 2,000 seeds whose random policy of 1–24 rules publishes
// (a draw may repeat a compound child, which publication rejects) × 50
// random inputs each, every
// predicate kind, invalid vocabulary values and every indeterminate case.
// Under the race detector (make test) it compares the first 20,000 pairs.
// FuzzCompiledEvaluator runs the same comparison on fuzzed seeds, 20 inputs
// per seed (make test-fuzz: about 2,000 seeds a second).
func TestCompiledEvaluatorMatchesReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := &diffStats{outcomes: map[string]int{}, reasons: map[string]int{}}
	policies := 2000
	if raceDetector {
		policies = 400 // make test's short run: 20,000 pairs
	}
	for seed := uint64(0); st.compiled < policies && seed < 4000; seed++ {
		differential(t, e, seed, 50, st)
	}
	if st.pairs != policies*50 || st.compiled*50 != st.pairs {
		t.Fatalf("compared %d pairs, %d of %d policies compiled", st.pairs, st.compiled, st.pairs/50)
	}
	// Every outcome and every reason the evaluator produces from rules was
	// reached, the indeterminate one included.
	for _, o := range []string{"allow", "deny", "requireConfirmation"} {
		if st.outcomes[o] == 0 {
			t.Errorf("no %s Decision in the run", o)
		}
	}
	for _, r := range []string{"conditionIndeterminate", "denyRuleMatched", "confirmationRuleMatched", "allowRuleMatched",
		"noAllowRuleMatched", "capabilityNotPermitted", "resourceNotPermitted"} {
		if st.reasons[r] == 0 {
			t.Errorf("no Decision with reason %s in the run", r)
		}
	}
	t.Logf("%d pairs; outcomes %v; reasons %v", st.pairs, st.outcomes, st.reasons)
}

// FuzzCompiledEvaluator is the long run of the differential test: each
// fuzzed seed draws one policy and 20 inputs.
func FuzzCompiledEvaluator(f *testing.F) {
	for _, seed := range []uint64{0, 1, 7, 1 << 40} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		e := newEnv(t)
		differential(t, e, seed, 20, &diffStats{outcomes: map[string]int{}, reasons: map[string]int{}})
	})
}

// TestCompiledEvaluatorMatchesReferenceBeyond64Rules is the differential
// test on policies of 65–128 rules, whose rule sets span both words (the
// columns, indexes and matched sets of the second word): 100 published
// policies × 20 inputs.
func TestCompiledEvaluatorMatchesReferenceBeyond64Rules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := &diffStats{outcomes: map[string]int{}, reasons: map[string]int{}}
	for seed := uint64(0); st.compiled < 100 && seed < 20000; seed++ {
		differentialOf(t, e, seed, 20, st, diffGen.largeDraft)
	}
	if st.compiled < 100 || st.pairs != st.compiled*20 {
		t.Fatalf("compared %d pairs, %d policies compiled", st.pairs, st.compiled)
	}
	if st.beyond64 < st.pairs/4 {
		t.Errorf("only %d of %d Decisions match a rule at position 64 or later", st.beyond64, st.pairs)
	}
	// With a hundred rules some match with each effect, so an allow is
	// rare; the outcomes' resolution is TestCompiledEvaluatorMatchesReference's.
	for _, o := range []string{"deny", "requireConfirmation"} {
		if st.outcomes[o] == 0 {
			t.Errorf("no %s Decision in the run", o)
		}
	}
	t.Logf("%d pairs; outcomes %v; reasons %v", st.pairs, st.outcomes, st.reasons)
}
