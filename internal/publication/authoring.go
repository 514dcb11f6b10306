package publication

import (
	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// The authoring check (docs/gitops.md, "Names no registry defines"): a
// rule that names a tool, a tool version, a Tool Definition or a Registry
// Snapshot that no Registry Snapshot in scope defines can never match, so a
// deny rule with a typo in its tool identity protects nothing while
// publishing cleanly. The engine cannot reject it — a policy is published
// independently of registries (Section 19), and registries may be applied
// after the policies that name their tools — so the check is separate from
// admission: validate -f and policy validate report its findings as errors,
// the webhook as admission warnings.
//
// The Registry Snapshots in scope of a PolicySnapshot are the ToolRegistries
// of its namespace that admit (ToolRegistry): the ones its HostAuthority's
// domain holds, since every domain of a namespace publishes every
// ToolRegistry of the namespace (Into; the service and the controllers do
// the same). Offline that is the admitted ToolRegistries of the given
// files; in the webhook, those the apiserver holds at admission.
//
// Fields and Resources need no check here: an argument predicate's tool,
// version and field path are resolved against the one Registry Snapshot its
// policy opts in to, and a Resource outside the HostAuthority's ceiling is
// rejected, both by publication itself.

// undefinedTool and the others are the authoring check's rules (constant
// text: no name from the rule is echoed).
const (
	undefinedTool       = "no Registry Snapshot in scope defines a tool of this identity: the predicate never matches"
	undefinedVersion    = "no Registry Snapshot in scope defines this version of the tool: the predicate never matches"
	undefinedDefinition = "no Registry Snapshot in scope defines a Tool Definition of this identity: the predicate never matches"
	undefinedRegistry   = "no Registry Snapshot of this identity is in scope: the predicate never matches"
	undefinedRegistryGn = "no Registry Snapshot of this identity and generation is in scope: the predicate never matches"
)

// InScope returns the Registry Snapshots in scope of a PolicySnapshot in
// namespace: every ToolRegistry of registries in that namespace that admits
// (ToolRegistry). Others are ignored: their own admission reports them.
func InScope(namespace string, registries []v1alpha1.ToolRegistry) []*host.RegistrySnapshot {
	var out []*host.RegistrySnapshot
	for i := range registries {
		if r := &registries[i]; r.Namespace == namespace {
			if _, s, err := ToolRegistry(r); err == nil {
				out = append(out, s)
			}
		}
	}
	return out
}

// Undefined returns every reference a rule of o makes to registry content
// that none of registries (those in scope, see InScope) defines, each a
// fault.NotFound at its object path (spec.policies[i].rules[j].condition…);
// nil when every reference resolves. Retired policy versions never
// evaluate and are not checked; a condition that does not convert is
// skipped (Draft reports it).
func Undefined(o *v1alpha1.PolicySnapshot, registries []*host.RegistrySnapshot) error {
	var errs fault.Errors
	for i, p := range o.Spec.Policies {
		if p.Lifecycle == v1alpha1.PolicyLifecycleRetired {
			continue
		}
		for j, r := range p.Rules {
			c, err := manifest.ConditionDraft(r.Condition.Raw)
			if err != nil {
				continue
			}
			at := "spec.policies" + fault.Index(i) + ".rules" + fault.Index(j) + ".condition"
			undefined(&errs, at, &c, "", registries)
		}
	}
	return errs.Err()
}

// undefined adds the undefined references of the condition c at path to
// errs. tool is the tool identity an exactToolID sibling of c in the
// enclosing all node names ("" for none): a version is looked up as that
// tool's version.
func undefined(errs *fault.Errors, path string, c *policy.ConditionDraft, tool string, regs []*host.RegistrySnapshot) {
	switch {
	case c.All != nil:
		sibling := ""
		for _, x := range c.All {
			if x.Predicate != nil && x.Predicate.Name == vocab.ExactToolID.String() && definesTool(regs, x.Predicate.Identifier) {
				sibling = x.Predicate.Identifier
			}
		}
		for k := range c.All {
			undefined(errs, path+".all"+fault.Index(k), &c.All[k], sibling, regs)
		}
	case c.Any != nil:
		for k := range c.Any {
			undefined(errs, path+".any"+fault.Index(k), &c.Any[k], "", regs)
		}
	case c.Predicate != nil:
		p, at := c.Predicate, path+".predicate"
		switch p.Name {
		case vocab.ExactToolID.String():
			if !definesTool(regs, p.Identifier) {
				errs.Add("", fault.At(at+".identifier", fault.NotFound, undefinedTool))
			}
		case vocab.ExactToolVersion.String():
			if !definesVersion(regs, tool, p.Generation) {
				errs.Add("", fault.At(at+".generation", fault.NotFound, undefinedVersion))
			}
		case vocab.ExactDefinitionID.String():
			if !anyDefinition(regs, func(d *registry.Definition) bool { return d.ID().String() == p.Identifier }) {
				errs.Add("", fault.At(at+".identifier", fault.NotFound, undefinedDefinition))
			}
		case vocab.ExactRegistrySnapshot.String():
			switch id, gen := holdsRegistry(regs, p.Identifier, p.Generation); {
			case !id:
				errs.Add("", fault.At(at+".identifier", fault.NotFound, undefinedRegistry))
			case !gen:
				errs.Add("", fault.At(at+".generation", fault.NotFound, undefinedRegistryGn))
			}
		}
	}
}

func anyDefinition(regs []*host.RegistrySnapshot, f func(*registry.Definition) bool) bool {
	for _, s := range regs {
		for i := range s.Len() {
			if f(s.Definition(i)) {
				return true
			}
		}
	}
	return false
}

func definesTool(regs []*host.RegistrySnapshot, tool string) bool {
	return anyDefinition(regs, func(d *registry.Definition) bool { return d.ToolID().String() == tool })
}

// definesVersion reports whether a definition of tool ("" for any tool)
// has version; version text that does not parse is publication's to
// reject, and counts as defined here.
func definesVersion(regs []*host.RegistrySnapshot, tool, version string) bool {
	v, err := ident.ParseGeneration(version)
	if err != nil {
		return true
	}
	return anyDefinition(regs, func(d *registry.Definition) bool {
		return (tool == "" || d.ToolID().String() == tool) && d.Version().Compare(v) == 0
	})
}

// holdsRegistry reports whether a Registry Snapshot of identity id is in
// regs, and whether one of that generation is.
func holdsRegistry(regs []*host.RegistrySnapshot, id, generation string) (identity, gen bool) {
	g, err := ident.ParseGeneration(generation)
	for _, s := range regs {
		if s.ID().String() != id {
			continue
		}
		identity = true
		if err != nil || s.Generation().Compare(g) == 0 {
			return true, true
		}
	}
	return identity, false
}
