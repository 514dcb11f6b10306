package main

import (
	"fmt"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/serving"
)

// checked is every object of a manifest set published offline as the
// admission webhook and the controllers would: each HostAuthority becomes
// its own Host (one fresh domain per object, as the service creates per
// object UID), each ToolRegistry publishes, and each PolicySnapshot
// publishes in its HostAuthority's Host, in generation order, on behalf of
// the domain's policy administrator, through the one publication path
// (internal/publication). Nothing stops at the first problem.
type checked struct {
	objects    int
	hosts      []checkedHost
	registries []*host.RegistrySnapshot
	// inScope holds the admitted Registry Snapshots of each namespace: the
	// registries in scope of its PolicySnapshots' authoring check
	// (publication.Undefined).
	inScope  map[string][]*host.RegistrySnapshot
	policies []*host.PolicySnapshot
	// problems holds one error per invalid object, each carrying every
	// fault of that object with its file and line where known.
	problems []error
}

type checkedHost struct {
	obj  *v1alpha1.HostAuthority
	host *host.Host
}

// metaObject is what a problem report needs of any manifest object.
type metaObject interface {
	GetNamespace() string
	GetName() string
}

func check(set *manifest.Set) *checked {
	c := &checked{inScope: map[string][]*host.RegistrySnapshot{}}
	report := func(kind string, o metaObject, err error) {
		c.problems = append(c.problems, located(set, &objectError{kind: kind, namespace: o.GetNamespace(), name: o.GetName(), err: err}))
	}
	// Two documents naming one object would be one object on the
	// apiserver, the second an edit of the first.
	c.problems = append(c.problems, set.Duplicates()...)
	// Two objects of different names claiming one identity: the name rule
	// rejects at least one; this names the other too.
	claimed := map[string]string{}
	claim := func(kind string, o metaObject, identity, path, what string) error {
		k := kind + "\x00" + o.GetNamespace() + "\x00" + identity
		first, ok := claimed[k]
		if !ok {
			claimed[k] = o.GetName()
			return nil
		}
		if first == o.GetName() {
			return nil // set.Duplicates reports it
		}
		where, _ := set.Where(kind, o.GetNamespace(), first)
		return fault.At(path, fault.Duplicate, "another "+kind+" in this namespace, at "+where+", claims this "+what)
	}
	for i := range set.HostAuthorities {
		o := &set.HostAuthorities[i]
		c.objects++
		var errs fault.Errors
		errs.Add("", claim("HostAuthority", o, string(o.Spec.AuthorityID), "spec.authorityID", "authority identity"))
		a, err := publication.HostAuthority(o)
		errs.Add("", err)
		var h *host.Host
		if err == nil {
			h, err = host.New(a.Config) // admitted: cannot fail
			errs.Add("", fault.Within("spec", err))
		}
		if err := errs.Err(); err != nil {
			report("HostAuthority", o, err)
			continue
		}
		c.hosts = append(c.hosts, checkedHost{obj: o, host: h})
	}
	unknownScope := map[string]bool{} // namespaces with a ToolRegistry that does not admit
	for i := range set.ToolRegistries {
		o := &set.ToolRegistries[i]
		c.objects++
		var errs fault.Errors
		errs.Add("", claim("ToolRegistry", o, string(o.Spec.SnapshotID)+"\x00"+string(o.Spec.SnapshotGeneration),
			"spec.snapshotGeneration", "snapshot identity and generation"))
		d, s, err := publication.ToolRegistry(o)
		errs.Add("", err)
		if errs.Err() == nil {
			// The domains of the namespace hold it, so that a policy's
			// argument-predicate opt-in naming it resolves.
			for _, ch := range c.hosts {
				if ch.obj.Namespace == o.Namespace {
					_, _ = ch.host.PublishRegistry(d)
				}
			}
		}
		if err := errs.Err(); err != nil {
			report("ToolRegistry", o, err)
			// The namespace's scope is then unknown: its policies' authoring
			// check would only repeat this registry's finding.
			unknownScope[o.Namespace] = true
			continue
		}
		c.registries = append(c.registries, s)
		c.inScope[o.Namespace] = append(c.inScope[o.Namespace], s)
	}
	var policies []*v1alpha1.PolicySnapshot
	for i := range set.PolicySnapshots {
		policies = append(policies, &set.PolicySnapshots[i])
	}
	for _, o := range publication.InGenerationOrder(policies) {
		c.objects++
		// A rule naming what no registry in scope defines protects nothing:
		// an error here, beside the object's other violations.
		var undefined error
		if !unknownScope[o.Namespace] {
			undefined = publication.Undefined(o, c.inScope[o.Namespace])
		}
		if err := claim("PolicySnapshot", o, string(o.Spec.SnapshotID)+"\x00"+string(o.Spec.SnapshotGeneration),
			"spec.snapshotGeneration", "snapshot identity and generation"); err != nil {
			// Not published: the generation is already claimed.
			_, derr := publication.Draft(o)
			errs := fault.Errors{}
			errs.Add("", derr)
			errs.Add("", err)
			errs.Add("", undefined)
			report("PolicySnapshot", o, errs.Err())
			continue
		}
		h := c.host(o.Namespace, string(o.Spec.HostAuthorityRef.Name))
		if h == nil {
			// Without a domain only the rules that need none apply; every
			// violation is still reported at once.
			var errs fault.Errors
			_, err := publication.Draft(o)
			errs.Add("", err)
			errs.Add("", fault.At("spec.hostAuthorityRef.name", fault.NotFound,
				"no valid HostAuthority of that name in the snapshot's namespace"))
			errs.Add("", undefined)
			report("PolicySnapshot", o, errs.Err())
			continue
		}
		admin, ok := manifest.AdministratorOf(h.obj)
		if !ok {
			report("PolicySnapshot", o, fmt.Errorf("HostAuthority %s binds no subject to policyAdministrationAuthority, so no publisher may publish in its domain",
				objName(h.obj.Namespace, h.obj.Name)))
			continue
		}
		s, err := publication.Policy(h.host, admin, o)
		var errs fault.Errors
		errs.Add("", err)
		errs.Add("", undefined)
		if err := errs.Err(); err != nil {
			report("PolicySnapshot", o, err)
		}
		if s != nil {
			// Published, so that its successor publishes after it.
			c.policies = append(c.policies, s)
		}
	}
	for i := range set.Revocations {
		o := &set.Revocations[i]
		c.objects++
		if _, err := serving.RevocationOf(o.Spec); err != nil {
			report("Revocation", o, err)
		}
	}
	return c
}

func (c *checked) host(namespace, name string) *checkedHost {
	for i := range c.hosts {
		if o := c.hosts[i].obj; o.Namespace == namespace && o.Name == name {
			return &c.hosts[i]
		}
	}
	return nil
}

func objName(namespace, name string) string { return namespace + "/" + name }
