package policy

import (
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

// PredicateResult is one predicate's result: the predicate, its published
// operand in normalized text (never input content) and its result.
type PredicateResult struct {
	Predicate vocab.Predicate
	Operand   string
	Result    Match
}

// String returns predicate:operand, or the predicate alone.
func (p PredicateResult) String() string {
	if p.Operand == "" {
		return p.Predicate.String()
	}
	return p.Predicate.String() + ":" + p.Operand
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
				_, operand, _ := strings.Cut(c.pred.key, ":")
				rr.Predicates = append(rr.Predicates, PredicateResult{Predicate: c.pred.name, Operand: operand, Result: matchOf(c.pred.eval(v))})
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
