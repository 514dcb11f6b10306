package policy

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
