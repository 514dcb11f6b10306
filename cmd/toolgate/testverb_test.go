package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

func TestPolicyTestsShipped(t *testing.T) {
	t.Parallel()
	r := runCLI("", "test", filepath.Join(testutil.RepoRoot(t), "examples", "tests"))
	if r.code != 0 || !strings.HasSuffix(r.stdout, "3 passed, 0 failed\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestPolicyTestsReportEveryDifference: a case whose expectations the
// Decision does not meet fails, naming each difference; the run exits 1.
func TestPolicyTestsReportEveryDifference(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	content := `manifests: [` + filepath.Join(root, "config", "samples") + `]
cases:
- name: the deny example expected to be an allow
  requestFile: ` + filepath.Join(root, "examples", "requests", "payment-deny.yaml") + `
  expect:
    outcome: allow
    reasons: [allowRuleMatched]
    authorized: true
- name: the allow example as expected
  requestFile: ` + filepath.Join(root, "examples", "requests", "payment-allow.yaml") + `
  expect: {outcome: allow}
`
	if err := os.WriteFile(filepath.Join(dir, "wrong.test.yaml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI("", "test", dir)
	for _, want := range []string{"FAIL ", "outcome deny, want allow", "reasons [denyRuleMatched allowRuleMatched provenanceInsufficient], want [allowRuleMatched]",
		"authorized false, want true", "PASS ", "1 passed, 1 failed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "1 policy test failed") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	// A malformed test file is named with the line and column of the
	// problem and the key path leading to it, never its text.
	for name, tc := range map[string]struct{ content, want string }{
		"an unknown key": {"manifests: [x]\ncases: [{name: a, surprise: 1}]\n",
			"wrong.test.yaml:2:19: document 1: is not {manifests, cases: [{name, requestFile | request, expect}]}: cases[0]: unknown field"},
		"a key twice": {"manifests: [x]\ncases:\n- name: a\n  expect: {outcome: allow}\n  name: b\n",
			"wrong.test.yaml:5:3: document 1: is not {manifests, cases: [{name, requestFile | request, expect}]}: cases[0]: a key appears twice"},
		// The unclosed "[" is noticed where the next key starts.
		"broken YAML": {"manifests: [x\ncases: []\n",
			"wrong.test.yaml:2:1: document 1: is not {manifests, cases: [{name, requestFile | request, expect}]}: YAML syntax error here"},
	} {
		p := filepath.Join(dir, "wrong.test.yaml")
		if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := runCLI("", "test", p); r.code != 1 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "surprise") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", name, r.code, r.stderr, tc.want)
		}
	}
}
