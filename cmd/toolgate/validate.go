package main

import (
	"flag"
	"fmt"
	"io"

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
	c := check(set)
	for _, p := range c.problems {
		fmt.Fprintln(out, userMessage(p))
	}
	if len(c.problems) > 0 {
		return fmt.Errorf("%s of %d invalid", plural(len(c.problems), "object", "objects"), c.objects)
	}
	fmt.Fprintf(out, "%s valid\n", plural(c.objects, "object", "objects"))
	return nil
}
