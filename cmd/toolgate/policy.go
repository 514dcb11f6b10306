package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
)

// policyValidate publishes the manifests as `validate` does (each
// HostAuthority its own Host, each PolicySnapshot generation in its
// HostAuthority's Host as the successor of the one before, on behalf of the
// domain's policy administrator) and summarizes every HostAuthority and
// PolicySnapshot. Any invalid object fails the whole run, with every
// problem reported.
func policyValidate(of *outputFlags, paths []string, out io.Writer) error {
	if err := needPaths("policy validate", paths, "file or directory"); err != nil {
		return err
	}
	mode, _ := of.mode() // no --format: one flag, no conflict
	set, err := manifest.LoadPaths(paths...)
	if err == nil && len(set.PolicySnapshots) == 0 {
		err = errors.New("no PolicySnapshot objects found")
	}
	var c *checked
	if err == nil {
		if c = check(set); len(c.problems) > 0 {
			err = problemsError(c.problems)
		}
	}
	if mode != formatText {
		return writePolicies(out, mode, c, err)
	}
	if err != nil {
		return err
	}
	for _, h := range c.hosts {
		printHostAuthority(out, h)
	}
	for _, s := range c.policies {
		if err := printPolicySnapshot(out, s); err != nil {
			return err
		}
	}
	return nil
}

// problemsError is every problem of a manifest set, one per line.
type problemsError []error

func (p problemsError) Error() string {
	lines := make([]string, len(p))
	for i, e := range p {
		lines[i] = userMessage(e)
	}
	return strings.Join(lines, "\n")
}

func (p problemsError) Unwrap() []error { return p }

func printHostAuthority(out io.Writer, h checkedHost) {
	a := h.host.Authority()
	fmt.Fprintf(out, "host authority %s (%s): valid, %s, %s, %s, digest %s\n",
		objName(h.obj.Namespace, h.obj.Name), a.ID(), plural(len(a.Capabilities()), "capability", "capabilities"),
		plural(len(a.Resources()), "resource", "resources"), plural(len(a.Roles()), "role", "roles"), a.Digest())
}

func printPolicySnapshot(out io.Writer, s *host.PolicySnapshot) error {
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

// policyReport is policy validate's -o json|yaml document.
type policyReport struct {
	Valid           bool                `json:"valid"`
	Findings        []finding           `json:"findings"`
	HostAuthorities []hostAuthorityOut  `json:"hostAuthorities"`
	PolicySnapshots []policySnapshotOut `json:"policySnapshots"`
}

type hostAuthorityOut struct {
	Object       string `json:"object"`
	ID           string `json:"id"`
	Capabilities int    `json:"capabilities"`
	Resources    int    `json:"resources"`
	Roles        int    `json:"roles"`
	Digest       string `json:"digest"`
}

type policySnapshotOut struct {
	SnapshotID string      `json:"snapshotID"`
	Generation string      `json:"generation"`
	Digest     string      `json:"digest"`
	Policies   []policyOut `json:"policies"`
}

type policyOut struct {
	ID         string `json:"id"`
	Generation string `json:"generation"`
	Lifecycle  string `json:"lifecycle"`
	Rules      int    `json:"rules"`
}

// writePolicies writes what c published, or failed's findings, in mode
// and returns failed. As in text, an invalid set reports only findings.
func writePolicies(out io.Writer, mode string, c *checked, failed error) error {
	rep := policyReport{Valid: failed == nil, Findings: []finding{}, HostAuthorities: []hostAuthorityOut{}, PolicySnapshots: []policySnapshotOut{}}
	rep.Findings = append(rep.Findings, findingsOf(failed)...)
	if failed == nil {
		for _, h := range c.hosts {
			a := h.host.Authority()
			rep.HostAuthorities = append(rep.HostAuthorities, hostAuthorityOut{Object: objName(h.obj.Namespace, h.obj.Name), ID: a.ID().String(),
				Capabilities: len(a.Capabilities()), Resources: len(a.Resources()), Roles: len(a.Roles()), Digest: a.Digest().String()})
		}
		for _, s := range c.policies {
			ps := policySnapshotOut{SnapshotID: s.ID().String(), Generation: s.Generation().String(), Digest: s.Digest().String(), Policies: []policyOut{}}
			for i := range s.Len() {
				p := s.Policy(i)
				ps.Policies = append(ps.Policies, policyOut{ID: p.ID().String(), Generation: p.Generation().String(), Lifecycle: p.Lifecycle().String(), Rules: p.Len()})
			}
			rep.PolicySnapshots = append(rep.PolicySnapshots, ps)
		}
	}
	if err := emit(out, mode, rep); err != nil {
		return err
	}
	return failed
}
