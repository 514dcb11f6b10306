// Package argpred holds the argument predicates of the versioned policy
// extension toolgate.argument-predicates/1 (docs/policy-arguments.md):
// a closed vocabulary of deterministic predicates over the validated typed
// argument values of a Canonical Request (spec Section 10), addressed by
// field path and bound to the complete content of one Tool Definition.
//
// They are outside the closed Phase 1–6 vocabulary of Section 48: a Policy
// Definition opts in to them explicitly (package policy), and one that does
// not is evaluated exactly as Sections 20–22 say. Like a Section 20
// predicate each is three-valued; an absent optional field and a value its
// rule cannot read unambiguously are indeterminate, which denies (Section
// 21). Nothing is coerced or normalized (Section 10).
//
// [New] validates a [Draft] at publication against the tool's Schema and
// reports every violation with its path; [Predicate.Eval] is pure.
package argpred
