package policy

import (
	"math/bits"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// cView is the projection of one Evaluation Input onto one compiled
// definition: the input's Summary, its identifiers as the definition's
// interned integers (-1 when the policy never names them), requested
// Resources as a mask, and the active indeterminacy triggers. It lives on
// the evaluator's stack.
type cView struct {
	sum                                                              evalinput.SummaryView
	tool, definition, registry, subject, tenant, session, delegation int32

	methods, requested, intended, host uint32
	reqRes                             uint64           // bit 0: a requested Resource this policy never names
	reqCount                           int              // distinct requested Resources
	requestedList                      []ident.Resource // ASCII order, unique

	sources, trusts, transformations uint32
	semanticPresent                  bool

	collections []evalinput.InfluenceCollectionFact
	allComplete bool
	kinds       uint32

	triggers uint32
}

// smallFacts is the evaluator's stack storage for the usual small
// collections a projection copies (more spill to the heap).
const smallFacts = 8

// project returns the projection of in onto c. The collections it copies
// are read into reqBuf and collBuf when they fit.
func (c *compiled) project(in facts, reqBuf []ident.Resource, collBuf []evalinput.InfluenceCollectionFact) (v cView) {
	s := in.Summary()
	v.sum = s
	v.tool = c.nameTable.find(s.ToolID())
	v.subject = c.nameTable.find(s.Subject())
	v.tenant = c.nameTable.find(s.Tenant())
	v.definition, v.registry, v.session, v.delegation = -1, -1, -1, -1
	if c.needs&needDefinition != 0 {
		v.definition = c.nameTable.find(s.DefinitionID())
	}
	if c.needs&needRegistry != 0 {
		v.registry = c.nameTable.find(s.RegistrySnapshotID())
	}
	if c.needs&needSession != 0 {
		v.session = c.nameTable.find(s.Session())
	}
	if c.needs&needDelegation != 0 {
		v.delegation = c.nameTable.find(s.Delegation())
	}
	m := s.Masks()
	v.methods, v.intended, v.host = m.AuthMethods, m.IntendedCapabilities, m.HostCapabilities
	if c.needs&needRequested != 0 {
		v.requested = m.RequestedCapabilities
		v.requestedList, v.reqRes = c.projectRequested(in, reqBuf)
		v.reqCount = len(v.requestedList)
	}
	represented := s.Coverage() == vocab.CoverageRepresented
	records := 0
	if c.needs&needRecords != 0 {
		records = s.NumProvenanceRecords()
		v.sources, v.trusts, v.transformations = m.ProvenanceSources, m.ProvenanceTrusts, m.ProvenanceTransformations
		v.semanticPresent = v.transformations&(semantic|1) != 0
	}
	if c.needs&needCollections != 0 {
		v.collections = collectionsInto(collBuf, in)
		v.allComplete = m.AllCollectionsComplete
	}
	if c.needs&needKinds != 0 {
		v.kinds = m.InfluenceKinds
	}

	if s.SessionIndependent() {
		v.triggers |= trigSessionIndependent
	}
	if !s.Delegated() {
		v.triggers |= trigNoDelegation
	}
	if !represented {
		v.triggers |= trigNotRepresented | trigNoTrustEvidence
	}
	if records == 0 {
		v.triggers |= trigNoTrustEvidence // only read when needRecords: a trust predicate sets both
	}
	if len(v.collections) == 0 {
		v.triggers |= trigNoCollections
	}
	if s.EvaluationTime().Before(s.IntentIssuedAt()) {
		v.triggers |= trigIntentFuture
	}
	if s.EvaluationTime().Before(s.ContextIssuedAt()) {
		v.triggers |= trigContextFuture
	}
	return v
}

// projectRequested returns the requested Resources (ASCII order, unique)
// and their mask; it returns rather than stores them so that buf stays on
// the caller's stack. An Evaluation Input's requested Resources are in
// ASCII order and unique, with their hashes computed at construction;
// facts in any other order (this package's tests) are normalized and
// hashed here.
func (c *compiled) projectRequested(in facts, buf []ident.Resource) (rs []ident.Resource, mask uint64) {
	n := in.NumRequestedResources()
	rs = buf[:0]
	if n > cap(buf) {
		rs = make([]ident.Resource, 0, n)
	}
	inOrder := true
	for i := range n {
		r := in.RequestedResourceAt(i)
		if i > 0 && rs[i-1].Compare(r) >= 0 {
			inOrder = false
		}
		rs = append(rs, r)
	}
	if !inOrder {
		slices.SortFunc(rs, ident.Resource.Compare)
		rs = slices.Compact(rs)
	}
	for i, r := range rs {
		var h uint64
		if inOrder {
			h = in.RequestedResourceHashAt(i)
		} else {
			h = evalinput.HashIdentifier(r.String())
		}
		if k := c.resourceTable.findHashed(h, r.String()); k >= 0 {
			mask |= 1 << (k + 1)
		} else {
			mask |= 1
		}
	}
	return rs, mask
}

func (v *cView) collection(boundary string) (evalinput.InfluenceCollectionFact, bool) {
	for _, c := range v.collections {
		if c.Boundary.String() == boundary {
			return c, true
		}
	}
	return evalinput.InfluenceCollectionFact{}, false
}

// indeterminate reports whether rule r has an indeterminate predicate for
// v, which (Section 20 compounds) makes the whole rule indeterminate.
func (v *cView) indeterminate(r *cRule) bool {
	if r.triggers&v.triggers != 0 {
		return true
	}
	for _, b := range r.boundaries {
		if _, ok := v.collection(b); !ok {
			return true
		}
	}
	return false
}

// eval is the two-valued evaluation of node i; it is called only for rules
// with no indeterminate predicate, so it short-circuits freely.
func (c *compiled) eval(i int32, v *cView) bool {
	n := &c.nodes[i]
	//exhaustive:enforce
	switch n.kind {
	case 0:
		if n.all {
			for j := n.first; j < n.first+n.n; j++ {
				if !c.eval(j, v) {
					return false
				}
			}
			return true
		}
		for j := n.first; j < n.first+n.n; j++ {
			if c.eval(j, v) {
				return true
			}
		}
		return false
	case vocab.ExactToolID:
		return v.tool == n.id
	case vocab.ExactToolVersion:
		return v.sum.ToolVersion() == n.num
	case vocab.ExactDefinitionID:
		return v.definition == n.id
	case vocab.ExactRegistrySnapshot:
		return v.registry == n.id && v.sum.RegistrySnapshotGeneration() == n.num
	case vocab.LifecycleIs:
		return uint8(v.sum.Lifecycle()) == n.enum
	case vocab.RiskIs:
		return uint8(v.sum.Risk()) == n.enum
	case vocab.SideEffectIs:
		return uint8(v.sum.SideEffect()) == n.enum
	case vocab.ReversibilityIs:
		return uint8(v.sum.Reversibility()) == n.enum
	case vocab.ExactSubject:
		return v.subject == n.id
	case vocab.ExactTenant:
		return v.tenant == n.id
	case vocab.ExactSession:
		return v.session == n.id
	case vocab.SessionIsIndependent:
		return v.sum.SessionIndependent()
	case vocab.DelegationPresent:
		return v.sum.Delegated()
	case vocab.ExactDelegationID:
		return v.delegation == n.id
	case vocab.AssuranceIsOneOf:
		return bit(v.sum.Assurance())&n.mask != 0
	case vocab.AuthenticationMethodIncludes:
		return v.methods&bit(n.enum) != 0
	case vocab.AuthenticationMethodsIncludeAll:
		return v.methods&n.mask == n.mask
	case vocab.RequestedCapabilitiesSubsetOf:
		return v.requested&^n.mask == 0
	case vocab.RequestedCapabilitiesInclude:
		return v.requested&n.mask == n.mask
	case vocab.IntendedCapabilitiesInclude:
		return v.intended&n.mask == n.mask
	case vocab.ExactRequestedResource:
		return v.reqCount == 1 && v.reqRes == n.res
	case vocab.RequestedResourcesSubsetOf:
		return v.reqRes&^n.res == 0
	case vocab.RequestedResourcesInclude:
		return v.reqRes&n.res == n.res
	case vocab.ProvenanceCoverageIs:
		return uint8(v.sum.Coverage()) == n.enum
	case vocab.ProvenanceContainsSource:
		return v.sources&bit(n.enum) != 0
	case vocab.ProvenanceTrustIsOneOf:
		return v.trusts&^n.mask == 0
	case vocab.ProvenanceContainsTransformation:
		return v.transformations&bit(n.enum) != 0
	case vocab.ProvenanceContainsNoSemanticTransformation:
		return !v.semanticPresent
	case vocab.InfluenceBoundaryCompletenessIs:
		col, _ := v.collection(n.boundary)
		return uint8(col.Completeness) == n.enum
	case vocab.AllInfluenceBoundariesComplete:
		return v.allComplete
	case vocab.InfluenceContainsKind:
		return v.kinds&bit(n.enum) != 0
	case vocab.InfluenceContainsNoKind:
		return v.kinds&bit(n.enum) == 0
	case vocab.ExactInfluenceBoundary:
		_, ok := v.collection(n.boundary)
		return ok
	case vocab.MaximumInfluenceCount:
		return uint64(v.sum.NumInfluenceKinds()) <= n.num
	case vocab.EvaluationTimeWithin:
		return n.window.Contains(v.sum.EvaluationTime())
	case vocab.RenewalGenerationIs:
		return v.sum.RenewalGeneration() == n.num
	case vocab.MaximumIntentAge:
		d, err := v.sum.EvaluationTime().Since(v.sum.IntentIssuedAt())
		return err == nil && d <= n.num
	case vocab.MaximumContextAge:
		d, err := v.sum.EvaluationTime().Since(v.sum.ContextIssuedAt())
		return err == nil && d <= n.num
	}
	// compile admits only the predicates above.
	return false
}

// candidates returns the rules that can match v by the indexes: those
// whose required tool, tenant and subject (if any) are v's.
func (c *compiled) candidates(v *cView) ruleSet {
	pick := func(by []ruleSet, none ruleSet, id int32) ruleSet {
		if id < 0 || int(id) >= len(by) {
			return none
		}
		return none.or(by[id])
	}
	return pick(c.byTool, c.anyTool, v.tool).
		and(pick(c.byTenant, c.anyTenant, v.tenant)).
		and(pick(c.bySubject, c.anySubject, v.subject))
}

// evaluateCompiled resolves d.policy against in with the compiled form c.
// It takes the steps of evaluate (the reference evaluator) in the same
// order, under the same names with the suffix Compiled where the step
// works on the compiled form; resolve and limit, which read only the
// Decision and the match, are the reference's own. It computes exactly
// what evaluate computes: TestCompiledEvaluatorMatchesReference and
// FuzzCompiledEvaluator compare complete Decisions.
func (d *Decision) evaluateCompiled(c *compiled, in facts) {
	var reqBuf [smallFacts]ident.Resource
	var collBuf [smallFacts]evalinput.InfluenceCollectionFact
	v := c.project(in, reqBuf[:], collBuf[:])
	m := d.matchCompiled(c, &v)
	reasons := d.resolve(m.indeterminate, m.effects)
	if d.outcome != vocab.Deny {
		if lost := d.constrainCompiled(c, &v, in, m.set); lost != 0 {
			d.outcome, reasons = vocab.Deny, lost
		}
	}
	d.collectCompiled(c, m.set, reasons)
	d.limit()
}

// cMatches is what matchCompiled finds: ruleMatches without the list (the
// set, in identity order, is the list).
type cMatches struct {
	indeterminate bool
	effects       [vocab.Allow + 1]bool
	set           ruleSet
}

// matchCompiled is match (Section 21, "Every rule is evaluated") over the
// compiled form. Every rule's result is decided, but not by walking every
// tree: a rule is indeterminate when v activates one of its triggers (the
// union of the active triggers' rule sets) or lacks one of its boundaries
// (only the rules with boundaries are looked at), which Section 20 decides
// before any tree walk; of the others, a rule the indexes rule out cannot
// match; of the rest, each distinct required predicate is decided once,
// for the candidates that require it, and removes them when it fails; the
// rules left match when their residual any nodes hold (compile.go).
func (d *Decision) matchCompiled(c *compiled, v *cView) (m cMatches) {
	var indeterminate ruleSet
	for t := c.triggers & v.triggers; t != 0; t &= t - 1 {
		indeterminate = indeterminate.or(c.byTrigger[bits.TrailingZeros32(t)])
	}
	for w, word := range c.boundary {
		for ; word != 0; word &= word - 1 {
			if i := w<<6 | trailingZeros(word); v.indeterminate(&c.rules[i]) {
				indeterminate.add(i)
			}
		}
	}
	m.indeterminate = indeterminate != (ruleSet{})
	cand := c.candidates(v)
	c0, c1 := cand[0]&^indeterminate[0], cand[1]&^indeterminate[1]
	for k := range c.columns {
		col := &c.columns[k]
		if c0&col.rules[0]|c1&col.rules[1] == 0 {
			if c0|c1 == 0 {
				break
			}
			continue
		}
		if !c.eval(col.node, v) {
			c0, c1 = c0&^col.rules[0], c1&^col.rules[1]
		}
	}
	for w, word := range [2]uint64{c0, c1} {
	rules:
		for ; word != 0; word &= word - 1 {
			i := w<<6 | trailingZeros(word)
			r := &c.rules[i]
			for _, n := range r.residual {
				if !c.eval(n, v) {
					continue rules
				}
			}
			m.effects[r.rule.effect] = true
			m.set.add(i)
		}
	}
	return m
}

// constrainCompiled is constrain (Section 21 scope) over masks: the
// requested scope, intersected with the Host Authority and every matched
// non-deny rule's constraint. A non-deny outcome has at least one matched
// non-deny rule, whose constraint has no bit 0, so a Resource the policy
// never names never survives, as in constrain. Only whether every
// requested member survives matters (the scope is then exactly the
// request, else empty), so no surviving set is built.
func (d *Decision) constrainCompiled(c *compiled, v *cView, in facts, matched ruleSet) uint32 {
	caps, res := v.requested&v.host, ^uint64(0)
	for w, word := range matched {
		for ; word != 0; word &= word - 1 {
			r := &c.rules[w<<6|trailingZeros(word)]
			if r.rule.effect != vocab.Deny {
				caps &= r.rule.capabilities
				res &= r.res
			}
		}
	}
	var lost uint32
	if caps != v.requested {
		lost |= bit(vocab.ReasonCapabilityNotPermitted)
	}
	if v.reqRes&^(res&^1) != 0 || !withinHost(v.requestedList, in) {
		lost |= bit(vocab.ReasonResourceNotPermitted)
	}
	if lost == 0 {
		d.capabilities = caps
		// Every requested Resource survived: the scope is exactly them.
		// Each is in a matched non-deny rule's constraint, and compile
		// interned the definition's scope Resources first, in order: bit
		// n+1 of reqRes is position n of scopeResources.
		d.resources = uint32(v.reqRes >> 1)
	}
	return lost
}

// collectCompiled is collect (Section 21, Decision reasons, matched rules
// and obligations) over the matched set. Each rule's obligations are
// sorted and unique already, so a single rule's list is used as it is.
func (d *Decision) collectCompiled(c *compiled, matched ruleSet, reasons uint32) {
	var single []Obligation
	var obligations []Obligation
	for w, word := range matched {
		for ; word != 0; word &= word - 1 {
			r := c.rules[w<<6|trailingZeros(word)].rule
			reasons |= bit(r.reason)
			if len(r.obligations) == 0 {
				continue
			}
			switch {
			case single == nil && obligations == nil:
				single = r.obligations // never modified
			case obligations == nil:
				obligations = append(append(make([]Obligation, 0, len(single)+len(r.obligations)), single...), r.obligations...)
			default:
				obligations = append(obligations, r.obligations...)
			}
		}
	}
	d.matched = matched
	if obligations != nil {
		slices.SortFunc(obligations, compareObligations)
		d.obligations = slices.CompactFunc(obligations, func(a, b Obligation) bool { return a.key == b.key })
	} else {
		d.obligations = single
	}
	d.reasons = reasons & reasonMask
}

// withinHost reports whether every member of rs is in the input's Host
// Resource ceiling (read only for a non-deny outcome).
func withinHost(rs []ident.Resource, in facts) bool {
	n := in.NumHostResources()
	for _, r := range rs {
		found := false
		for i := 0; i < n && !found; i++ {
			found = in.HostResourceAt(i).String() == r.String()
		}
		if !found {
			return false
		}
	}
	return true
}

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }
