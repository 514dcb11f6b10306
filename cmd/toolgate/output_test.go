package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/testutil"
)

// The shapes below are the documented ones (docs/cli.md, "Machine-readable
// output"), declared here apart from the implementation's types so that a
// renamed or dropped field fails these tests.

type docFinding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Kind    string `json:"kind"`
	Object  string `json:"object"`
	Path    string `json:"path"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type docValidation struct {
	Valid    bool         `json:"valid"`
	Objects  int          `json:"objects"`
	Invalid  int          `json:"invalid"`
	Findings []docFinding `json:"findings"`
}

type docTestReport struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Cases  []struct {
		File     string   `json:"file"`
		Line     int      `json:"line"`
		Name     string   `json:"name"`
		Passed   bool     `json:"passed"`
		Problems []string `json:"problems"`
	} `json:"cases"`
}

type docJUnit struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			File    string `xml:"file,attr"`
			Line    int    `xml:"line,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// ghLine is one GitHub workflow command as the runner parses it.
var ghLine = regexp.MustCompile(`^::error file=([^,:]+),line=(\d+)(?:,col=(\d+))?(?:,title=([^,:]*))?::(.+)$`)

// parseBoth parses stdout of -o json and -o yaml into fresh values of T
// and fails unless they are equal.
func parseBoth[T any](t *testing.T, args ...string) (T, result) {
	t.Helper()
	var fromJSON, fromYAML T
	rj := runCLI("", append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(rj.stdout), &fromJSON); err != nil {
		t.Fatalf("-o json: %v\n%s%s", err, rj.stdout, rj.stderr)
	}
	ry := runCLI("", append(args, "-o", "yaml")...)
	if err := yaml.Unmarshal([]byte(ry.stdout), &fromYAML); err != nil {
		t.Fatalf("-o yaml: %v\n%s%s", err, ry.stdout, ry.stderr)
	}
	if d := cmp.Diff(fromJSON, fromYAML); d != "" {
		t.Errorf("-o json and -o yaml differ (-json +yaml):\n%s", d)
	}
	if rj.code != ry.code {
		t.Errorf("exit %d with json, %d with yaml", rj.code, ry.code)
	}
	return fromJSON, rj
}

// failingTests writes a test file whose second case (at line 10) expects
// the wrong outcome.
func failingTests(t *testing.T) (path string, failingLine int) {
	t.Helper()
	root := testutil.RepoRoot(t)
	doc := "manifests: [" + filepath.Join(root, "config", "samples") + "]\n" +
		"cases:\n" +
		"- name: the allow is allowed\n" +
		"  requestFile: " + filepath.Join(root, "examples", "requests", "payment-allow.yaml") + "\n" +
		"  expect:\n" +
		"    outcome: allow\n" +
		"\n" +
		"\n" +
		"\n" +
		"- name: the deny is said to allow\n" +
		"  requestFile: " + filepath.Join(root, "examples", "requests", "payment-deny.yaml") + "\n" +
		"  expect:\n" +
		"    outcome: allow\n"
	return writeFile(t, "wrong.test.yaml", doc), 10
}

func TestTestOutputsParse(t *testing.T) {
	t.Parallel()
	shipped := filepath.Join(testutil.RepoRoot(t), "examples", "tests")
	t.Run("json and yaml of the shipped tests: every case passed, with its file and line", func(t *testing.T) {
		t.Parallel()
		rep, r := parseBoth[docTestReport](t, "test", shipped)
		if r.code != 0 || rep.Passed != 3 || rep.Failed != 0 || len(rep.Cases) != 3 {
			t.Fatalf("exit %d, report %+v", r.code, rep)
		}
		for _, c := range rep.Cases {
			if !c.Passed || c.Line == 0 || !strings.HasSuffix(c.File, "payments.test.yaml") || c.Name == "" {
				t.Errorf("case %+v", c)
			}
		}
	})
	t.Run("a failed case is reported with its problem and exits 1", func(t *testing.T) {
		t.Parallel()
		p, line := failingTests(t)
		rep, r := parseBoth[docTestReport](t, "test", p)
		if r.code != 1 || rep.Passed != 1 || rep.Failed != 1 {
			t.Fatalf("exit %d, report %+v", r.code, rep)
		}
		c := rep.Cases[1]
		if c.Passed || c.Line != line || len(c.Problems) != 1 || c.Problems[0] != "outcome deny, want allow" {
			t.Errorf("failed case %+v", c)
		}
	})
	t.Run("junit parses, one suite per file, the failure carries the problem", func(t *testing.T) {
		t.Parallel()
		p, line := failingTests(t)
		r := runCLI("", "test", p, "--format", "junit")
		var j docJUnit
		if err := xml.Unmarshal([]byte(r.stdout), &j); err != nil {
			t.Fatalf("junit: %v\n%s", err, r.stdout)
		}
		if r.code != 1 || j.Tests != 2 || j.Failures != 1 || len(j.Suites) != 1 || j.Suites[0].Name != p {
			t.Fatalf("exit %d, %+v", r.code, j)
		}
		f := j.Suites[0].Cases[1]
		if f.Failure == nil || f.Failure.Message != "outcome deny, want allow" || f.Line != line || f.Name != "the deny is said to allow" {
			t.Errorf("failed case %+v", f)
		}
		if j.Suites[0].Cases[0].Failure != nil {
			t.Errorf("the passing case has a failure")
		}
	})
	t.Run("github: one error command at the failing case's file and line", func(t *testing.T) {
		t.Parallel()
		p, line := failingTests(t)
		r := runCLI("", "test", p, "--format", "github")
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != 1 || len(lines) != 1 {
			t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
		}
		m := ghLine.FindStringSubmatch(lines[0])
		if m == nil || m[1] != p || m[2] != strconv.Itoa(line) || m[5] != "outcome deny, want allow" {
			t.Errorf("github line %q", lines[0])
		}
	})
}

// invalidSamples is the samples with one malformed snapshot identity at
// stk_v1alpha1_toolregistry.yaml line 13.
func invalidSamples(t *testing.T) string {
	t.Helper()
	dir := copySamples(t, "stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml",
		"stk_v1alpha1_policysnapshot.yaml", "stk_v1alpha1_policysnapshot_generation2.yaml")
	p := filepath.Join(dir, "stk_v1alpha1_toolregistry.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "snapshotID: primary-registry", "snapshotID: Primary_Registry", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestValidateOutputsParse(t *testing.T) {
	t.Parallel()
	t.Run("valid samples: json and yaml say valid with no findings", func(t *testing.T) {
		t.Parallel()
		rep, r := parseBoth[docValidation](t, "validate", "-f", samples(t))
		if r.code != 0 || !rep.Valid || rep.Objects != 4 || rep.Invalid != 0 || rep.Findings == nil || len(rep.Findings) != 0 {
			t.Errorf("exit %d, %+v", r.code, rep)
		}
	})
	t.Run("a finding has file, line, object, path and reason, and no rejected value", func(t *testing.T) {
		t.Parallel()
		dir := invalidSamples(t)
		rep, r := parseBoth[docValidation](t, "validate", "-f", dir)
		// The malformed identity also breaks the name = identity rule
		// (metadata.name is <snapshotID>-<snapshotGeneration>): two findings.
		file := filepath.Join(dir, "stk_v1alpha1_toolregistry.yaml")
		want := []docFinding{
			{File: file, Line: 10, Kind: "ToolRegistry", Object: "payments/primary-registry-1", Path: "metadata.name", Reason: "mismatch"},
			{File: file, Line: 13, Kind: "ToolRegistry", Object: "payments/primary-registry-1", Path: "spec.snapshotID", Reason: "malformed"},
		}
		got := rep.Findings
		for i := range got {
			if got[i].Message == "" {
				t.Errorf("finding %d has no message", i)
			}
			got[i].Message = ""
		}
		if r.code != 1 || rep.Valid || rep.Invalid != 1 { // one object invalid
			t.Errorf("exit %d, %+v", r.code, rep)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("findings (-want +got):\n%s", d)
		}
		if strings.Contains(r.stdout+r.stderr, "Primary_Registry") {
			t.Errorf("the rejected value is echoed")
		}
	})
	t.Run("junit: one case per object, the invalid one failed at its file and line", func(t *testing.T) {
		t.Parallel()
		dir := invalidSamples(t)
		r := runCLI("", "validate", "-f", dir, "--format", "junit")
		var j docJUnit
		if err := xml.Unmarshal([]byte(r.stdout), &j); err != nil {
			t.Fatalf("junit: %v\n%s", err, r.stdout)
		}
		if r.code != 1 || j.Tests != 4 || j.Failures != 1 {
			t.Fatalf("exit %d, %+v", r.code, j)
		}
		for _, c := range j.Suites[0].Cases {
			if (c.Failure != nil) != (c.Name == "ToolRegistry payments/primary-registry-1") {
				t.Errorf("case %q failure %v", c.Name, c.Failure)
			}
			if c.Failure != nil && (c.Line != 10 || !strings.Contains(c.Failure.Text, ":13: ") || !strings.Contains(c.Failure.Text, "spec.snapshotID")) {
				t.Errorf("case %+v", c)
			}
		}
	})
	t.Run("github: an error command at file and line", func(t *testing.T) {
		t.Parallel()
		dir := invalidSamples(t)
		r := runCLI("", "validate", "-f", dir, "--format", "github")
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		m := ghLine.FindStringSubmatch(lines[len(lines)-1])
		if r.code != 1 || len(lines) != 2 || m == nil || m[1] != filepath.Join(dir, "stk_v1alpha1_toolregistry.yaml") || m[2] != "13" ||
			!strings.Contains(m[5], "spec.snapshotID: malformed") {
			t.Errorf("exit %d, stdout %q", r.code, r.stdout)
		}
	})
}

func TestDecideOutputsParse(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	type doc struct {
		Decision struct {
			Outcome      string   `json:"outcome"`
			Reasons      []string `json:"reasons"`
			MatchedRules []string `json:"matchedRules"`
		} `json:"decision"`
		Authorization *struct {
			ID            string `json:"id"`
			BindingDigest string `json:"bindingDigest"`
		} `json:"authorization"`
		Ineligible string `json:"ineligible"`
		Rules      []struct {
			Rule       string `json:"rule"`
			Result     string `json:"result"`
			Predicates []struct {
				Predicate string `json:"predicate"`
				Result    string `json:"result"`
			} `json:"predicates"`
		} `json:"rules"`
	}
	deny, r := parseBoth[doc](t, "decide", "--manifests", samples(t), "--request", filepath.Join(root, "examples", "requests", "payment-deny.yaml"), "--explain")
	if r.code != 1 || deny.Decision.Outcome != "deny" || deny.Authorization != nil || deny.Ineligible == "" {
		t.Errorf("deny: exit %d, %+v", r.code, deny)
	}
	if want := []string{"denyRuleMatched", "allowRuleMatched", "provenanceInsufficient"}; !cmp.Equal(deny.Decision.Reasons, want) {
		t.Errorf("deny reasons %v, want %v", deny.Decision.Reasons, want)
	}
	if len(deny.Rules) == 0 || len(deny.Rules[0].Predicates) == 0 {
		t.Errorf("--explain gave no rules: %+v", deny.Rules)
	}
	allow, r := parseBoth[doc](t, "decide", "--manifests", samples(t), "--request", filepath.Join(root, "examples", "requests", "payment-allow.yaml"))
	if r.code != 0 || allow.Decision.Outcome != "allow" || allow.Authorization == nil ||
		!strings.HasPrefix(allow.Authorization.BindingDigest, "sha256:") || allow.Rules != nil {
		t.Errorf("allow: exit %d, %+v", r.code, allow)
	}
}

func TestDiffAndValidateVerbsOutputsParse(t *testing.T) {
	t.Parallel()
	t.Run("diff: the second generation is a valid successor with its changes", func(t *testing.T) {
		t.Parallel()
		old := copySamples(t, "stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml", "stk_v1alpha1_policysnapshot.yaml")
		type doc struct {
			Valid       bool `json:"valid"`
			Generations []struct {
				Object         string       `json:"object"`
				SnapshotID     string       `json:"snapshotID"`
				Generation     string       `json:"generation"`
				ValidSuccessor bool         `json:"validSuccessor"`
				Findings       []docFinding `json:"findings"`
				Changes        []struct {
					Kind string `json:"kind"`
					Text string `json:"text"`
				} `json:"changes"`
			} `json:"generations"`
		}
		rep, r := parseBoth[doc](t, "diff", old, samples(t))
		if r.code != 0 || !rep.Valid || len(rep.Generations) != 1 {
			t.Fatalf("exit %d, %+v", r.code, rep)
		}
		g := rep.Generations[0]
		if g.Object != "payments/payments-policy-2" || g.Generation != "2" || !g.ValidSuccessor ||
			len(g.Changes) == 0 || g.Changes[0].Kind != "lifecycle-changed" || g.Changes[0].Text != "policy payments-guardrails version 1: active → deprecated" {
			t.Errorf("generation %+v", g)
		}
	})
	t.Run("registry validate: every definition of the shipped registry", func(t *testing.T) {
		t.Parallel()
		type doc struct {
			Valid      bool `json:"valid"`
			Registries []struct {
				SnapshotID  string `json:"snapshotID"`
				Definitions []struct {
					ToolID string `json:"toolID"`
				} `json:"definitions"`
			} `json:"registries"`
		}
		rep, r := parseBoth[doc](t, "registry", "validate", samples(t))
		if r.code != 0 || !rep.Valid || len(rep.Registries) != 1 || len(rep.Registries[0].Definitions) != 4 {
			t.Errorf("exit %d, %+v", r.code, rep)
		}
	})
	t.Run("registry validate: an invalid registry is a finding at its line", func(t *testing.T) {
		t.Parallel()
		type doc struct {
			Valid    bool         `json:"valid"`
			Findings []docFinding `json:"findings"`
		}
		// The same two findings as validate -f: one admission function.
		rep, r := parseBoth[doc](t, "registry", "validate", invalidSamples(t))
		if r.code != 1 || rep.Valid || len(rep.Findings) != 2 || rep.Findings[0].Path != "metadata.name" ||
			rep.Findings[1].Line != 13 || rep.Findings[1].Reason != "malformed" {
			t.Errorf("exit %d, %+v", r.code, rep)
		}
	})
	t.Run("policy validate: both generations of the shipped snapshot", func(t *testing.T) {
		t.Parallel()
		type doc struct {
			Valid           bool `json:"valid"`
			HostAuthorities []struct {
				Object string `json:"object"`
			} `json:"hostAuthorities"`
			PolicySnapshots []struct {
				Generation string `json:"generation"`
			} `json:"policySnapshots"`
		}
		rep, r := parseBoth[doc](t, "policy", "validate", samples(t))
		if r.code != 0 || !rep.Valid || len(rep.HostAuthorities) != 1 || len(rep.PolicySnapshots) != 2 {
			t.Errorf("exit %d, %+v", r.code, rep)
		}
	})
}

// TestOutputFormatsAreAClosedSet: an unknown -o or --format value, or
// both flags at once, is a usage error that names the allowed values and
// not the rejected one.
func TestOutputFormatsAreAClosedSet(t *testing.T) {
	t.Parallel()
	const bogus = "Bogus-Format-Value"
	tests := map[string]struct {
		args []string
		want string
	}{
		"-o on validate":            {[]string{"validate", "-f", samples(t), "-o", bogus}, "must be one of text, json, yaml"},
		"--output on decide":        {[]string{"decide", "--output", bogus}, "must be one of text, json, yaml"},
		"-o on diff":                {[]string{"diff", "a", "b", "-o=" + bogus}, "must be one of text, json, yaml"},
		"-o on registry validate":   {[]string{"registry", "validate", "x", "-o", bogus}, "must be one of text, json, yaml"},
		"-o on policy validate":     {[]string{"policy", "validate", "x", "-o", bogus}, "must be one of text, json, yaml"},
		"--format on test":          {[]string{"test", "x", "--format", bogus}, "must be one of junit, github"},
		"--format on validate":      {[]string{"validate", "-f", "x", "--format", bogus}, "must be one of junit, github"},
		"-o and --format together":  {[]string{"test", samples(t), "-o", "json", "--format", "junit"}, "not both"},
		"--format where it is none": {[]string{"decide", "--format", "junit"}, "unknown flag --format"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", tc.args...)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", r.code, r.stdout, r.stderr, tc.want)
			}
			if strings.Contains(r.stderr, bogus) {
				t.Errorf("stderr echoes the rejected value: %q", r.stderr)
			}
		})
	}
}

// TestGitHubCommandsAreEscaped: a message or property with the runner's
// separators cannot end the command early or add a property.
func TestGitHubCommandsAreEscaped(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	githubError(&b, "dir,x/a:b.yaml", 3, 2, "t", "100% sure\nsecond line")
	want := "::error file=dir%2Cx/a%3Ab.yaml,line=3,col=2,title=t::100%25 sure%0Asecond line\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestFindingsOfAnUnlocatedErrorTakeItsLeadingLocation: an error that is
// not an object's fault but starts with where (a file that does not load)
// becomes a finding at that file, line and column; other errors keep
// their whole message.
func TestFindingsOfAnUnlocatedErrorTakeItsLeadingLocation(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		msg  string
		want finding
	}{
		"file, line and column": {"dir/a.yaml:3:7: mapping values are not allowed here",
			finding{File: "dir/a.yaml", Line: 3, Column: 7, Reason: reasonInvalid, Message: "mapping values are not allowed here"}},
		"file and line": {"a.yaml:3: bad", finding{File: "a.yaml", Line: 3, Reason: reasonInvalid, Message: "bad"}},
		"file only": {"/tmp/a.yaml: document 1: is not a valid YAML mapping",
			finding{File: "/tmp/a.yaml", Reason: reasonInvalid, Message: "document 1: is not a valid YAML mapping"}},
		"a word is not a file": {"OLD: no such file", finding{Reason: reasonInvalid, Message: "OLD: no such file"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff([]finding{tc.want}, findingsOf(errors.New(tc.msg)), cmp.AllowUnexported(finding{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
