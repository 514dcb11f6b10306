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
func policyValidate(args []string, out io.Writer) error {
	paths, err := pathArgs("policy validate", args, "file or directory")
	if err != nil {
		return err
	}
	set, err := manifest.LoadPaths(paths...)
	if err != nil {
		return err
	}
	if len(set.PolicySnapshots) == 0 {
		return errors.New("no PolicySnapshot objects found")
	}
	c := check(set)
	if len(c.problems) > 0 {
		return problemsError(c.problems)
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
