package host

import (
	"strconv"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Current is what a selection names instead of a generation to have the
// trusted Host side make the selection: the current generation of a
// snapshot identity, the active version of a policy (docs/api.md, "Current
// generations"). It is resolved once, before anything is decided, into
// exact generations, which are what the Decision and the Authorization
// bind: nothing "latest" reaches the engine (Sections 9 and 19). It is no
// generation's text (a generation is canonical decimal), so a selection
// never means both.
const Current = "current"

// PolicyVersion is one version of a Policy Definition in a Policy Snapshot.
type PolicyVersion struct {
	PolicyID, Generation string
}

// HighestRegistry returns the highest generation of Registry Snapshot id
// the Host holds. Where every published generation is served (the CLI's
// decide and test), that is the current one; a service takes the current
// generation from its served state instead, which may have withdrawn one.
func (h *Host) HighestRegistry(id string) (string, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return highest(id, func(yield func(snapshotKey) bool) {
		for k := range h.registries {
			if !yield(k) {
				return
			}
		}
	})
}

// HighestPolicy is HighestRegistry for Policy Snapshots, shadow
// generations left out (MarkShadow).
func (h *Host) HighestPolicy(id string) (string, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return highest(id, func(yield func(snapshotKey) bool) {
		for k := range h.policies {
			if h.shadows[k] {
				continue // a shadow is never current
			}
			if !yield(k) {
				return
			}
		}
	})
}

// highest is the numerically highest generation under id among keys (an
// order-independent maximum: no output depends on map order).
func highest(id string, keys func(func(snapshotKey) bool)) (string, bool) {
	var top uint64
	for k := range keys {
		if k.id != id {
			continue
		}
		if n, err := strconv.ParseUint(k.generation, 10, 64); err == nil && n > top {
			top = n
		}
	}
	if top == 0 {
		return "", false
	}
	return strconv.FormatUint(top, 10), true
}

// ActivePolicy returns the generation of the active version of policy
// policyID in the held Policy Snapshot (snapshotID, generation): the
// highest generation of policyID whose lifecycle is active. Deprecated and
// retired versions are never the active one. An unknown snapshot or
// policy is fault.NotFound; a policy with no active version is
// fault.Ineligible, at "policyGeneration": the Host makes no selection
// the policy's authors did not mark active.
func (h *Host) ActivePolicy(snapshotID, generation, policyID string) (string, error) {
	s, err := h.Policy(snapshotID, generation)
	if err != nil {
		return "", fault.Within("snapshotGeneration", err)
	}
	id, err := ident.ParsePolicyID(policyID)
	if err != nil {
		return "", fault.Within("policyID", err)
	}
	found := false
	var top ident.Generation
	for i := range s.Len() {
		d := s.Policy(i)
		if d.ID() != id {
			continue
		}
		found = true
		if d.Lifecycle() == vocab.PolicyActive && d.Generation().Uint64() > top.Uint64() {
			top = d.Generation()
		}
	}
	switch {
	case !found:
		return "", fault.At("policyID", fault.NotFound, "no policy with this identity in the selected snapshot")
	case top.Uint64() == 0:
		return "", fault.At("policyGeneration", fault.Ineligible, "the policy has no active version in the selected snapshot: select a version explicitly")
	}
	return top.String(), nil
}

// ActivePolicies returns the active version of every policy of the held
// Policy Snapshot (snapshotID, generation) that has one, in policy
// identity order (Section 50).
func (h *Host) ActivePolicies(snapshotID, generation string) ([]PolicyVersion, error) {
	s, err := h.Policy(snapshotID, generation)
	if err != nil {
		return nil, err
	}
	var out []PolicyVersion
	for i := range s.Len() {
		d := s.Policy(i) // identity order, then generation order
		if d.Lifecycle() != vocab.PolicyActive {
			continue
		}
		v := PolicyVersion{PolicyID: d.ID().String(), Generation: d.Generation().String()}
		if n := len(out); n > 0 && out[n-1].PolicyID == v.PolicyID {
			out[n-1] = v // a higher active version of the same policy
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

// SelectCurrent resolves every Current in r's selection: the registry and
// the policy snapshot generation to the highest generation the Host holds,
// the policy generation to its active version in the selected snapshot. It
// is the selection of a Host that serves every generation it holds (the
// CLI's decide and test); the service resolves from its served state
// (internal/serving). An identity the Host holds no generation of is
// fault.NotFound at "registry" or "policy".
func (h *Host) SelectCurrent(r *AuthorizeRequest) error {
	if r.Registry.Generation == Current {
		g, ok := h.HighestRegistry(r.Registry.SnapshotID)
		if !ok {
			return fault.At("registry", fault.NotFound, "no registry snapshot with this identity is published in this domain")
		}
		r.Registry.Generation = g
	}
	if r.Policy.SnapshotGeneration == Current {
		g, ok := h.HighestPolicy(r.Policy.SnapshotID)
		if !ok {
			return fault.At("policy", fault.NotFound, "no policy snapshot with this identity is published in this domain")
		}
		r.Policy.SnapshotGeneration = g
	}
	if r.Policy.PolicyGeneration == Current {
		g, err := h.ActivePolicy(r.Policy.SnapshotID, r.Policy.SnapshotGeneration, r.Policy.PolicyID)
		if err != nil {
			return fault.Within("policy", err)
		}
		r.Policy.PolicyGeneration = g
	}
	return nil
}

// HoldsAnyRole reports whether c holds any protocol role declared in the
// domain: who may read what the domain serves as current.
func (h *Host) HoldsAnyRole(c Caller) bool {
	for _, subjects := range h.bindings {
		for _, s := range subjects {
			if s.matches(c, h.namespace) {
				return true
			}
		}
	}
	return false
}
