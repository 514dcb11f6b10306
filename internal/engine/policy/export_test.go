package policy

import (
	"reflect"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Facts is the evaluation view that Evaluate reads from an
// *evalinput.Input. It is exported to this package's tests only, so that
// predicate semantics can be tested over facts that no engine-built input
// could hold (an unknown version, an invalid token); production code cannot
// name it.
type Facts = facts

// EvaluateFacts is Evaluate over test-built facts. Its Decisions have no
// Input.
func EvaluateFacts(in Facts, snap *Snapshot, sel Selection, decisionID string) (*Decision, error) {
	return evaluate(in, snap, sel, decisionID, false)
}

// EvaluateFactsReference is EvaluateFacts with the reference evaluator,
// whatever compiled form the selected definition carries.
func EvaluateFactsReference(in Facts, snap *Snapshot, sel Selection, decisionID string) (*Decision, error) {
	return evaluate(in, snap, sel, decisionID, true)
}

// Compiled reports whether definition i of s carries a compiled form.
func Compiled(s *Snapshot, i int) bool { return s.defs[i].compiled != nil }

// SameContent is the Decision content comparison Reproduces uses.
func SameContent(a, b *Decision) bool { return a.sameContent(b) }

// DecisionContentFields lists the fields of Decision that hold content (all
// but the digest itself).
func DecisionContentFields() []string {
	var out []string
	t := reflect.TypeFor[Decision]()
	for i := range t.NumField() {
		switch n := t.Field(i).Name; n {
		case "digest":
		default:
			out = append(out, n)
		}
	}
	return out
}

// flippedDigest is facts with another digest.
type flippedDigest struct {
	facts
	d digest.Digest
}

func (f flippedDigest) Digest() digest.Digest { return f.d }

// DecisionVariants returns, for every content field of d, a copy of d that
// differs from d in that field only, with its digest computed again. other
// is a domain other than d's. The matched rules and the Resource scope are
// positions in the definition: for a Decision without one (a missing
// policy), their variants also bind a definition of the snapshot.
func DecisionVariants(d *Decision, other boundary.Domain) map[string]*Decision {
	variant := func(f func(*Decision)) *Decision {
		c := &Decision{
			input: d.input, snapshot: d.snapshot, policy: d.policy, domain: d.domain, id: d.id,
			selection: d.selection, obligations: slices.Clone(d.obligations), matched: d.matched,
			resources: d.resources, capabilities: d.capabilities, reasons: d.reasons,
			version: d.version, outcome: d.outcome,
		}
		f(c)
		return c
	}
	withPolicy := func(c *Decision) {
		for _, p := range c.snapshot.defs {
			if c.policy == nil && len(p.scopeResources) > 0 {
				c.policy = p
			}
		}
	}
	otherID, _ := ident.ParsePolicyID("zz-other")
	otherGen, _ := ident.ParseGeneration("999")
	flip := func(x digest.Digest) digest.Digest { x[0] ^= 1; return x }
	extra, _ := newObligation(ObligationDraft{Kind: "maximumEvaluationAgeSeconds", Seconds: "7"})
	return map[string]*Decision{
		"id":      variant(func(c *Decision) { c.id = otherID }),
		"version": variant(func(c *Decision) { c.version++ }),
		"input":   variant(func(c *Decision) { c.input = flippedDigest{c.input, flip(c.input.Digest())} }),
		"snapshot": variant(func(c *Decision) {
			s := *c.snapshot
			s.digest = flip(s.digest)
			c.snapshot = &s
		}),
		"policy": variant(func(c *Decision) {
			if c.policy == nil {
				c.policy = c.snapshot.defs[0]
				return
			}
			p := *c.policy
			p.digest = flip(p.digest)
			c.policy = &p
		}),
		"selection": variant(func(c *Decision) {
			sel := c.policySelection()
			sel.gen = otherGen
			c.selection = &sel
		}),
		"outcome":      variant(func(c *Decision) { c.outcome = (c.outcome + 1) % (vocab.Allow + 1) }),
		"capabilities": variant(func(c *Decision) { c.capabilities ^= bit(allCapabilities[0]) }),
		"resources":    variant(func(c *Decision) { withPolicy(c); c.resources ^= 1 }),
		"reasons":      variant(func(c *Decision) { c.reasons |= bit(vocab.ReasonPolicyLimitExceeded) }),
		"matched":      variant(func(c *Decision) { withPolicy(c); c.matched[0] ^= 1 }),
		"obligations":  variant(func(c *Decision) { c.obligations = append(c.obligations, extra) }),
		"domain":       variant(func(c *Decision) { c.domain = other }),
	}
}

// ScopeResources returns the definition's scope Resources (ASCII order):
// bit i of a Decision's Resource scope mask is position i here.
func ScopeResources(d *Definition) []ident.Resource { return d.scopeResources }
