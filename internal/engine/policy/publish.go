package policy

import (
	"errors"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Publish validates d completely and returns the initial (generation 1)
// Policy Snapshot bound to admin's Host domain, or rejects the whole draft.
// admin must hold policyAdministrationAuthority (fault.Unauthorized
// otherwise); every Capability and Resource named by the content must lie
// within admin's Host Authority ceiling.
func Publish(admin *authority.RoleAuthority, d SnapshotDraft) (*Snapshot, error) {
	return PublishWith(admin, d, nil)
}

// Registries resolves the exact Registry Snapshot a definition's
// argument-predicate opt-in names (fault.NotFound when it is not held).
type Registries interface {
	Registry(id, generation string) (*registry.Snapshot, error)
}

// PublishWith is Publish for drafts whose definitions may opt in to
// argument predicates (docs/policy-arguments.md): regs resolves the
// Registry Snapshots they name. With regs nil, or for a draft without an
// opt-in, it is exactly Publish.
func PublishWith(admin *authority.RoleAuthority, d SnapshotDraft, regs Registries) (*Snapshot, error) {
	c, err := publisherCeiling(admin)
	if err != nil {
		return nil, err
	}
	// Every violation is reported: the identity's and every policy's.
	var errs fault.Errors
	id, gen, err := snapshotIdentity(d)
	errs.Add("", err)
	if err == nil && gen.Uint64() != 1 {
		errs.Add("", fault.At("generation", fault.Mismatch, "initial publication uses generation 1"))
	}
	s, _, err := build(admin, c, regs, id, gen, d.Policies)
	errs.Add("", err)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// PublishSuccessor validates d as the exact successor of prev: the same
// Snapshot identity and Host domain, generation prev+1, every prior policy
// version retained with identical rule content, and lifecycles moved only
// forward (active→deprecated→retired, active→retired). prev is not modified.
func PublishSuccessor(admin *authority.RoleAuthority, prev *Snapshot, d SnapshotDraft) (*Snapshot, error) {
	return PublishSuccessorWith(admin, prev, d, nil)
}

// PublishSuccessorWith is PublishSuccessor with regs resolving argument
// opt-ins, as PublishWith.
func PublishSuccessorWith(admin *authority.RoleAuthority, prev *Snapshot, d SnapshotDraft, regs Registries) (*Snapshot, error) {
	c, err := publisherCeiling(admin)
	if err != nil {
		return nil, err
	}
	if prev == nil {
		return nil, fault.At("previous", fault.Missing, "a successor names the exact previous snapshot")
	}
	if !admin.Domain().Same(prev.domain) {
		return nil, fault.New(fault.MixedDomain, "a successor is published in the previous snapshot's host domain")
	}
	// Every violation is reported: the identity's, every policy's and every
	// succession rule's.
	var errs fault.Errors
	id, gen, err := snapshotIdentity(d)
	errs.Add("", err)
	if err == nil && id != prev.id {
		errs.Add("", fault.At("id", fault.Mismatch, "a successor keeps the snapshot identity"))
	}
	if err == nil && (prev.gen.Uint64() == ^uint64(0) || gen.Uint64() != prev.gen.Uint64()+1) {
		errs.Add("", fault.At("generation", fault.Mismatch, "a successor uses exactly the next generation"))
	}
	s, index, err := build(admin, c, regs, id, gen, d.Policies)
	if err != nil {
		errs.Add("", err)
		return nil, errs.Err()
	}
	for _, old := range prev.defs {
		i, found := slices.BinarySearchFunc(s.defs, old, compareDefinitions)
		if !found {
			errs.Add("", fault.At("policies", fault.Missing, "a successor retains every prior policy version"))
			continue
		}
		path := "policies" + fault.Index(index[i])
		if !s.defs[i].rulesDigest.Equal(old.rulesDigest) {
			errs.Add("", fault.At(path+".rules", fault.Mismatch, "a retained policy version keeps its complete rule content"))
		}
		if s.defs[i].lifecycle < old.lifecycle {
			errs.Add("", fault.At(path+".lifecycle", fault.Ineligible, "policy lifecycles move only forward: active, deprecated, retired"))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

func publisherCeiling(admin *authority.RoleAuthority) (ceiling, error) {
	if admin == nil || admin.Role() != vocab.PolicyAdministrationAuthority {
		return ceiling{}, fault.At("admin", fault.Unauthorized, "publication requires a policyAdministrationAuthority role authority")
	}
	if admin.Host() == nil || admin.Domain().IsZero() {
		return ceiling{}, fault.At("admin", fault.Missing, "the role authority is bound to a host domain and host authority")
	}
	h := admin.Host()
	c := ceiling{capabilities: maskOf(h.Capabilities()), resources: normalizedResources(h.Resources())}
	return c, nil
}

func snapshotIdentity(d SnapshotDraft) (ident.PolicyID, ident.Generation, error) {
	id, err := ident.ParsePolicyID(d.ID)
	if err != nil {
		return ident.PolicyID{}, ident.Generation{}, fault.Within("id", err)
	}
	gen, err := ident.ParseGeneration(d.Generation)
	if err != nil {
		return ident.PolicyID{}, ident.Generation{}, fault.Within("generation", err)
	}
	return id, gen, nil
}

// build validates every policy and returns the snapshot together with, for
// each sorted definition, its index in the draft.
func build(admin *authority.RoleAuthority, c ceiling, regs Registries, id ident.PolicyID, gen ident.Generation, ds []DefinitionDraft) (*Snapshot, []int, error) {
	switch {
	case len(ds) == 0:
		return nil, nil, fault.At("policies", fault.Missing, "a policy snapshot holds 1–32 policies")
	case len(ds) > MaxPolicies:
		return nil, nil, fault.At("policies", fault.LimitExceeded, "a policy snapshot holds 1–32 policies")
	}
	total := 0
	for _, d := range ds {
		total += len(d.Rules)
	}
	if total > MaxRules {
		return nil, nil, fault.At("policies", fault.LimitExceeded, "a policy snapshot holds at most 512 rules")
	}
	// Every policy is checked, so that a publication reports all its
	// violations, each at its policy's draft index.
	var errs fault.Errors
	k := &compiler{ceiling: c, registries: regs}
	defs := make([]*Definition, len(ds))
	for i := range ds {
		def, err := k.definition(&ds[i])
		if err != nil {
			errs.Add("policies"+fault.Index(i), err)
			if errors.Is(err, fault.ErrLimitExceeded) {
				return nil, nil, errs.Err() // a bound stops the walk
			}
			continue
		}
		defs[i] = def
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	index := make([]int, len(defs))
	for i := range index {
		index[i] = i
	}
	slices.SortStableFunc(index, func(a, b int) int { return compareDefinitions(defs[a], defs[b]) })
	sorted := make([]*Definition, len(defs))
	for i, j := range index {
		sorted[i] = defs[j]
		if i > 0 && compareDefinitions(sorted[i-1], sorted[i]) == 0 {
			errs.Add("", fault.At("policies"+fault.Index(j), fault.Duplicate, "policy identity and generation pairs are unique"))
		}
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	s := &Snapshot{id: id, gen: gen, domain: admin.Domain(), publisher: admin, defs: sorted}
	s.digest = s.computeDigest()
	return s, index, nil
}

func (k *compiler) definition(d *DefinitionDraft) (*Definition, error) {
	var errs fault.Errors
	id, err := ident.ParsePolicyID(d.ID)
	errs.Add("id", err)
	gen, err := ident.ParseGeneration(d.Generation)
	errs.Add("generation", err)
	lc, err := vocab.ParsePolicyLifecycle(d.Lifecycle)
	errs.Add("lifecycle", err)
	binding, err := k.arguments(d.Arguments)
	errs.Add("arguments", err)
	k.unresolved = err != nil
	defer func() { k.tools, k.unresolved = nil, false }()
	switch {
	case len(d.Rules) == 0:
		errs.Add("", fault.At("rules", fault.Missing, "a policy has 1–128 rules"))
		return nil, errs.Err()
	case len(d.Rules) > MaxRulesPerPolicy:
		errs.Add("", fault.At("rules", fault.LimitExceeded, "a policy has 1–128 rules"))
		return nil, errs.Err()
	}
	def := &Definition{id: id, gen: gen, lifecycle: lc, arguments: binding, rules: make([]*Rule, len(d.Rules))}
	before := k.nodes
	for i := range d.Rules {
		r, err := k.rule(&d.Rules[i])
		if err != nil {
			errs.Add("rules"+fault.Index(i), err)
			if errors.Is(err, fault.ErrLimitExceeded) {
				return nil, errs.Err() // a bound stops the walk
			}
			continue
		}
		for j := range i {
			if def.rules[j] != nil && def.rules[j].id == r.id {
				errs.Add("", fault.At("rules"+fault.Index(i)+".id", fault.Duplicate, "rule identities are unique within a policy"))
			}
		}
		def.rules[i] = r
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	def.nodes = k.nodes - before
	slices.SortFunc(def.rules, func(a, b *Rule) int { return a.id.Compare(b.id) })
	def.computeDigests()
	def.scopeResources = scopeResourcesOf(def.rules)
	def.compiled = compile(def)
	return def, nil
}

// arguments validates a definition's argument-predicate opt-in and makes
// its Registry Snapshot the one the definition's argument predicates are
// checked against. nil (no opt-in) leaves the definition Phase 1–6.
func (k *compiler) arguments(d *ArgumentsDraft) (*argumentBinding, error) {
	if d == nil {
		return nil, nil
	}
	if d.Vocabulary != argpred.Vocabulary {
		return nil, fault.At("vocabulary", fault.Unsupported, "the argument-predicate vocabulary is "+argpred.Vocabulary)
	}
	var errs fault.Errors
	id, err := ident.ParseSnapshotID(d.RegistryID)
	errs.Add("registry.snapshotID", err)
	gen, err := ident.ParseGeneration(d.RegistryGeneration)
	errs.Add("registry.generation", err)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	var reg *registry.Snapshot
	if k.registries != nil {
		reg, _ = k.registries.Registry(id.String(), gen.String())
	}
	if reg == nil {
		return nil, fault.At("registry", fault.NotFound, "the registry snapshot an argument opt-in names is published in the domain first")
	}
	k.tools = reg
	return &argumentBinding{registry: reg.ID(), generation: reg.Generation(), digest: reg.Digest()}, nil
}

// scopeResourcesOf is the union of the rules' Resource constraints, ASCII
// order, unique.
func scopeResourcesOf(rules []*Rule) []ident.Resource {
	var out []ident.Resource
	for _, r := range rules {
		out = append(out, r.resources...)
	}
	return normalizedResources(out)
}

func (k *compiler) rule(d *RuleDraft) (*Rule, error) {
	// Every part of the rule is checked, so that all its violations are
	// reported; a bound exceeded in the condition stops the walk.
	var errs fault.Errors
	id, err := ident.ParsePolicyID(d.ID)
	errs.Add("id", err)
	effect, err := vocab.ParseEffect(d.Effect)
	effectOK := err == nil
	errs.Add("effect", err)
	reason, err := vocab.ParseReason(d.Reason)
	errs.Add("reason", err)
	k.ruleNodes = 0
	cond, err := k.condition(&d.Condition, 1)
	if err != nil {
		errs.Add("condition", err)
		if errors.Is(err, fault.ErrLimitExceeded) {
			return nil, errs.Err()
		}
	}
	r := &Rule{id: id, effect: effect, reason: reason, condition: cond}
	switch {
	case !effectOK:
		// Whether a scope belongs depends on the rejected effect.
	case effect == vocab.Deny && d.Scope != nil:
		errs.Add("", fault.At("scope", fault.UnknownField, "a deny rule carries no scope constraint"))
	case effect != vocab.Deny && d.Scope == nil:
		errs.Add("", fault.At("scope", fault.Missing, "allow and requireConfirmation rules carry an explicit scope constraint"))
	case d.Scope != nil:
		errs.Add("scope", k.scope(r, d.Scope))
	}
	r.obligations, err = newObligations(d.Obligations)
	errs.Add("", err)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	r.computeDigest()
	return r, nil
}

// scope validates a constraint: 0–16 unique Capabilities and 0–32 unique
// Resources, all within the publisher's ceiling. Empty permits nothing.
func (k *compiler) scope(r *Rule, d *ScopeDraft) error {
	r.scoped = true
	if len(d.Capabilities) > MaxConstraintCapabilities {
		return fault.At("capabilities", fault.LimitExceeded, "a scope constraint has at most 16 capabilities")
	}
	if len(d.Resources) > MaxConstraintResources {
		return fault.At("resources", fault.LimitExceeded, "a scope constraint has at most 32 resources")
	}
	// Every member is checked, so that all violations are reported.
	var errs fault.Errors
	for i, s := range d.Capabilities {
		path := "capabilities" + fault.Index(i)
		c, err := vocab.ParseCapability(s)
		switch {
		case err != nil:
			errs.Add(path, err)
		case r.capabilities&bit(c) != 0:
			errs.Add("", fault.At(path, fault.Duplicate, "constraint capabilities are unique"))
		case k.ceiling.capabilities&bit(c) == 0:
			errs.Add("", fault.At(path, fault.OutOfRange, capabilityCeilingRule))
		default:
			r.capabilities |= bit(c)
		}
	}
	rs := make([]ident.Resource, 0, len(d.Resources))
	for i, s := range d.Resources {
		path := "resources" + fault.Index(i)
		res, err := ident.ParseResource(s)
		switch {
		case err != nil:
			errs.Add(path, err)
		case slices.Contains(rs, res):
			errs.Add("", fault.At(path, fault.Duplicate, "constraint resources are unique"))
		case !k.ceiling.hasResource(res):
			errs.Add("", fault.At(path, fault.OutOfRange, resourceCeilingRule))
		default:
			rs = append(rs, res)
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	slices.SortFunc(rs, ident.Resource.Compare)
	r.resources = rs
	return nil
}
