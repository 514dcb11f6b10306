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
// but the input pointer, which the input digest stands for, the digest
// itself and the inline storage of the collections).
func DecisionContentFields() []string {
	var out []string
	t := reflect.TypeFor[Decision]()
	for i := range t.NumField() {
		switch n := t.Field(i).Name; n {
		case "input", "digestOnce", "digest", "reasonBuf", "matchedBuf", "resourceBuf":
		default:
			out = append(out, n)
		}
	}
	return out
}

// DecisionVariants returns, for every content field of d, a copy of d that
// differs from d in that field only, with its digest computed again. other
// is a domain other than d's.
func DecisionVariants(d *Decision, other boundary.Domain) map[string]*Decision {
	variant := func(f func(*Decision)) *Decision {
		c := &Decision{
			id: d.id, version: d.version, input: d.input, inputDigest: d.inputDigest, snapshot: d.snapshot,
			policy: d.policy, selection: d.selection, outcome: d.outcome, capabilities: d.capabilities,
			resources: slices.Clone(d.resources), reasons: slices.Clone(d.reasons),
			matched: slices.Clone(d.matched), obligations: slices.Clone(d.obligations), domain: d.domain,
		}
		f(c)
		return c
	}
	otherID, _ := ident.ParsePolicyID("zz-other")
	otherGen, _ := ident.ParseGeneration("999")
	flip := func(x digest.Digest) digest.Digest { x[0] ^= 1; return x }
	extra, _ := newObligation(ObligationDraft{Kind: "maximumEvaluationAgeSeconds", Seconds: "7"})
	otherRes, _ := ident.ParseResource("zz-other-resource")
	return map[string]*Decision{
		"id":          variant(func(c *Decision) { c.id = otherID }),
		"version":     variant(func(c *Decision) { c.version++ }),
		"inputDigest": variant(func(c *Decision) { c.inputDigest = flip(c.inputDigest) }),
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
		"selection":    variant(func(c *Decision) { c.selection.PolicyGeneration = otherGen }),
		"outcome":      variant(func(c *Decision) { c.outcome = (c.outcome + 1) % (vocab.Allow + 1) }),
		"capabilities": variant(func(c *Decision) { c.capabilities ^= bit(allCapabilities[0]) }),
		"resources":    variant(func(c *Decision) { c.resources = append(c.resources, otherRes) }),
		"reasons":      variant(func(c *Decision) { c.reasons = append(c.reasons, vocab.ReasonPolicyLimitExceeded) }),
		"matched":      variant(func(c *Decision) { c.matched = append(c.matched, otherID) }),
		"obligations":  variant(func(c *Decision) { c.obligations = append(c.obligations, extra) }),
		"domain":       variant(func(c *Decision) { c.domain = other }),
	}
}
