package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

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
	of := addOutputFlags(fs, true)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	mode, err := of.mode()
	if err != nil {
		return err
	}
	files = append(files, rest...)
	if len(files) == 0 {
		return usageError{"validate needs -f PATH (a manifest file or directory)"}
	}
	set, err := manifest.LoadPaths(files...)
	if err != nil {
		if mode != formatText {
			return writeValidation(out, mode, nil, 0, []error{err}, err)
		}
		return err
	}
	c := check(set)
	if mode != formatText {
		var failed error
		if len(c.problems) > 0 {
			failed = fmt.Errorf("%s of %d invalid", plural(len(c.problems), "object", "objects"), c.objects)
		}
		return writeValidation(out, mode, set, c.objects, c.problems, failed)
	}
	for _, p := range c.problems {
		fmt.Fprintln(out, userMessage(p))
	}
	if len(c.problems) > 0 {
		return fmt.Errorf("%s of %d invalid", plural(len(c.problems), "object", "objects"), c.objects)
	}
	fmt.Fprintf(out, "%s valid\n", plural(c.objects, "object", "objects"))
	return nil
}

// validation is validate's -o json|yaml document.
type validation struct {
	Valid    bool      `json:"valid"`
	Objects  int       `json:"objects"`
	Invalid  int       `json:"invalid"`
	Findings []finding `json:"findings"`
}

// writeValidation writes validate's result in mode (json, yaml, junit or
// github) and returns failed, the run's error.
func writeValidation(out io.Writer, mode string, set *manifest.Set, objects int, problems []error, failed error) error {
	fs := []finding{} // [] rather than null in JSON
	for _, p := range problems {
		fs = append(fs, findingsOf(p)...)
	}
	switch mode {
	case formatGitHub:
		for _, f := range fs {
			githubError(out, f.File, f.Line, f.Column, "toolgate validate", f.text())
		}
	case formatJUnit:
		if err := validationJUnit(set, fs).write(out); err != nil {
			return err
		}
	default:
		if err := emit(out, mode, validation{Valid: failed == nil, Objects: objects, Invalid: len(problems), Findings: fs}); err != nil {
			return err
		}
	}
	return failed
}

// validationJUnit is one test case per object (named Kind namespace/name),
// failed with its findings; a set that did not load is one failed case.
func validationJUnit(set *manifest.Set, fs []finding) *junitSuites {
	j := &junitSuites{Name: "toolgate validate"}
	if set == nil {
		j.add("toolgate validate", junitCase{Name: "load manifests", ClassName: "validate", Failure: junitFailureOf(fs)})
		return j
	}
	var objects [][2]string
	for i := range set.HostAuthorities {
		objects = append(objects, [2]string{"HostAuthority", objName(set.HostAuthorities[i].Namespace, set.HostAuthorities[i].Name)})
	}
	for i := range set.ToolRegistries {
		objects = append(objects, [2]string{"ToolRegistry", objName(set.ToolRegistries[i].Namespace, set.ToolRegistries[i].Name)})
	}
	for i := range set.PolicySnapshots {
		objects = append(objects, [2]string{"PolicySnapshot", objName(set.PolicySnapshots[i].Namespace, set.PolicySnapshots[i].Name)})
	}
	for i := range set.Revocations {
		objects = append(objects, [2]string{"Revocation", objName(set.Revocations[i].Namespace, set.Revocations[i].Name)})
	}
	for _, o := range objects {
		var mine []finding
		for _, f := range fs {
			if f.Kind == o[0] && f.Object == o[1] {
				mine = append(mine, f)
			}
		}
		c := junitCase{Name: o[0] + " " + o[1], ClassName: "validate." + o[0]}
		if len(mine) > 0 {
			c.File, c.Line, c.Failure = mine[0].File, mine[0].Line, junitFailureOf(mine)
		}
		j.add("toolgate validate", c)
	}
	return j
}

// junitFailureOf is a failure whose message is the first finding and
// whose text is every finding, one per line.
func junitFailureOf(fs []finding) *junitFailure {
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		l := f.text()
		if f.File != "" {
			l = fmt.Sprintf("%s:%d: %s", f.File, f.Line, l)
		}
		lines = append(lines, l)
	}
	msg := ""
	if len(fs) > 0 {
		msg = fs[0].text()
	}
	return &junitFailure{Message: msg, Type: "invalid", Text: strings.Join(lines, "\n")}
}
