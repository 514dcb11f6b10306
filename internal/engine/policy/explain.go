package policy

import (
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Match is the three-valued result of one condition (Section 20).
type Match uint8

// The three condition results.
const (
	NotMatched Match = 1 + iota
	Matched
	Indeterminate
)

// String returns notMatched, matched or indeterminate.
func (m Match) String() string {
	switch m {
	case NotMatched:
		return "notMatched"
	case Matched:
		return "matched"
	case Indeterminate:
		return "indeterminate"
	default:
		return "invalid"
	}
}

func matchOf(r result) Match {
	switch r {
	case matched:
		return Matched
	case indeterminate:
		return Indeterminate
	default:
		return NotMatched
	}
}

// RuleResult is one rule's result in an explained evaluation: the rule, its
// condition's result and the result of every predicate in it, in Section 50
// key order.
type RuleResult struct {
	Rule       ident.PolicyID
	Effect     vocab.Effect
	Reason     vocab.Reason
	Result     Match
	Predicates []PredicateResult
}

// PredicateResult is one predicate's result: the predicate as a policy
// author writes it (Draft: the Section 48 tokens and the published operand
// in normalized form, never input content) and its result.
//
// For an argument predicate Predicate is 0 and Argument holds it, in the
// same normalized words (integers in the field's unit).
type PredicateResult struct {
	Predicate vocab.Predicate
	Draft     PredicateDraft
	Argument  *ArgumentDraft
	Result    Match
}

// Name returns the predicate token: a Section 48 token, or an
// argument-predicate token (docs/policy-arguments.md).
func (p PredicateResult) Name() string {
	if p.Argument != nil {
		return p.Argument.Name
	}
	return p.Predicate.String()
}

// Operand returns the operand in the words of a PolicySnapshot manifest,
// for example "value: financial" or "values: [acct-1001, acct-2002]"; empty
// for a predicate without one. An argument predicate's starts with its
// tool, version and path: "tool: files.write, version: 1, path: /path,
// root: /workspace".
func (p PredicateResult) Operand() string {
	var parts []string
	add := func(key, v string) {
		if v != "" {
			parts = append(parts, key+": "+v)
		}
	}
	list := func(key string, vs []string) {
		if len(vs) > 0 {
			parts = append(parts, key+": ["+strings.Join(vs, ", ")+"]")
		}
	}
	if a := p.Argument; a != nil {
		add("tool", a.Tool)
		add("version", a.Version)
		add("path", a.Path)
		add("value", a.Value)
		list("values", a.Values)
		add("root", a.Root)
		list("schemes", a.Schemes)
		list("hosts", a.Hosts)
		return strings.Join(parts, ", ")
	}
	d := &p.Draft
	add("identifier", d.Identifier)
	add("generation", d.Generation)
	add("value", d.Value)
	if len(d.Values) > 0 {
		parts = append(parts, "values: ["+strings.Join(d.Values, ", ")+"]")
	}
	add("count", d.Count)
	add("seconds", d.Seconds)
	if w := d.Window; w != nil {
		parts = append(parts, "window: {issuedAt: "+w.IssuedAt+", notBefore: "+w.NotBefore+", expiresAt: "+w.ExpiresAt+"}")
	}
	return strings.Join(parts, ", ")
}

// String returns the predicate as a manifest's flow mapping, for example
// "{name: sideEffectIs, value: financial}".
func (p PredicateResult) String() string {
	if op := p.Operand(); op != "" {
		return "{name: " + p.Name() + ", " + op + "}"
	}
	return "{name: " + p.Name() + "}"
}

// draft returns p in the vocabulary of its draft: the tokens of its closed
// operands (Section 48 order for sets), its identifiers exact, its numbers
// canonical decimal, its Resources in ASCII order.
func (p *predicate) draft() PredicateDraft {
	sig := signatures[p.name]
	d := PredicateDraft{Name: p.name.String()}
	switch sig.op {
	case opToolID, opDefinitionID, opControlled, opResource, opRegistry, opBoundaryCompleteness:
		d.Identifier = p.id
	}
	switch sig.op {
	case opGeneration, opRegistry:
		d.Generation = strconv.FormatUint(p.num, 10)
	case opEnum, opBoundaryCompleteness:
		d.Value = sig.vocab.token(p.enum)
	case opEnumSet, opCapabilitySet:
		for e := 1; e < 32; e++ {
			if p.mask&(1<<e) != 0 {
				d.Values = append(d.Values, sig.vocab.token(uint8(e)))
			}
		}
	case opResourceSet:
		for _, r := range p.resources {
			d.Values = append(d.Values, r.String())
		}
	case opCount:
		d.Count = strconv.FormatUint(p.num, 10)
	case opSeconds:
		d.Seconds = strconv.FormatUint(p.num, 10)
	case opWindow:
		d.Window = &WindowDraft{
			IssuedAt:  strconv.FormatUint(p.window.IssuedAt().Seconds(), 10),
			NotBefore: strconv.FormatUint(p.window.NotBefore().Seconds(), 10),
			ExpiresAt: strconv.FormatUint(p.window.ExpiresAt().Seconds(), 10),
		}
	}
	return d
}

// Explain evaluates every rule of the exactly selected Policy Definition
// against in and reports each rule's and each predicate's result. It is
// diagnostics for people reading a Decision; the Decision itself comes only
// from Evaluate. A selection that Evaluate would turn into a deny without
// evaluating rules (missing, unknown or retired policy) explains no rule.
func Explain(in *evalinput.Input, snap *Snapshot, sel Selection) ([]RuleResult, error) {
	switch {
	case in == nil:
		return nil, fault.At("input", fault.Missing, "evaluation needs a complete evaluation input")
	case snap == nil:
		return nil, fault.At("snapshot", fault.Missing, "evaluation needs an exactly selected policy snapshot")
	case sel.SnapshotID != snap.id || sel.SnapshotGeneration != snap.gen:
		return nil, fault.At("selection", fault.Mismatch, "the selection names the exact snapshot identity and generation evaluated")
	case !in.Domain().Same(snap.domain):
		return nil, fault.At("input", fault.MixedDomain, "the evaluation input and the policy snapshot are in one host domain")
	}
	def, _ := snap.find(sel.PolicyID, sel.PolicyGeneration)
	if def == nil || def.lifecycle == vocab.PolicyRetired {
		return []RuleResult{}, nil
	}
	v := newView(in)
	out := make([]RuleResult, 0, len(def.rules))
	for _, r := range def.rules {
		rr := RuleResult{Rule: r.id, Effect: r.effect, Reason: r.reason, Result: matchOf(r.condition.eval(v))}
		var walk func(c *Condition)
		walk = func(c *Condition) {
			if c.kind == vocab.ConditionPredicate {
				pr := PredicateResult{Predicate: c.pred.name, Result: matchOf(c.pred.eval(v))}
				if c.pred.arg != nil {
					a := c.pred.arg.Draft()
					pr.Argument = &a
				} else {
					pr.Draft = c.pred.draft()
				}
				rr.Predicates = append(rr.Predicates, pr)
				return
			}
			for _, ch := range c.children {
				walk(ch)
			}
		}
		walk(r.condition)
		out = append(out, rr)
	}
	return out, nil
}
