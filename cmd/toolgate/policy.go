package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/authority"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/manifest"
)

// hostDomain is one HostAuthority object realized in a fresh in-process Host
// domain, as the service does per object UID.
type hostDomain struct {
	obj  *v1alpha1.HostAuthority
	b    boundary.Boundary
	host *authority.HostAuthority
}

// policyChain is every loaded generation of one Policy Snapshot identity in
// one Host domain.
type policyChain struct {
	host *hostDomain
	objs []*v1alpha1.PolicySnapshot
	gens []uint64
}

// policyValidate creates every HostAuthority in its own fresh Host domain
// and publishes every PolicySnapshot in the domain of its
// hostAuthorityRef: generation 1 with policy.Publish, each later generation
// as the exact successor of the one before. The publisher is a CLI identity
// granted policyAdministrationAuthority, which the HostAuthority must bind.
func policyValidate(args []string, out io.Writer) error {
	paths, err := parseFlags(flag.NewFlagSet("policy validate", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError{"policy validate needs at least one file or directory"}
	}
	set, err := manifest.LoadPaths(paths...)
	if err != nil {
		return err
	}
	if len(set.PolicySnapshots) == 0 {
		return errors.New("no PolicySnapshot objects found")
	}
	hosts, err := hostDomains(set.HostAuthorities)
	if err != nil {
		return located(set, err)
	}
	chains, err := policyChains(set.PolicySnapshots, hosts)
	if err != nil {
		return located(set, err)
	}
	var published [][]*policy.Snapshot
	for _, c := range chains {
		snaps, err := c.publish()
		if err != nil {
			return located(set, err)
		}
		published = append(published, snaps)
	}
	for _, h := range hosts {
		printHostAuthority(out, h)
	}
	for _, snaps := range published {
		for _, s := range snaps {
			if err := printPolicySnapshot(out, s); err != nil {
				return err
			}
		}
	}
	return nil
}

func objName(namespace, name string) string { return namespace + "/" + name }

func hostDomains(objs []v1alpha1.HostAuthority) ([]*hostDomain, error) {
	var hosts []*hostDomain
	for i := range objs {
		o := &objs[i]
		if slices.ContainsFunc(hosts, func(h *hostDomain) bool { return h.obj.Namespace == o.Namespace && h.obj.Name == o.Name }) {
			return nil, fmt.Errorf("HostAuthority %s: declared more than once", objName(o.Namespace, o.Name))
		}
		b := boundary.New("toolgate-cli " + objName(o.Namespace, o.Name))
		h, err := manifest.NewHostAuthority(b, o.Spec)
		if err != nil {
			return nil, objErr("HostAuthority", o, err)
		}
		hosts = append(hosts, &hostDomain{obj: o, b: b, host: h})
	}
	return hosts, nil
}

// policyChains groups the snapshots by namespace, HostAuthority and
// snapshot identity, in order of first appearance, each chain sorted by
// generation (equal generations keep file order and then fail as
// non-successors).
func policyChains(objs []v1alpha1.PolicySnapshot, hosts []*hostDomain) ([]*policyChain, error) {
	var chains []*policyChain
	for i := range objs {
		o := &objs[i]
		ref := string(o.Spec.HostAuthorityRef.Name)
		if ref == "" {
			return nil, objErr("PolicySnapshot", o, fault.At("spec.hostAuthorityRef.name", fault.Missing, "a policy snapshot names its HostAuthority"))
		}
		hi := slices.IndexFunc(hosts, func(h *hostDomain) bool { return h.obj.Namespace == o.Namespace && h.obj.Name == ref })
		if hi < 0 {
			return nil, objErr("PolicySnapshot", o, fault.At("spec.hostAuthorityRef.name", fault.NotFound, "no loaded HostAuthority in the snapshot's namespace has that name"))
		}
		gen, err := ident.ParseGeneration(string(o.Spec.SnapshotGeneration))
		if err != nil {
			return nil, objErr("PolicySnapshot", o, fault.Within("spec.snapshotGeneration", err))
		}
		ci := slices.IndexFunc(chains, func(c *policyChain) bool {
			return c.host == hosts[hi] && c.objs[0].Spec.SnapshotID == o.Spec.SnapshotID
		})
		if ci < 0 {
			chains = append(chains, &policyChain{host: hosts[hi]})
			ci = len(chains) - 1
		}
		c := chains[ci]
		at := slices.IndexFunc(c.gens, func(g uint64) bool { return g > gen.Uint64() }) // after any equal generation
		if at < 0 {
			at = len(c.gens)
		}
		c.gens = slices.Insert(c.gens, at, gen.Uint64())
		c.objs = slices.Insert(c.objs, at, o)
	}
	return chains, nil
}

// cliPublisher is the issuer identity of the Role Authority the CLI grants
// itself in each domain it creates: it plays the Host, which holds every
// declared role (the HostAuthority must still declare the role).
const cliPublisher = "policy-administration-authority"

// publish grants policyAdministrationAuthority in the chain's domain and
// publishes each generation in order.
func (c *policyChain) publish() ([]*policy.Snapshot, error) {
	first := objName(c.objs[0].Namespace, c.objs[0].Name)
	if !c.host.host.HasRole(vocab.PolicyAdministrationAuthority) {
		return nil, fmt.Errorf("PolicySnapshot %s: HostAuthority %s binds no subject to policyAdministrationAuthority, so no publisher may publish in its domain",
			first, objName(c.host.obj.Namespace, c.host.obj.Name))
	}
	admin, err := authority.Grant(c.host.b, c.host.host, vocab.PolicyAdministrationAuthority, cliPublisher)
	if err != nil {
		return nil, fmt.Errorf("PolicySnapshot %s: %w", first, err)
	}
	var snaps []*policy.Snapshot
	for i, o := range c.objs {
		d, err := manifest.PolicyDraft(o.Spec)
		if err != nil {
			return nil, objErr("PolicySnapshot", o, err)
		}
		var s *policy.Snapshot
		if i == 0 {
			s, err = policy.Publish(admin, d)
		} else {
			s, err = policy.PublishSuccessor(admin, snaps[i-1], d)
		}
		if err != nil {
			return nil, objErr("PolicySnapshot", o, manifest.SpecFault(err))
		}
		snaps = append(snaps, s)
	}
	return snaps, nil
}

func printHostAuthority(out io.Writer, h *hostDomain) {
	fmt.Fprintf(out, "host authority %s (%s): valid, %s, %s, %s, digest %s\n",
		objName(h.obj.Namespace, h.obj.Name), h.host.ID(), plural(len(h.host.Capabilities()), "capability", "capabilities"),
		plural(len(h.host.Resources()), "resource", "resources"), plural(len(h.host.Roles()), "role", "roles"), h.host.Digest())
}

func printPolicySnapshot(out io.Writer, s *policy.Snapshot) error {
	rules := 0
	for i := range s.Len() {
		rules += s.Policy(i).Len()
	}
	fmt.Fprintf(out, "policy snapshot %s generation %s: valid, %s, %s, digest %s\n",
		s.ID(), s.Generation(), plural(s.Len(), "policy", "policies"), plural(rules, "rule", "rules"), s.Digest())
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  POLICY\tGENERATION\tLIFECYCLE\tRULES")
	for i := range s.Len() {
		p := s.Policy(i)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\n", p.ID(), p.Generation(), p.Lifecycle(), p.Len())
	}
	return tw.Flush()
}
