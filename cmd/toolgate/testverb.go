package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
	yamlv3 "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/server"
)

// testFile is one file of policy tests (*.test.yaml): the manifests to
// decide on and the cases, each a request (the decide request shape,
// inline or from a file) and what the Decision must be.
type testFile struct {
	// Manifests are files or directories, relative to the test file.
	Manifests []string   `json:"manifests"`
	Cases     []testCase `json:"cases"`
}

type testCase struct {
	Name string `json:"name"`
	// RequestFile is a request file relative to the test file; Request is
	// the same inline. Exactly one is given.
	RequestFile string         `json:"requestFile,omitempty"`
	Request     *decideRequest `json:"request,omitempty"`
	Expect      struct {
		Outcome string `json:"outcome"`
		// Reasons and MatchedRules, when given, must equal the Decision's
		// exactly (in Section 48 and ASCII order).
		Reasons      []string `json:"reasons,omitempty"`
		MatchedRules []string `json:"matchedRules,omitempty"`
		// Authorized, when given, says whether an Authorization is issued.
		Authorized *bool `json:"authorized,omitempty"`
	} `json:"expect"`
}

// testPolicies runs every *.test.yaml under the given paths, like `opa
// test` or `kyverno test`: each case is decided by the Host of its
// HostAuthority on the file's manifests and compared with what it expects.
// It prints one line per case and a closing "N passed, N failed" line, and
// exits 1 when a case fails.
func testPolicies(of *outputFlags, paths []string, out io.Writer) error {
	if len(paths) == 0 {
		return usageError{"test needs at least one file or directory of *.test.yaml files"}
	}
	mode, err := of.mode()
	if err != nil {
		return err
	}
	var files []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".test.yaml") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(files) == 0 {
		return errors.New("no *.test.yaml files found")
	}
	var results []caseResult
	for _, f := range files {
		rs, err := runTestFile(f)
		if mode == formatText {
			printCases(out, rs)
		}
		var located *manifest.DocumentError
		if errors.As(err, &located) {
			return err // it names the file, line and column
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		results = append(results, rs...)
	}
	passed, failed := 0, 0
	for _, r := range results {
		if r.Passed {
			passed++
		} else {
			failed++
		}
	}
	if err := writeTestResults(out, mode, results, passed, failed); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%s", plural(failed, "policy test failed", "policy tests failed"))
	}
	return nil
}

// caseResult is one case's result: test's -o json|yaml shape (one entry
// of "cases").
type caseResult struct {
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"` // the case's line in File
	Name     string   `json:"name"`
	Passed   bool     `json:"passed"`
	Problems []string `json:"problems,omitempty"`
}

// testReport is test's -o json|yaml document.
type testReport struct {
	Passed int          `json:"passed"`
	Failed int          `json:"failed"`
	Cases  []caseResult `json:"cases"`
}

func printCases(out io.Writer, rs []caseResult) {
	for _, r := range rs {
		if r.Passed {
			fmt.Fprintf(out, "PASS %s: %s\n", r.File, r.Name)
			continue
		}
		fmt.Fprintf(out, "FAIL %s: %s\n", r.File, r.Name)
		for _, p := range r.Problems {
			fmt.Fprintf(out, "     %s\n", p)
		}
	}
}

// writeTestResults writes the closing summary (text, whose cases are
// already printed) or the whole report in mode.
func writeTestResults(out io.Writer, mode string, results []caseResult, passed, failed int) error {
	switch mode {
	case formatText:
		_, err := fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
		return err
	case formatGitHub:
		for _, r := range results {
			if !r.Passed {
				githubError(out, r.File, r.Line, 0, "toolgate test: "+r.Name, strings.Join(r.Problems, "; "))
			}
		}
		return nil
	case formatJUnit:
		j := &junitSuites{Name: "toolgate test"}
		for _, r := range results {
			c := junitCase{Name: r.Name, ClassName: r.File, File: r.File, Line: r.Line}
			if !r.Passed {
				c.Failure = &junitFailure{Message: r.Problems[0], Type: "failed", Text: strings.Join(r.Problems, "\n")}
			}
			j.add(r.File, c)
		}
		return j.write(out)
	}
	return emit(out, mode, testReport{Passed: passed, Failed: failed, Cases: results})
}

// runTestFile decides every case of one test file; on an error it returns
// the cases decided before it.
func runTestFile(path string) ([]caseResult, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tf testFile
	if err := yaml.UnmarshalStrict(raw, &tf); err != nil {
		// The decoder's own text quotes the input; the located error names
		// the line, column and key path instead.
		e := manifest.LocateFile(path, raw, "{manifests, cases: [{name, requestFile | request, expect}]}", err, func() any { return new(testFile) })
		if e.Reason == "" {
			e.Reason = "unknown field, duplicate key or wrong value type"
		}
		return nil, e
	}
	if len(tf.Manifests) == 0 || len(tf.Cases) == 0 {
		return nil, errors.New("a test file names its manifests and at least one case")
	}
	dir := filepath.Dir(path)
	var mpaths []string
	for _, m := range tf.Manifests {
		mpaths = append(mpaths, relativeTo(dir, m))
	}
	set, err := manifest.LoadPaths(mpaths...)
	if err != nil {
		return nil, err
	}
	lines := caseLines(raw)
	hosts := map[[2]string]*host.Host{}
	var rs []caseResult
	for i, c := range tf.Cases {
		req, err := caseRequest(dir, c)
		if err != nil {
			return rs, fmt.Errorf("case %q: %w", c.Name, err)
		}
		ref := [2]string{req.HostAuthority.Namespace, req.HostAuthority.Name}
		h, ok := hosts[ref]
		if !ok {
			if h, err = loadHost(set, ref[0], ref[1]); err != nil {
				return rs, err
			}
			hosts[ref] = h
		}
		problems := checkCase(h, req, c)
		r := caseResult{File: path, Name: c.Name, Passed: len(problems) == 0, Problems: problems}
		if i < len(lines) {
			r.Line = lines[i]
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// caseLines are the lines of a test file's cases, in order (none when the
// file is not the mapping it must be).
func caseLines(raw []byte) []int {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(raw, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yamlv3.MappingNode {
		return nil
	}
	m := doc.Content[0].Content
	for i := 0; i+1 < len(m); i += 2 {
		if m[i].Value == "cases" && m[i+1].Kind == yamlv3.SequenceNode {
			var out []int
			for _, c := range m[i+1].Content {
				out = append(out, c.Line)
			}
			return out
		}
	}
	return nil
}

func caseRequest(dir string, c testCase) (decideRequest, error) {
	switch {
	case c.Name == "":
		return decideRequest{}, errors.New("a case has a name")
	case (c.RequestFile == "") == (c.Request == nil):
		return decideRequest{}, errors.New("a case gives exactly one of requestFile and request")
	case c.Request != nil:
		return *c.Request, nil
	}
	p := relativeTo(dir, c.RequestFile)
	raw, err := os.ReadFile(p)
	if err != nil {
		return decideRequest{}, err
	}
	r, err := parseDecideRequest(raw)
	if err != nil {
		return r, locateRequest(p, err)
	}
	return r, nil
}

// loadHost creates the Host of one HostAuthority in set and publishes its
// snapshots, as decide does.
func loadHost(set *manifest.Set, namespace, name string) (*host.Host, error) {
	obj, ok := set.HostAuthority(namespace, name)
	if !ok {
		return nil, fmt.Errorf("no HostAuthority %s/%s in the manifests", namespace, name)
	}
	a, err := publication.HostAuthority(obj)
	if err != nil {
		return nil, err
	}
	h, err := host.New(a.Config)
	if err != nil {
		return nil, err
	}
	admin, _ := manifest.AdministratorOf(obj)
	return h, publication.Into(set, h, namespace, name, admin)
}

// checkCase decides req and lists every way the result differs from the
// case's expectations.
func checkCase(h *host.Host, req decideRequest, c testCase) []string {
	r := server.HostRequest(req.AuthorizeRequest, host.Caller{Name: req.Caller.Name, Groups: req.Caller.Groups}, req.Time)
	err := h.SelectCurrent(&r) // every published generation is served here
	var res *host.Result
	if err == nil {
		res, err = h.Authorize(r)
	}
	if err != nil {
		if c.Expect.Outcome == "rejected" {
			return nil
		}
		return []string{"the request was rejected: " + userMessage(err)}
	}
	d := server.WireDecision(res.Decision)
	var problems []string
	if d.Outcome != c.Expect.Outcome {
		problems = append(problems, fmt.Sprintf("outcome %s, want %s", d.Outcome, c.Expect.Outcome))
	}
	if c.Expect.Reasons != nil && !slices.Equal(d.Reasons, c.Expect.Reasons) {
		problems = append(problems, fmt.Sprintf("reasons %v, want %v", d.Reasons, c.Expect.Reasons))
	}
	if c.Expect.MatchedRules != nil && !slices.Equal(d.MatchedRules, c.Expect.MatchedRules) {
		problems = append(problems, fmt.Sprintf("matched rules %v, want %v", d.MatchedRules, c.Expect.MatchedRules))
	}
	if a := c.Expect.Authorized; a != nil && *a != (res.Authorization != nil) {
		why := ""
		if res.Ineligible != nil {
			why = " (" + userMessage(res.Ineligible) + ")"
		}
		problems = append(problems, fmt.Sprintf("authorized %v, want %v%s", res.Authorization != nil, *a, why))
	}
	return problems
}

// relativeTo resolves a path written in a test file: absolute as is,
// otherwise relative to the file's directory.
func relativeTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
