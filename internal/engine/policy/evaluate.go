package policy

import (
	"math/bits"
	"slices"
	"sync"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Selection names exactly one Snapshot generation and one Policy version in
// it. There is no ambient, current or latest selection.
type Selection struct {
	SnapshotID         ident.PolicyID
	SnapshotGeneration ident.Generation
	PolicyID           ident.PolicyID
	PolicyGeneration   ident.Generation
}

// Evaluate applies the complete Evaluation Input in to the exactly selected
// Policy Definition of snap (Section 21) and returns the complete Decision
// decisionID (Section 22). It is pure and deterministic and reads in and
// snap without modifying either.
//
// Structural misuse rejects with no Decision: a nil input or snapshot, a
// malformed decisionID (Policy identity grammar), a selection naming another
// snapshot identity or generation (fault.Mismatch), an input from another
// Host domain (fault.MixedDomain) or an input version other than v1
// (fault.Unsupported). A missing policy, unknown generation or retired
// policy is a complete deny Decision.
//
// Only an engine-built *evalinput.Input is accepted: a caller cannot supply
// facts of its own (Section 21, structural evaluator misuse).
func Evaluate(in *evalinput.Input, snap *Snapshot, sel Selection, decisionID string) (*Decision, error) {
	if in == nil {
		return nil, fault.At("input", fault.Missing, "evaluation needs a complete evaluation input")
	}
	return evaluate(in, snap, sel, decisionID, false)
}

// Reproduces evaluates the Decision d's exact selection of snap again, with
// d's identity, over in (Sections 23 and 30: issuance and Validation never
// trust a supplied outcome) and reports whether the result is d: the same
// Host domain and the same complete content, every value d's digest covers.
// The re-evaluated Decision is compared field by field and never hashed:
// it exists only for this comparison. The caller checks first that d is a
// Decision for exactly in and snap. A structural rejection is returned as
// by Evaluate.
func Reproduces(d *Decision, in *evalinput.Input, snap *Snapshot) (bool, error) {
	if d == nil {
		return false, fault.At("decision", fault.Missing, "a decision is required")
	}
	if in == nil {
		return false, fault.At("input", fault.Missing, "evaluation needs a complete evaluation input")
	}
	again := scratch.Get().(*Decision)
	defer func() {
		*again = Decision{} // nothing of this evaluation survives it
		scratch.Put(again)
	}()
	if _, err := evaluateWith(in, snap, d.Selection(), d.id.String(), false, again); err != nil {
		return false, err
	}
	return again.sameContent(d), nil
}

// scratch holds the Decisions Reproduces builds only to compare them: each
// is zeroed before it is returned and never leaves Reproduces.
var scratch = sync.Pool{New: func() any { return new(Decision) }}

// evaluate is Evaluate over the facts view; Evaluate is its only production
// caller. A selected definition is evaluated with its compiled form
// (compiled_eval.go) unless reference is set or it has none; the reference
// evaluator (Decision.evaluate below) is the straightforward reading of
// Sections 20 and 21 that the compiled form is tested against.
func evaluate(in facts, snap *Snapshot, sel Selection, decisionID string, reference bool) (*Decision, error) {
	return evaluateWith(in, snap, sel, decisionID, reference, nil)
}

// evaluateWith is evaluate; it builds the Decision in into when into is
// not nil.
func evaluateWith(in facts, snap *Snapshot, sel Selection, decisionID string, reference bool, into *Decision) (*Decision, error) {
	if in == nil {
		return nil, fault.At("input", fault.Missing, "evaluation needs a complete evaluation input")
	}
	if snap == nil {
		return nil, fault.At("snapshot", fault.Missing, "evaluation needs an exactly selected policy snapshot")
	}
	id, err := ident.ParsePolicyID(decisionID)
	if err != nil {
		return nil, fault.Within("decisionID", err)
	}
	if sel.SnapshotID != snap.id || sel.SnapshotGeneration != snap.gen {
		return nil, fault.At("selection", fault.Mismatch, "the selection names the exact snapshot identity and generation evaluated")
	}
	if !in.Domain().Same(snap.domain) {
		return nil, fault.At("input", fault.MixedDomain, "the evaluation input and the policy snapshot are in one host domain")
	}
	if in.Version() != vocab.V1 {
		return nil, fault.At("input.version", fault.Unsupported, "evaluation input version must be v1")
	}
	var d *Decision
	if into == nil {
		d = &Decision{
			input:    in,
			snapshot: snap,
			domain:   snap.domain,
			id:       id,
			version:  vocab.V1,
		}
	} else {
		// into is a zeroed scratch Decision (Reproduces): set the fields
		// one by one rather than copy a whole Decision over it.
		d = into
		d.input, d.snapshot, d.domain, d.id, d.version = in, snap, snap.domain, id, vocab.V1
	}
	def, idFound := snap.find(sel.PolicyID, sel.PolicyGeneration)
	if def == nil {
		d.selection = &policySelection{sel.PolicyID, sel.PolicyGeneration}
	}
	switch {
	case !idFound:
		d.deny(vocab.ReasonPolicyMissing)
	case def == nil:
		d.deny(vocab.ReasonPolicyUnknown)
	case def.lifecycle == vocab.PolicyRetired:
		d.policy = def
		d.deny(vocab.ReasonPolicyRetired)
	case def.compiled != nil && !reference:
		d.policy = def
		d.evaluateCompiled(def.compiled, in)
	default:
		d.policy = def
		d.evaluate(in)
	}
	return d, nil
}

// deny makes d a deny Decision with one outcome reason and nothing else.
func (d *Decision) deny(r vocab.Reason) {
	d.outcome = vocab.Deny
	d.reasons = bit(r) & reasonMask
}

// evaluate resolves d.policy against in: the reference evaluator, the
// straightforward reading of Sections 20 and 21. Its steps are those of
// Section 21 in order, one function each; evaluateCompiled takes the same
// steps under the same names with the suffix Compiled, so the two read side
// by side (and each step that reads the compiled form is independent code
// for the differential test). resolve and limit read only the Decision and
// the match, so both evaluators call them.
func (d *Decision) evaluate(in facts) {
	v := newView(in)
	m := d.match(v)
	reasons := d.resolve(m.indeterminate, m.effects)
	if d.outcome != vocab.Deny {
		if lost := d.constrain(v, m.rules); lost != 0 {
			d.outcome, reasons = vocab.Deny, lost
		}
	}
	d.collect(m.rules, m.set, reasons)
	d.limit()
}

// ruleMatches is what match finds: whether any rule is indeterminate, the
// effects of the matched rules, and the matched rules (identity order) as a
// list and as a set.
type ruleMatches struct {
	indeterminate bool
	effects       [vocab.Allow + 1]bool
	rules         []*Rule
	set           ruleSet
}

// match evaluates every rule of d.policy against v, in rule-identity
// order, with no short-circuit (Section 21, "Every rule is evaluated"): no
// early match can hide a later deny or indeterminate condition, and every
// match contributes its reason, identity and obligations.
func (d *Decision) match(v *view) (m ruleMatches) {
	for i, r := range d.policy.rules {
		switch r.condition.eval(v) {
		case indeterminate:
			m.indeterminate = true
		case matched:
			m.effects[r.effect] = true
			m.rules = append(m.rules, r)
			m.set.add(i)
		}
	}
	return m
}

// resolve sets d.outcome by the Section 21 resolution and returns its
// outcome reason:
//
//	any indeterminate condition, in a rule of any effect -> deny;
//	otherwise any matched deny                           -> deny;
//	otherwise any matched requireConfirmation            -> requireConfirmation;
//	otherwise any matched allow                          -> allow;
//	otherwise                                            -> deny.
//
// deny > requireConfirmation > allow; the default is deny.
func (d *Decision) resolve(anyIndeterminate bool, effects [vocab.Allow + 1]bool) uint32 {
	switch {
	case anyIndeterminate:
		d.outcome = vocab.Deny
		return bit(vocab.ReasonConditionIndeterminate)
	case effects[vocab.Deny]:
		d.outcome = vocab.Deny
		return bit(vocab.ReasonDenyRuleMatched)
	case effects[vocab.RequireConfirmation]:
		d.outcome = vocab.RequireConfirmation
		return bit(vocab.ReasonConfirmationRuleMatched)
	case effects[vocab.Allow]:
		d.outcome = vocab.Allow
		return bit(vocab.ReasonAllowRuleMatched)
	default:
		d.outcome = vocab.Deny
		return bit(vocab.ReasonNoAllowRuleMatched)
	}
}

// constrain computes the scope of a non-deny outcome: the requested scope,
// intersected with the Host Authority and with every matched non-deny rule's
// constraint. Constraints are never unioned and nothing is added. It returns
// the loss reasons (capabilityNotPermitted, resourceNotPermitted) when a
// requested member did not survive, leaving the scope empty; a Decision is
// never under-bound.
func (d *Decision) constrain(v *view, matches []*Rule) uint32 {
	caps := v.requested & v.host
	res := make([]ident.Resource, 0, len(v.requestedResources))
	for _, r := range v.requestedResources {
		if containsResource(v.hostResources, r) {
			res = append(res, r)
		}
	}
	for _, r := range matches {
		if r.effect == vocab.Deny {
			continue
		}
		caps &= r.capabilities
		res = slices.DeleteFunc(res, func(x ident.Resource) bool { return !containsResource(r.resources, x) })
	}
	var lost uint32
	if caps != v.requested {
		lost |= bit(vocab.ReasonCapabilityNotPermitted)
	}
	// res is within the scope of a matched non-deny rule (a non-deny
	// outcome has one), so within the definition's scope Resources; were
	// it not, the Decision could not hold it and fails closed.
	resMask, inTable := scopeMask(d.policy.scopeResources, res)
	if len(res) != len(v.requestedResources) || !inTable {
		lost |= bit(vocab.ReasonResourceNotPermitted)
	}
	if lost == 0 {
		d.capabilities, d.resources = caps, resMask
	}
	return lost
}

// collect sets d's reasons, matched rules and obligations (Section 21,
// "Decision reasons consist of the stable outcome reason plus the stable
// reasons from all matched rules"): reasons (the outcome reason) and every
// matched rule's reason, in Section 48 order; the matched identities,
// unique and sorted because rules are in identity order; every matched
// rule's obligations, deduplicated and in obligation order.
func (d *Decision) collect(rules []*Rule, set ruleSet, reasons uint32) {
	var obligations []Obligation
	for _, r := range rules {
		reasons |= bit(r.reason)
		obligations = append(obligations, r.obligations...)
	}
	d.matched = set
	slices.SortFunc(obligations, compareObligations)
	d.obligations = slices.CompactFunc(obligations, func(a, b Obligation) bool { return a.key == b.key })
	d.reasons = reasons & reasonMask
}

// limit applies the Decision aggregation limits (Section 21, "If a
// Decision aggregation limit is exceeded"): past one, d is a deny with the
// policy-limit reason only, empty scope, no matched rules and no
// obligations.
func (d *Decision) limit() {
	if bits.OnesCount32(d.reasons) > MaxDecisionReasons || d.matched.len() > MaxDecisionMatches || len(d.obligations) > MaxDecisionObligations {
		d.capabilities, d.resources, d.matched, d.obligations = 0, 0, ruleSet{}, nil
		d.deny(vocab.ReasonPolicyLimitExceeded)
	}
}

// scopeMask returns rs (ASCII order) as the set of its positions in table
// (ASCII order), and whether every member of rs is in table.
func scopeMask(table, rs []ident.Resource) (uint32, bool) {
	var m uint32
	for _, r := range rs {
		i, ok := slices.BinarySearchFunc(table, r, ident.Resource.Compare)
		if !ok || i >= 32 {
			return 0, false
		}
		m |= 1 << i
	}
	return m, true
}

// appendReasons appends the reasons of mask m to out in Section 48 order.
func appendReasons(out []vocab.Reason, m uint32) []vocab.Reason {
	// The reasons are numbered in Section 48 order (TestReasonsInBitOrder),
	// so the set bits in increasing order are that order.
	m &= reasonMask
	for m != 0 {
		out = append(out, vocab.Reason(bits.TrailingZeros32(m)))
		m &= m - 1
	}
	return out
}

var (
	allReasons      = vocab.AllReason()
	allCapabilities = vocab.AllCapability()
	reasonMask      = maskOf(allReasons)
)
