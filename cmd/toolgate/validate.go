package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// validate checks every object in the given manifests with the admission
// webhook's rules, offline, for pull-request pipelines: a HostAuthority
// must build a domain, a ToolRegistry must publish, and each PolicySnapshot
// generation must publish in its HostAuthority's domain as the exact
// successor of the generation before it, on behalf of the domain's policy
// administrator. It reports every violation of every object with its file,
// YAML line and field path, and exits 1 when any object is invalid.
func validate(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	var files []string
	fs.Func("f", "a manifest file or directory (repeatable)", func(p string) error { files = append(files, p); return nil })
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	files = append(files, rest...)
	if len(files) == 0 {
		return usageError{"validate needs -f PATH (a manifest file or directory)"}
	}
	set, err := manifest.LoadPaths(files...)
	if err != nil {
		return err
	}
	var problems []error
	report := func(kind string, o interface {
		GetNamespace() string
		GetName() string
	}, err error) {
		if l := set.Locate(kind, o.GetNamespace(), o.GetName(), err); l != err {
			problems = append(problems, l)
			return
		}
		problems = append(problems, &objectError{kind: kind, namespace: o.GetNamespace(), name: o.GetName(), err: err})
	}
	objects := 0
	hosts := map[[2]string]*host.Host{}
	admins := map[[2]string]host.Caller{}
	for i := range set.HostAuthorities {
		o := &set.HostAuthorities[i]
		objects++
		cfg, err := manifest.HostConfig(o)
		var h *host.Host
		if err == nil {
			h, err = host.New(cfg)
			err = fault.Within("spec", err)
		}
		if err != nil {
			report("HostAuthority", o, err)
			continue
		}
		hosts[[2]string{o.Namespace, o.Name}] = h
		admins[[2]string{o.Namespace, o.Name}], _ = manifest.AdministratorOf(o)
	}
	for i := range set.ToolRegistries {
		o := &set.ToolRegistries[i]
		objects++
		d, err := manifest.RegistryDraft(o.Spec)
		if err == nil {
			_, err = registry.Publish(d)
		}
		if err != nil {
			report("ToolRegistry", o, manifest.SpecFault(err))
		}
	}
	snaps := make([]*v1alpha1.PolicySnapshot, 0, len(set.PolicySnapshots))
	for i := range set.PolicySnapshots {
		snaps = append(snaps, &set.PolicySnapshots[i])
	}
	generation := func(p *v1alpha1.PolicySnapshot) uint64 {
		g, _ := ident.ParseGeneration(string(p.Spec.SnapshotGeneration))
		return g.Uint64()
	}
	slices.SortStableFunc(snaps, func(a, b *v1alpha1.PolicySnapshot) int { return cmp.Compare(generation(a), generation(b)) })
	for _, o := range snaps {
		objects++
		ref := [2]string{o.Namespace, string(o.Spec.HostAuthorityRef.Name)}
		h, ok := hosts[ref]
		if !ok {
			report("PolicySnapshot", o, fault.At("spec.hostAuthorityRef.name", fault.NotFound,
				"no valid HostAuthority of that name in the snapshot's namespace"))
			continue
		}
		d, err := manifest.PolicyDraft(o.Spec)
		if err == nil {
			_, err = h.PublishPolicy(admins[ref], d)
		}
		if err != nil {
			report("PolicySnapshot", o, manifest.SpecFault(err))
		}
	}
	for _, p := range problems {
		fmt.Fprintln(out, userMessage(p))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s of %d invalid", plural(len(problems), "object", "objects"), objects)
	}
	fmt.Fprintf(out, "%s valid\n", plural(objects, "object", "objects"))
	return nil
}
