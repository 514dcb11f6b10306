package ship_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestShippedCLI is the fresh-clone CLI check (docs/decisions.md, "Shipping:
// image, install, make test"): the built binary's `--help` and `version`
// name the build, and `test -o json` and `test --format junit` on the
// shipped examples are documents a JSON and a JUnit XML parser accept, with
// every shipped case passed.
func TestShippedCLI(t *testing.T) {
	root := testutil.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "toolgate")
	if b, err := exec.Command("go", "build", "-o", bin, filepath.Join(root, "cmd", "toolgate")).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	t.Run("help, version and the test outputs parse", func(t *testing.T) { outputsParse(t, root, bin) })
	t.Run("the Action and the hooks call real verbs and flags", func(t *testing.T) { actionAndHooks(t, root, bin) })
}

func outputsParse(t *testing.T, root, bin string) {
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("toolgate %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	build := regexp.MustCompile(`(?m)^toolgate \S+.* ` + regexp.QuoteMeta(runtime.Version()) + `\b`)
	if v := run("version"); !build.MatchString(v) {
		t.Errorf("version %q does not name the build and %s", v, runtime.Version())
	}
	if h := run("--help"); !build.MatchString(h) || !strings.Contains(h, "exit codes:") {
		t.Errorf("--help does not name the build and the exit codes:\n%s", h)
	}

	var report struct {
		Passed int `json:"passed"`
		Failed int `json:"failed"`
		Cases  []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(run("test", "examples/tests", "-o", "json")), &report); err != nil {
		t.Fatalf("test -o json: %v", err)
	}
	if report.Failed != 0 || report.Passed == 0 || len(report.Cases) != report.Passed {
		t.Errorf("test -o json: %+v", report)
	}

	var junit struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(run("test", "examples/tests", "--format", "junit")), &junit); err != nil {
		t.Fatalf("test --format junit: %v", err)
	}
	if junit.Tests != report.Passed || junit.Failures != 0 || len(junit.Suites) == 0 {
		t.Errorf("test --format junit: %+v", junit)
	}
}

// actionAndHooks: every toolgate command the GitHub Action
// and the pre-commit hooks run names a verb and flags the binary has
// (`toolgate help VERB` lists them), so a renamed flag cannot break them
// unnoticed.
func actionAndHooks(t *testing.T, root, bin string) {
	var action struct {
		Runs struct {
			Steps []struct {
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"runs"`
	}
	var hooks []struct {
		ID    string   `json:"id"`
		Entry string   `json:"entry"`
		Args  []string `json:"args"`
	}
	for f, v := range map[string]any{"action.yml": &action, ".pre-commit-hooks.yaml": &hooks} {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	var lines []string
	for _, s := range action.Runs.Steps {
		lines = append(lines, strings.Split(strings.ReplaceAll(s.Run, `"$tg"`, "toolgate"), "\n")...)
	}
	for _, h := range hooks {
		lines = append(lines, strings.Join(append([]string{h.Entry}, h.Args...), " "))
	}
	call := regexp.MustCompile(`toolgate ((?:registry |policy )?[a-z]+)((?: [^|;&>]*)?)`)
	calls := 0
	for _, l := range lines {
		for _, m := range call.FindAllStringSubmatch(l, -1) {
			calls++
			help, err := exec.Command(bin, append([]string{"help"}, strings.Fields(m[1])...)...).Output()
			if err != nil {
				t.Errorf("%q: toolgate help %s: %v", l, m[1], err)
				continue
			}
			for _, f := range regexp.MustCompile(`(^|\s)(--?[a-z][a-z-]*)`).FindAllStringSubmatch(m[2], -1) {
				name := strings.TrimLeft(f[2], "-")
				if !regexp.MustCompile(`(?m)^\s+(-[a-z], )?--` + regexp.QuoteMeta(name) + `\b`).Match(help) {
					t.Errorf("%q: toolgate %s has no flag %s", l, m[1], f[2])
				}
			}
		}
	}
	if calls < 6 {
		t.Errorf("found %d toolgate calls in action.yml and .pre-commit-hooks.yaml, want validate, diff and test in each", calls)
	}
}
