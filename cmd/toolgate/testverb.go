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
func testPolicies(args []string, out io.Writer) error {
	paths, err := pathArgs("test", args, "file or directory of *.test.yaml files")
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
	passed, failed := 0, 0
	for _, f := range files {
		p, n, err := runTestFile(f, out)
		var located *manifest.DocumentError
		if errors.As(err, &located) {
			return err // it names the file, line and column
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		passed, failed = passed+p, failed+n
	}
	fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return fmt.Errorf("%s", plural(failed, "policy test failed", "policy tests failed"))
	}
	return nil
}

func runTestFile(path string, out io.Writer) (passed, failed int, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var tf testFile
	if err := yaml.UnmarshalStrict(raw, &tf); err != nil {
		// The decoder's own text quotes the input; the located error names
		// the line, column and key path instead.
		e := manifest.LocateFile(path, raw, "{manifests, cases: [{name, requestFile | request, expect}]}", err, func() any { return new(testFile) })
		if e.Reason == "" {
			e.Reason = "unknown field, duplicate key or wrong value type"
		}
		return 0, 0, e
	}
	if len(tf.Manifests) == 0 || len(tf.Cases) == 0 {
		return 0, 0, errors.New("a test file names its manifests and at least one case")
	}
	dir := filepath.Dir(path)
	var mpaths []string
	for _, m := range tf.Manifests {
		mpaths = append(mpaths, relativeTo(dir, m))
	}
	set, err := manifest.LoadPaths(mpaths...)
	if err != nil {
		return 0, 0, err
	}
	hosts := map[[2]string]*host.Host{}
	for _, c := range tf.Cases {
		req, err := caseRequest(dir, c)
		if err != nil {
			return 0, 0, fmt.Errorf("case %q: %w", c.Name, err)
		}
		ref := [2]string{req.HostAuthority.Namespace, req.HostAuthority.Name}
		h, ok := hosts[ref]
		if !ok {
			if h, err = loadHost(set, ref[0], ref[1]); err != nil {
				return 0, 0, err
			}
			hosts[ref] = h
		}
		problems := checkCase(h, req, c)
		if len(problems) == 0 {
			passed++
			fmt.Fprintf(out, "PASS %s: %s\n", path, c.Name)
			continue
		}
		failed++
		fmt.Fprintf(out, "FAIL %s: %s\n", path, c.Name)
		for _, p := range problems {
			fmt.Fprintf(out, "     %s\n", p)
		}
	}
	return passed, failed, nil
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
	cfg, err := manifest.HostConfig(obj)
	if err != nil {
		return nil, err
	}
	h, err := host.New(cfg)
	if err != nil {
		return nil, err
	}
	admin, _ := manifest.AdministratorOf(obj)
	return h, publication.Into(set, h, namespace, name, admin)
}

// checkCase decides req and lists every way the result differs from the
// case's expectations.
func checkCase(h *host.Host, req decideRequest, c testCase) []string {
	res, err := h.Authorize(server.HostRequest(req.AuthorizeRequest, host.Caller{Name: req.Caller.Name, Groups: req.Caller.Groups}, req.Time))
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
