package policy

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/epoch"
	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// result is the three-valued outcome of a condition (Section 20).
type result uint8

const (
	notMatched result = iota
	matched
	indeterminate
)

// predicate is one validated, typed predicate with its normalization key.
type predicate struct {
	name      vocab.Predicate
	id        string           // identifier operand, exact text
	num       uint64           // generation, count or seconds operand
	enum      uint8            // single closed-vocabulary operand (vocab constant)
	mask      uint32           // closed-vocabulary or Capability set operand: bit 1<<constant
	resources []ident.Resource // Resource set operand, ASCII order
	window    epoch.Validity
	key       string
	arg       *argpred.Predicate // an argument predicate (name is 0)
}

// semantic is the set of Provenance transformations that prevent a trust
// upgrade (design doc, Section 16): summarized, translated, generatedByModel,
// combined. extracted, filtered and redacted are structural.
const semantic = 1<<vocab.Summarized | 1<<vocab.Translated | 1<<vocab.GeneratedByModel | 1<<vocab.Combined

// view is the evaluation-time projection of one Evaluation Input, computed once
// per Evaluate so that every predicate is a constant-time or small-set
// comparison and no input method is called per node.
type view struct {
	toolID, definitionID, registryID string
	toolVersion, registryGen         uint64
	lifecycle                        vocab.Lifecycle
	risk                             vocab.Risk
	sideEffect                       vocab.SideEffect
	reversibility                    vocab.Reversibility

	subject, tenant, session, delegation string
	sessionIndependent                   bool
	assurance                            vocab.Assurance
	methods                              uint32

	requested, intended, host uint32 // Capability masks
	requestedResources        []ident.Resource
	hostResources             []ident.Resource

	coverage        vocab.ProvenanceCoverage
	represented     bool
	records         int
	sources         uint32 // sources present in some record
	trusts          uint32 // trust classes present in some record
	transformations uint32 // transformations present in some record
	semanticPresent bool

	collections []evalinput.InfluenceCollectionFact
	kinds       uint32 // Influence kinds present in some record
	influences  int    // Influence record count

	now, intentAt, contextAt epoch.Time
	renewal                  uint64

	request *request.CanonicalRequest // read by argument predicates only
}

// bit maps a vocabulary constant to its mask bit. Constants start at 1, so
// bit 0 is never named by a published operand or constraint; an invalid
// value (0 or out of range) maps to bit 0 and therefore never satisfies a
// membership, subset or scope comparison: it fails closed.
func bit[T ~uint8](v T) uint32 {
	if v >= 32 {
		return 1
	}
	return 1 << v
}

func maskOf[T ~uint8](vs []T) uint32 {
	var m uint32
	for _, v := range vs {
		m |= bit(v)
	}
	return m
}

// maskAt is maskOf over the n values at(0), …, at(n-1).
func maskAt[T ~uint8](n int, at func(int) T) uint32 {
	var m uint32
	for i := range n {
		m |= bit(at(i))
	}
	return m
}

// resourcesInto reads the n Resources at(0), …, at(n-1) into buf (or a new
// slice when buf is too small) and returns them in ASCII order without
// duplicates; engine-built inputs already are, and are not re-sorted.
func resourcesInto(buf []ident.Resource, n int, at func(int) ident.Resource) []ident.Resource {
	out := buf[:0]
	if n > cap(buf) {
		out = make([]ident.Resource, 0, n)
	}
	for i := range n {
		out = append(out, at(i))
	}
	for i := 1; i < len(out); i++ {
		if out[i-1].Compare(out[i]) >= 0 {
			slices.SortFunc(out, ident.Resource.Compare)
			return slices.Compact(out)
		}
	}
	return out
}

// collectionsInto reads every Influence collection of in into buf (or a new
// slice when buf is too small).
func collectionsInto(buf []evalinput.InfluenceCollectionFact, in facts) []evalinput.InfluenceCollectionFact {
	n := in.NumInfluenceCollections()
	out := buf[:0]
	if n > cap(buf) {
		out = make([]evalinput.InfluenceCollectionFact, 0, n)
	}
	for i := range n {
		out = append(out, in.InfluenceCollectionAt(i))
	}
	return out
}

// provenanceMasks returns the masks of every represented Provenance record's
// source, trust and transformations, and whether any transformation is
// semantic (an invalid transformation counts as semantic).
func provenanceMasks(in facts) (sources, trusts, transformations uint32, semanticPresent bool) {
	for i := range in.NumProvenanceRecords() {
		s, t := in.ProvenanceRecordAt(i)
		sources |= bit(s)
		trusts |= bit(t)
		var tm uint32
		for j := range in.NumProvenanceTransformations(i) {
			tm |= bit(in.ProvenanceTransformationAt(i, j))
		}
		transformations |= tm
		semanticPresent = semanticPresent || tm&(semantic|1) != 0
	}
	return sources, trusts, transformations, semanticPresent
}

// normalizedResources returns a sorted, duplicate-free copy; input slices are
// never modified.
func normalizedResources(rs []ident.Resource) []ident.Resource {
	out := slices.Clone(rs)
	slices.SortFunc(out, ident.Resource.Compare)
	return slices.Compact(out)
}

func newView(in facts) *view {
	id := in.Identity()
	v := &view{
		toolID:             in.ToolID().String(),
		toolVersion:        in.ToolVersion().Uint64(),
		definitionID:       in.DefinitionID().String(),
		registryID:         in.RegistrySnapshotID().String(),
		registryGen:        in.RegistrySnapshotGeneration().Uint64(),
		lifecycle:          in.Lifecycle(),
		risk:               in.Risk(),
		sideEffect:         in.SideEffect(),
		reversibility:      in.Reversibility(),
		subject:            id.Subject().String(),
		tenant:             id.Tenant().String(),
		session:            id.Session().ID().String(),
		sessionIndependent: id.Session().IsIndependent(),
		delegation:         id.Delegation().String(),
		assurance:          in.Assurance(),
		methods:            maskAt(in.NumAuthMethods(), in.AuthMethodAt),
		requested:          maskAt(in.NumRequestedCapabilities(), in.RequestedCapabilityAt),
		intended:           maskAt(in.NumIntendedCapabilities(), in.IntendedCapabilityAt),
		host:               maskAt(in.NumHostCapabilities(), in.HostCapabilityAt),
		requestedResources: resourcesInto(nil, in.NumRequestedResources(), in.RequestedResourceAt),
		hostResources:      resourcesInto(nil, in.NumHostResources(), in.HostResourceAt),
		coverage:           in.ProvenanceCoverage(),
		represented:        in.ProvenanceCoverage() == vocab.CoverageRepresented,
		collections:        collectionsInto(nil, in),
		now:                in.EvaluationTime(),
		intentAt:           in.IntentIssuedAt(),
		contextAt:          in.ContextIssuedAt(),
		renewal:            in.RenewalGeneration().Uint64(),
		request:            in.Request(),
	}
	v.records = in.NumProvenanceRecords()
	v.sources, v.trusts, v.transformations, v.semanticPresent = provenanceMasks(in)
	v.influences = in.NumInfluenceKinds()
	v.kinds = maskAt(v.influences, in.InfluenceKindAt)
	return v
}

func is(b bool) result {
	if b {
		return matched
	}
	return notMatched
}

func containsResource(set []ident.Resource, r ident.Resource) bool {
	_, ok := slices.BinarySearchFunc(set, r, ident.Resource.Compare)
	return ok
}

// subset reports a ⊆ b for ASCII-ordered unique slices.
func subset(a, b []ident.Resource) bool {
	for _, r := range a {
		if !containsResource(b, r) {
			return false
		}
	}
	return true
}

// age evaluates "now minus issuedAt is no greater than max", indeterminate
// when now precedes issuedAt (subtraction only after the ordering check).
func age(now, issuedAt epoch.Time, max uint64) result {
	d, err := now.Since(issuedAt)
	if err != nil {
		return indeterminate
	}
	return is(d <= max)
}

// eval applies the Section 20 comparison of p to v. The indeterminate cases
// are exactly those of the Section 20 table's "Indeterminate case" column.
func (p *predicate) eval(v *view) result {
	if p.arg != nil {
		return p.evalArgument(v)
	}
	//exhaustive:enforce
	switch p.name {
	case vocab.ExactToolID:
		return is(v.toolID == p.id)
	case vocab.ExactToolVersion:
		return is(v.toolVersion == p.num)
	case vocab.ExactDefinitionID:
		return is(v.definitionID == p.id)
	case vocab.ExactRegistrySnapshot:
		return is(v.registryID == p.id && v.registryGen == p.num)
	case vocab.LifecycleIs:
		return is(uint8(v.lifecycle) == p.enum)
	case vocab.RiskIs:
		return is(uint8(v.risk) == p.enum)
	case vocab.SideEffectIs:
		return is(uint8(v.sideEffect) == p.enum)
	case vocab.ReversibilityIs:
		return is(uint8(v.reversibility) == p.enum)
	case vocab.ExactSubject:
		return is(v.subject == p.id)
	case vocab.ExactTenant:
		return is(v.tenant == p.id)
	case vocab.ExactSession:
		if v.sessionIndependent {
			return indeterminate
		}
		return is(v.session == p.id)
	case vocab.SessionIsIndependent:
		return is(v.sessionIndependent)
	case vocab.DelegationPresent:
		return is(v.delegation != "")
	case vocab.ExactDelegationID:
		if v.delegation == "" {
			return indeterminate
		}
		return is(v.delegation == p.id)
	case vocab.AssuranceIsOneOf:
		return is(bit(v.assurance)&p.mask != 0)
	case vocab.AuthenticationMethodIncludes:
		return is(v.methods&bit(p.enum) != 0)
	case vocab.AuthenticationMethodsIncludeAll:
		return is(v.methods&p.mask == p.mask)
	case vocab.RequestedCapabilitiesSubsetOf:
		return is(v.requested&^p.mask == 0)
	case vocab.RequestedCapabilitiesInclude:
		return is(v.requested&p.mask == p.mask)
	case vocab.IntendedCapabilitiesInclude:
		return is(v.intended&p.mask == p.mask)
	case vocab.ExactRequestedResource:
		return is(len(v.requestedResources) == 1 && v.requestedResources[0].String() == p.id)
	case vocab.RequestedResourcesSubsetOf:
		return is(subset(v.requestedResources, p.resources))
	case vocab.RequestedResourcesInclude:
		return is(subset(p.resources, v.requestedResources))
	case vocab.ProvenanceCoverageIs:
		return is(uint8(v.coverage) == p.enum)
	case vocab.ProvenanceContainsSource:
		if !v.represented {
			return indeterminate
		}
		return is(v.sources&bit(p.enum) != 0)
	case vocab.ProvenanceTrustIsOneOf:
		if !v.represented || v.records == 0 {
			return indeterminate
		}
		return is(v.trusts&^p.mask == 0)
	case vocab.ProvenanceContainsTransformation:
		if !v.represented {
			return indeterminate
		}
		return is(v.transformations&bit(p.enum) != 0)
	case vocab.ProvenanceContainsNoSemanticTransformation:
		if !v.represented {
			return indeterminate
		}
		return is(!v.semanticPresent)
	case vocab.InfluenceBoundaryCompletenessIs:
		c, ok := v.collection(p.id)
		if !ok {
			return indeterminate
		}
		return is(uint8(c.Completeness) == p.enum)
	case vocab.AllInfluenceBoundariesComplete:
		if len(v.collections) == 0 {
			return indeterminate
		}
		for _, c := range v.collections {
			if c.Completeness != vocab.CompletenessComplete {
				return notMatched
			}
		}
		return matched
	case vocab.InfluenceContainsKind:
		return is(v.kinds&bit(p.enum) != 0)
	case vocab.InfluenceContainsNoKind:
		if len(v.collections) == 0 {
			return indeterminate
		}
		return is(v.kinds&bit(p.enum) == 0)
	case vocab.ExactInfluenceBoundary:
		_, ok := v.collection(p.id)
		return is(ok)
	case vocab.MaximumInfluenceCount:
		return is(uint64(v.influences) <= p.num)
	case vocab.EvaluationTimeWithin:
		return is(p.window.Contains(v.now))
	case vocab.RenewalGenerationIs:
		return is(v.renewal == p.num)
	case vocab.MaximumIntentAge:
		return age(v.now, v.intentAt, p.num)
	case vocab.MaximumContextAge:
		return age(v.now, v.contextAt, p.num)
	}
	// Unreachable for a published predicate; fail closed.
	return indeterminate
}

// evalArgument applies an argument predicate to the request's validated
// arguments; without a request (test facts) it is indeterminate.
func (p *predicate) evalArgument(v *view) result {
	if v.request == nil {
		return indeterminate
	}
	switch p.arg.Eval(v.request.Definition().Digest(), v.request.Arguments().Root()) {
	case argpred.Matched:
		return matched
	case argpred.NotMatched:
		return notMatched
	}
	return indeterminate
}

func (v *view) collection(boundary string) (evalinput.InfluenceCollectionFact, bool) {
	for _, c := range v.collections {
		if c.Boundary.String() == boundary {
			return c, true
		}
	}
	return evalinput.InfluenceCollectionFact{}, false
}
