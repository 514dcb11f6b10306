package host

import (
	"slices"
	"strconv"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
)

// MarkShadow marks the held policy snapshot generation (id, generation) as
// a shadow: it stays held, so that its successor can be published, but a
// Current selection of the Host (HighestPolicy, SelectCurrent) never
// finds it. A generation not held is fault.NotFound.
func (h *Host) MarkShadow(id, generation string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := snapshotKey{id, generation}
	if _, ok := h.policies[k]; !ok {
		return fault.New(fault.NotFound, "no policy snapshot with exactly this identity and generation is published in this domain")
	}
	if h.shadows == nil {
		h.shadows = map[snapshotKey]bool{}
	}
	h.shadows[k] = true
	return nil
}

// ShadowSelection names the shadow generation of the request's policy
// snapshot to evaluate beside it (docs/shadow.md): the snapshot generation,
// and the policy version in it — the request's own, or Current for the
// active version in the shadow generation.
type ShadowSelection struct {
	SnapshotGeneration string
	PolicyGeneration   string
}

// ShadowResult is the shadow's outcome over the live request's Evaluation
// Input: its Decision, or Err when it could not be evaluated (then
// Decision is nil). Nothing in it is issued or signed.
type ShadowResult struct {
	Decision *policy.Decision
	Err      error
}

// AuthorizeShadowed is Authorize for r, and then the evaluation of the
// shadow s over the same Evaluation Input, with the same Decision
// identity. The Result and the error are exactly Authorize's: the shadow
// is evaluated only after the live decision (and issuance) is complete,
// and whatever happens to it — an unknown generation, a policy it lacks,
// a structural rejection — is only its ShadowResult.Err.
func (h *Host) AuthorizeShadowed(r AuthorizeRequest, s ShadowSelection) (*Result, ShadowResult, error) {
	p, err := h.prepare(r)
	if err != nil {
		return nil, ShadowResult{}, err
	}
	res, err := h.decide(r, p)
	if err != nil {
		return nil, ShadowResult{}, err
	}
	dec, err := h.evaluateShadow(r, p, s)
	if err != nil {
		return res, ShadowResult{Err: err}, nil
	}
	return res, ShadowResult{Decision: dec}, nil
}

// evaluateShadow evaluates the policy of r's selection in the shadow
// generation s over p's Evaluation Input.
func (h *Host) evaluateShadow(r AuthorizeRequest, p prepared, s ShadowSelection) (*policy.Decision, error) {
	id := p.pol.ID().String()
	snap, err := h.Policy(id, s.SnapshotGeneration)
	if err != nil {
		return nil, fault.Within("shadow", err)
	}
	gen := s.PolicyGeneration
	if gen == Current {
		if gen, err = h.ActivePolicy(id, s.SnapshotGeneration, r.Policy.PolicyID); err != nil {
			return nil, fault.Within("shadow", err)
		}
	}
	sel, err := selection(id, s.SnapshotGeneration, PolicySelection{PolicyID: r.Policy.PolicyID, PolicyGeneration: gen})
	if err != nil {
		return nil, fault.Within("shadow", err)
	}
	dec, err := policy.Evaluate(p.in, snap, sel, r.DecisionID)
	if err != nil {
		return nil, fault.Within("shadow", err)
	}
	return dec, nil
}

// Difference is how a shadow Decision differs from the live one over the
// same Evaluation Input: the outcome pair, and what one has that the other
// has not — matched rules, reasons, scope and obligation kinds, each in
// the Decisions' own order. It names identities and closed tokens only:
// never an argument value.
type Difference struct {
	Live, Shadow                           string // outcomes
	RulesAdded, RulesRemoved               []string
	ReasonsAdded, ReasonsRemoved           []string
	CapabilitiesAdded, CapabilitiesRemoved []string
	ResourcesAdded, ResourcesRemoved       []string
	ObligationsAdded, ObligationsRemoved   []string
}

// Changed reports whether the shadow decided otherwise in anything the
// Decision holds besides its identity and bindings.
func (d Difference) Changed() bool {
	return d.Live != d.Shadow || len(d.RulesAdded)+len(d.RulesRemoved)+len(d.ReasonsAdded)+len(d.ReasonsRemoved)+
		len(d.CapabilitiesAdded)+len(d.CapabilitiesRemoved)+len(d.ResourcesAdded)+len(d.ResourcesRemoved)+
		len(d.ObligationsAdded)+len(d.ObligationsRemoved) > 0
}

// Compare returns how shadow differs from live. Both are Decisions over
// one Evaluation Input.
func Compare(live, shadow *policy.Decision) Difference {
	d := Difference{Live: live.Outcome().String(), Shadow: shadow.Outcome().String()}
	d.RulesAdded, d.RulesRemoved = diff(strs(live.MatchedRules()), strs(shadow.MatchedRules()))
	d.ReasonsAdded, d.ReasonsRemoved = diff(strs(live.Reasons()), strs(shadow.Reasons()))
	d.CapabilitiesAdded, d.CapabilitiesRemoved = diff(strs(live.Capabilities()), strs(shadow.Capabilities()))
	d.ResourcesAdded, d.ResourcesRemoved = diff(strs(live.Resources()), strs(shadow.Resources()))
	d.ObligationsAdded, d.ObligationsRemoved = diff(obligations(live), obligations(shadow))
	return d
}

func strs[T interface{ String() string }](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// obligations names each obligation of d by its kind and, where it has
// one, its bound (a closed token or a number: no request value).
func obligations(d *policy.Decision) []string {
	var out []string
	for _, o := range d.Obligations() {
		k := o.Kind().String()
		switch {
		case o.Seconds() != 0:
			k += ":" + strconv.FormatUint(o.Seconds(), 10)
		case !o.Boundary().IsZero():
			k += ":" + o.Boundary().String()
		}
		out = append(out, k)
	}
	return out
}

// diff returns what shadow has that live has not, and what live has that
// shadow has not.
func diff(live, shadow []string) (added, removed []string) {
	for _, s := range shadow {
		if !slices.Contains(live, s) {
			added = append(added, s)
		}
	}
	for _, l := range live {
		if !slices.Contains(shadow, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}
