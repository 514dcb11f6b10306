package policy_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// heldRegistry resolves exactly one Registry Snapshot.
type heldRegistry struct{ s *registry.Snapshot }

func (h heldRegistry) Registry(id, gen string) (*registry.Snapshot, error) {
	if h.s.ID().String() == id && h.s.Generation().String() == gen {
		return h.s, nil
	}
	return nil, fault.New(fault.NotFound, "not held")
}

var optIn = &policy.ArgumentsDraft{Vocabulary: argpred.Vocabulary, RegistryID: "primary-registry", RegistryGeneration: "1"}

func arg(name, path string, mod ...func(*policy.ArgumentDraft)) policy.ConditionDraft {
	a := &policy.ArgumentDraft{Name: name, Tool: "payments.submit", Version: "1", Path: path}
	for _, m := range mod {
		m(a)
	}
	return policy.ConditionDraft{Argument: a}
}

func val(v string) func(*policy.ArgumentDraft) { return func(a *policy.ArgumentDraft) { a.Value = v } }
func vals(v ...string) func(*policy.ArgumentDraft) {
	return func(a *policy.ArgumentDraft) { a.Values = v }
}
func scaled(s string) func(*policy.ArgumentDraft) {
	return func(a *policy.ArgumentDraft) { a.Scale = s }
}
func allArgs(cs ...policy.ConditionDraft) policy.ConditionDraft {
	return policy.ConditionDraft{All: cs}
}

func scopedRule(id, effect, reason string, c policy.ConditionDraft) policy.RuleDraft {
	r := policy.RuleDraft{ID: id, Effect: effect, Reason: reason, Condition: c}
	if effect != "deny" {
		r.Scope = &policy.ScopeDraft{Capabilities: []string{"data.read", "financial.transfer"}, Resources: []string{"acct-1001", "acct-2002"}}
	}
	return r
}

func argumentSnapshot(args *policy.ArgumentsDraft, rules ...policy.RuleDraft) policy.SnapshotDraft {
	return policy.SnapshotDraft{ID: "args-policy", Generation: "1", Policies: []policy.DefinitionDraft{
		{ID: "payments", Generation: "1", Lifecycle: "active", Arguments: args, Rules: rules},
	}}
}

var argumentSelection = policy.Selection{
	SnapshotID: mustPolicyID("args-policy"), SnapshotGeneration: mustGeneration(1),
	PolicyID: mustPolicyID("payments"), PolicyGeneration: mustGeneration(1),
}

func mustPolicyID(s string) ident.PolicyID {
	id, err := ident.ParsePolicyID(s)
	if err != nil {
		panic(err)
	}
	return id
}

func mustGeneration(n uint64) ident.Generation {
	g, err := ident.NewGeneration(n)
	if err != nil {
		panic(err)
	}
	return g
}

// decide publishes d with the argument opt-in resolved against the input's
// registry and evaluates the default input, or the one built from args.
func decide(t *testing.T, d policy.SnapshotDraft, args string) *policy.Decision {
	t.Helper()
	spec := testutil.DefaultInputSpec()
	if args != "" {
		spec.Proposal.Arguments = []byte(args)
	}
	f := testutil.BuildInput(t, boundary.New("args-host"), spec)
	in := f.New(t)
	s, err := policy.PublishWith(f.Admin, d, heldRegistry{f.Snapshot})
	if err != nil {
		t.Fatalf("PublishWith: %v", err)
	}
	dec, err := policy.Evaluate(in, s, argumentSelection, "decision-1")
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return dec
}

func TestArgumentPredicatesNeedTheOptIn(t *testing.T) {
	in, f := testutil.NewInput(t)
	_ = in
	regs := heldRegistry{f.Snapshot}
	rule := scopedRule("r", "allow", "allowRuleMatched", arg("integerAtMost", "/amount", val("1")))
	for _, c := range []struct {
		name     string
		args     *policy.ArgumentsDraft
		regs     policy.Registries
		wantPath string
		want     error
	}{
		{"no opt-in", nil, regs, "policies[0].rules[0].condition.argument", fault.ErrUnsupported},
		{"unknown vocabulary", &policy.ArgumentsDraft{Vocabulary: "toolgate.argument-predicates/2", RegistryID: "primary-registry", RegistryGeneration: "1"}, regs,
			"policies[0].arguments.vocabulary", fault.ErrUnsupported},
		{"registry not held", &policy.ArgumentsDraft{Vocabulary: argpred.Vocabulary, RegistryID: "primary-registry", RegistryGeneration: "2"}, regs,
			"policies[0].arguments.registry", fault.ErrNotFound},
		{"no registries at all", optIn, nil, "policies[0].arguments.registry", fault.ErrNotFound},
	} {
		_, err := policy.PublishWith(f.Admin, argumentSnapshot(c.args, rule), c.regs)
		found := false
		for _, e := range fault.All(err) {
			found = found || (e.Path == c.wantPath && e.Is(c.want))
		}
		if !found {
			t.Errorf("%s: got %v, want %v at %s", c.name, err, c.want, c.wantPath)
		}
	}
}

func TestArgumentPublicationReportsEveryBadPredicateAtOnce(t *testing.T) {
	_, f := testutil.NewInput(t)
	d := argumentSnapshot(optIn,
		scopedRule("a", "allow", "allowRuleMatched", allArgs(
			arg("integerAtMost", "/amounts", val("1")),       // not in the Schema
			arg("integerAtMost", "/memo", val("1")),          // wrong kind
			arg("stringIn", "/currency", vals("eur", "chf")), // not a declared case
		)),
		scopedRule("b", "allow", "allowRuleMatched", arg("pathWithin", "/memo", func(a *policy.ArgumentDraft) { a.Root = "/x/../y" })),
	)
	_, err := policy.PublishWith(f.Admin, d, heldRegistry{f.Snapshot})
	testutil.CheckFaultList(t, err, []string{
		"policies[0].rules[0].condition.all[0].argument.path notFound",
		"policies[0].rules[0].condition.all[1].argument.path kindMismatch",
		"policies[0].rules[0].condition.all[2].argument.values[1] notFound",
		"policies[0].rules[1].condition.argument.root malformed",
	})
}

func TestArgumentPredicatesDecide(t *testing.T) {
	allowWhen := func(cs ...policy.ConditionDraft) policy.SnapshotDraft {
		return argumentSnapshot(optIn, scopedRule("pay", "allow", "allowRuleMatched",
			allArgs(append([]policy.ConditionDraft{{Predicate: &policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}}}, cs...)...)))
	}
	noMemo := strings.Replace(testutil.PaymentsArguments, `"memo":"Invoice 2026-114, thank you",`, "", 1)
	for _, c := range []struct {
		name    string
		d       policy.SnapshotDraft
		args    string
		outcome vocab.Effect
		reason  vocab.Reason
	}{
		{"within the bound", allowWhen(arg("integerAtMost", "/amount", val("125.00"), scaled("2")), arg("stringIn", "/currency", vals("eur"))), "", vocab.Allow, vocab.ReasonAllowRuleMatched},
		{"over the bound", allowWhen(arg("integerAtMost", "/amount", val("124.99"), scaled("2"))), "", vocab.Deny, vocab.ReasonNoAllowRuleMatched},
		{"every element", allowWhen(arg("stringHasPrefix", "/invoice-refs/*", val("inv-2026-"))), "", vocab.Allow, vocab.ReasonAllowRuleMatched},
		{"absent optional field", allowWhen(arg("octetLengthAtMost", "/memo", val("100"))), noMemo, vocab.Deny, vocab.ReasonConditionIndeterminate},
		{"absent under any", argumentSnapshot(optIn, scopedRule("pay", "allow", "allowRuleMatched", policy.ConditionDraft{Any: []policy.ConditionDraft{
			{Predicate: &policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}}, arg("octetLengthAtMost", "/memo", val("100")),
		}})), noMemo, vocab.Deny, vocab.ReasonConditionIndeterminate},
	} {
		dec := decide(t, c.d, c.args)
		if dec.Outcome() != c.outcome || !hasReason(dec, c.reason) {
			t.Errorf("%s: got %v %v, want %v with %v", c.name, dec.Outcome(), dec.Reasons(), c.outcome, c.reason)
		}
	}
}

func hasReason(d *policy.Decision, r vocab.Reason) bool {
	for _, x := range d.Reasons() {
		if x == r {
			return true
		}
	}
	return false
}

func TestArgumentPredicatesKeepPrecedence(t *testing.T) {
	allow := scopedRule("allow-all", "allow", "allowRuleMatched", policy.ConditionDraft{Predicate: &policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}})
	big := arg("integerAtLeast", "/amount", val("10000"))
	for _, c := range []struct {
		name string
		rule policy.RuleDraft
		want vocab.Effect
	}{
		{"deny over allow", scopedRule("big", "deny", "denyRuleMatched", big), vocab.Deny},
		{"requireConfirmation over allow", scopedRule("big", "requireConfirmation", "confirmationRuleMatched", big), vocab.RequireConfirmation},
		{"an unmatched deny changes nothing", scopedRule("big", "deny", "denyRuleMatched", arg("integerAtLeast", "/amount", val("12501"))), vocab.Allow},
	} {
		if got := decide(t, argumentSnapshot(optIn, allow, c.rule), "").Outcome(); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestArgumentPredicateChangesDigests(t *testing.T) {
	d := func(bound string) *policy.Decision {
		return decide(t, argumentSnapshot(optIn, scopedRule("pay", "allow", "allowRuleMatched", arg("integerAtMost", "/amount", val(bound)))), "")
	}
	a, b := d("20000"), d("20001")
	if a.Outcome() != vocab.Allow || b.Outcome() != vocab.Allow {
		t.Fatalf("outcomes %v %v", a.Outcome(), b.Outcome())
	}
	switch {
	case a.Policy().Digest().Equal(b.Policy().Digest()):
		t.Error("definitions differing in an argument operand have one digest")
	case a.Snapshot().Digest().Equal(b.Snapshot().Digest()):
		t.Error("snapshots differing in an argument operand have one digest")
	case a.Digest().Equal(b.Digest()):
		t.Error("Decisions over policies differing in an argument operand have one digest")
	}
	// The same content is the same digest (deterministic).
	if c := d("20000"); !c.Policy().Digest().Equal(a.Policy().Digest()) {
		t.Error("the same argument predicate gave two definition digests")
	}
}

func TestNoOptInPublishesIdentically(t *testing.T) {
	_, f := testutil.NewInput(t)
	d := argumentSnapshot(nil, scopedRule("pay", "allow", "allowRuleMatched", policy.ConditionDraft{Predicate: &policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}}))
	plain := testutil.Must[*policy.Snapshot](t)(policy.Publish(f.Admin, d))
	with := testutil.Must[*policy.Snapshot](t)(policy.PublishWith(f.Admin, d, heldRegistry{f.Snapshot}))
	if !plain.Digest().Equal(with.Digest()) || !policy.Compiled(with, 0) {
		t.Fatal("a definition without the opt-in publishes differently when registries are given")
	}
	if _, _, _, ok := with.Policy(0).ArgumentVocabulary(); ok {
		t.Fatal("a definition without the opt-in reports an argument vocabulary")
	}
	opted := testutil.Must[*policy.Snapshot](t)(policy.PublishWith(f.Admin, argumentSnapshot(optIn, d.Policies[0].Rules...), heldRegistry{f.Snapshot}))
	if opted.Digest().Equal(plain.Digest()) {
		t.Fatal("the opt-in is not part of the content")
	}
	if v, reg, gen, ok := opted.Policy(0).ArgumentVocabulary(); !ok || v != argpred.Vocabulary || reg.String() != "primary-registry" || gen.Uint64() != 1 {
		t.Fatalf("ArgumentVocabulary = %v %v %v %v", v, reg, gen, ok)
	}
}

func TestExplainShowsArgumentPredicatesInTheManifestsWords(t *testing.T) {
	spec := testutil.DefaultInputSpec()
	f := testutil.BuildInput(t, boundary.New("args-host"), spec)
	in := f.New(t)
	s := testutil.Must[*policy.Snapshot](t)(policy.PublishWith(f.Admin, argumentSnapshot(optIn,
		scopedRule("pay", "allow", "allowRuleMatched", allArgs(
			arg("integerAtMost", "/amount", val("1000.00"), scaled("2")),
			arg("stringIn", "/currency", vals("usd", "eur")),
		))), heldRegistry{f.Snapshot}))
	rules, err := policy.Explain(in, s, argumentSelection)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rules[0].Predicates {
		got = append(got, p.String()+" "+p.Result.String())
	}
	want := []string{
		"{name: integerAtMost, tool: payments.submit, version: 1, path: /amount, value: 100000} matched",
		"{name: stringIn, tool: payments.submit, version: 1, path: /currency, values: [eur, usd]} matched",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("explanation:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, g := range got {
		if strings.Contains(g, "12500") {
			t.Fatal("the explanation echoes an argument value")
		}
	}
}

func TestArgumentPredicateWithoutARequestIsIndeterminate(t *testing.T) {
	_, f := testutil.NewInput(t)
	s := testutil.Must[*policy.Snapshot](t)(policy.PublishWith(f.Admin, argumentSnapshot(optIn,
		scopedRule("pay", "allow", "allowRuleMatched", arg("integerAtMost", "/amount", val("1")))), heldRegistry{f.Snapshot}))
	dec, err := policy.EvaluateFacts(baseFacts(f.Boundary), s, argumentSelection, "decision-1")
	if err != nil {
		t.Fatal(err)
	}
	if dec.Outcome() != vocab.Deny || !hasReason(dec, vocab.ReasonConditionIndeterminate) {
		t.Fatalf("got %v %v", dec.Outcome(), dec.Reasons())
	}
}

// BenchmarkEvaluateArgumentPredicates measures one Evaluate of a rule with
// three argument predicates (reference evaluator) beside the same rule
// without them (compiled evaluator).
func BenchmarkEvaluateArgumentPredicates(b *testing.B) {
	f := testutil.BuildInput(b, boundary.New("args-host"), testutil.DefaultInputSpec())
	in := f.New(b)
	tool := policy.ConditionDraft{Predicate: &policy.PredicateDraft{Name: "exactToolID", Identifier: "payments.submit"}}
	for _, c := range []struct {
		name string
		d    policy.SnapshotDraft
	}{
		{"phase1-6", argumentSnapshot(nil, scopedRule("pay", "allow", "allowRuleMatched", tool))},
		{"arguments", argumentSnapshot(optIn, scopedRule("pay", "allow", "allowRuleMatched", allArgs(tool,
			arg("integerAtMost", "/amount", val("1000.00"), scaled("2")),
			arg("stringIn", "/currency", vals("eur")),
			arg("stringHasPrefix", "/invoice-refs/*", val("inv-2026-")))))},
	} {
		s := testutil.Must[*policy.Snapshot](b)(policy.PublishWith(f.Admin, c.d, heldRegistry{f.Snapshot}))
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := policy.Evaluate(in, s, argumentSelection, "decision-1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
