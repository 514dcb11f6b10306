package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/webhook"
)

// validate checks every object in the given manifests with the rules the
// apiserver (the CRDs' schemas and CEL rules) and the admission webhook
// apply, offline, for pull-request pipelines: names are the identities
// (<snapshotID>-<generation>, the authorityID), no two documents name one
// object or claim one identity, a HostAuthority must build a domain, a
// ToolRegistry must publish, and each PolicySnapshot generation must
// publish in its HostAuthority's domain as the exact successor of the
// generation before it, on behalf of the domain's policy administrator.
// With --against, an object the base already has must not change: the
// webhook refuses an edit of a published generation. It reports every
// violation of every object with its file, YAML line and field path, and
// exits 1 when any object is invalid or there is none.
// validateOptions are validate's flags.
type validateOptions struct {
	files   []string // -f, in order
	against string
	out     *outputFlags
}

func validateFlags(fs *pflag.FlagSet) *validateOptions {
	var o validateOptions
	fs.StringArrayVarP(&o.files, "f", "f", nil, "a manifest file or directory (`PATH`; repeatable)")
	o.out = addOutputFlags(fs, true)
	fs.StringVar(&o.against, "against", "", "the published state (`DIR|REV`): a directory of manifests, or a git revision whose copy of the -f paths is read; an object both hold must not change")
	return &o
}

func validate(o *validateOptions, rest []string, out io.Writer) error {
	mode, err := o.out.mode()
	if err != nil {
		return err
	}
	files := append(o.files, rest...)
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
	if c.objects == 0 {
		// An empty or mistyped path must not pass a pipeline.
		return errors.New("no HostAuthority, ToolRegistry, PolicySnapshot or Revocation in the given paths: nothing was validated")
	}
	invalid := len(c.problems)
	if o.against != "" {
		base, err := loadAgainst(o.against, files)
		if err != nil {
			return fmt.Errorf("--against: %w", err)
		}
		edits := publishedEdits(base, set)
		c.problems = append(c.problems, edits...)
		invalid += len(edits)
	}
	if mode != formatText {
		var failed error
		if invalid > 0 {
			failed = fmt.Errorf("%s of %d invalid", plural(invalid, "object", "objects"), c.objects)
		}
		return writeValidation(out, mode, set, c.objects, c.problems, failed)
	}
	for _, p := range c.problems {
		fmt.Fprintln(out, userMessage(p))
	}
	if invalid > 0 {
		return fmt.Errorf("%s of %d invalid", plural(invalid, "object", "objects"), c.objects)
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

// publishedEdits returns, for every object of head that base also holds
// (kind, namespace and name), the webhook's refusal of head as an update of
// base's object, located in head's file: a published generation is never
// edited. Objects only base holds are deletions, which the webhook admits
// except for a Revocation (located in base's file).
func publishedEdits(base, head *manifest.Set) []error {
	var out []error
	for i := range base.Revocations {
		o := &base.Revocations[i]
		if find(head.Revocations, o.Namespace, o.Name) != nil {
			continue
		}
		if _, err := (webhook.RevocationValidator{}).ValidateDelete(context.Background(), o); err != nil {
			out = append(out, located(base, &objectError{kind: "Revocation", namespace: o.Namespace, name: o.Name,
				err: fault.At("metadata.name", fault.Ineligible, "a Revocation is never withdrawn (the webhook refuses its deletion): keep it in the tree")}))
		}
	}
	check := func(kind string, name, namespace string, err error) {
		if err == nil {
			return
		}
		out = append(out, located(head, &objectError{kind: kind, namespace: namespace, name: name, err: asFaults(err)}))
	}
	ctx := context.Background()
	for i := range head.HostAuthorities {
		o := &head.HostAuthorities[i]
		if old := find(base.HostAuthorities, o.Namespace, o.Name); old != nil {
			_, err := webhook.HostAuthorityValidator{Offline: true}.ValidateUpdate(ctx, old, o)
			check("HostAuthority", o.Name, o.Namespace, err)
		}
	}
	for i := range head.ToolRegistries {
		o := &head.ToolRegistries[i]
		if old := find(base.ToolRegistries, o.Namespace, o.Name); old != nil {
			_, err := webhook.ToolRegistryValidator{}.ValidateUpdate(ctx, old, o)
			check("ToolRegistry", o.Name, o.Namespace, err)
		}
	}
	for i := range head.PolicySnapshots {
		o := &head.PolicySnapshots[i]
		if old := find(base.PolicySnapshots, o.Namespace, o.Name); old != nil {
			_, err := webhook.PolicySnapshotValidator{}.ValidateUpdate(ctx, old, o)
			check("PolicySnapshot", o.Name, o.Namespace, err)
		}
	}
	for i := range head.Revocations {
		o := &head.Revocations[i]
		if old := find(base.Revocations, o.Namespace, o.Name); old != nil {
			_, err := webhook.RevocationValidator{}.ValidateUpdate(ctx, old, o)
			check("Revocation", o.Name, o.Namespace, err)
		}
	}
	return out
}

// find returns the first object of list in namespace with name.
func find[T any, P interface {
	*T
	GetNamespace() string
	GetName() string
}](list []T, namespace, name string) P {
	for i := range list {
		if p := P(&list[i]); p.GetNamespace() == namespace && p.GetName() == name {
			return p
		}
	}
	return nil
}

// asFaults turns the webhook's field errors (constant rule text, no value)
// into faults at their field paths, so they are located like every other
// violation; a published spec that differs is a mismatch.
func asFaults(err error) error {
	var se apierrors.APIStatus
	if !errors.As(err, &se) || se.Status().Details == nil || len(se.Status().Details.Causes) == 0 {
		return fault.At("spec", fault.Mismatch, "the webhook refuses this update")
	}
	var errs fault.Errors
	for _, c := range se.Status().Details.Causes {
		_, rule, _ := strings.Cut(c.Message, ": ")
		errs.Add("", fault.At(c.Field, fault.Mismatch, rule))
	}
	return errs.Err()
}

// loadAgainst reads the base: ref itself when it is a directory or a file,
// otherwise every manifest the -f paths name in git revision ref, read with
// git ls-tree and git show in the repository holding the paths (a path
// missing at ref contributes nothing: it is new).
func loadAgainst(ref string, paths []string) (*manifest.Set, error) {
	if _, err := os.Stat(ref); err == nil {
		return manifest.LoadPaths(ref)
	}
	if strings.HasPrefix(ref, "-") {
		return nil, errors.New("not a directory, a file or a git revision")
	}
	var files []manifest.File
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		dir := abs
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			dir = filepath.Dir(abs)
		}
		git := func(args ...string) ([]byte, error) {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			if err != nil {
				return nil, fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(stderr.String()))
			}
			return b, nil
		}
		// The path itself: a tree (a directory), a blob (a file) or nothing.
		self, err := git("ls-tree", "-z", "--full-name", ref, "--", abs)
		if err != nil {
			return nil, err
		}
		var blobs []string
		for _, e := range treeEntries(self) {
			switch e.kind {
			case "blob":
				blobs = append(blobs, e.path)
			case "tree":
				// A directory is read non-recursively, as LoadPaths does.
				inside, err := git("ls-tree", "-z", "--full-name", ref, "--", abs+string(filepath.Separator))
				if err != nil {
					return nil, err
				}
				for _, f := range treeEntries(inside) {
					if ext := filepath.Ext(f.path); f.kind == "blob" && (ext == ".yaml" || ext == ".yml") && !manifest.IsKustomization(filepath.Base(f.path)) {
						blobs = append(blobs, f.path)
					}
				}
			}
		}
		slices.Sort(blobs)
		for _, b := range blobs {
			data, err := git("show", ref+":"+b)
			if err != nil {
				return nil, err
			}
			files = append(files, manifest.File{Name: ref + ":" + b, Data: data})
		}
	}
	return manifest.ParseFiles(files...)
}

type treeEntry struct{ kind, path string }

// treeEntries parses git ls-tree -z's "<mode> <type> <object>\t<path>"
// entries (NUL-terminated, paths unquoted).
func treeEntries(out []byte) []treeEntry {
	var es []treeEntry
	for _, l := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(l, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 {
			es = append(es, treeEntry{kind: f[1], path: path})
		}
	}
	return es
}
