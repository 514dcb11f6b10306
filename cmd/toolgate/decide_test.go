package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestDecideShippedExamples decides the three shipped example requests on
// the shipped samples; each file's header comment states the outcome the
// sample policy must give it.
func TestDecideShippedExamples(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	tests := map[string]struct {
		outcome, rule string
		authorized    bool
		code          int // a deny exits 1 (docs/cli.md)
	}{
		"payment-allow.yaml": {"allow", "allow-submit-operating-accounts", true, 0},
		"payment-deny.yaml":  {"deny", "deny-payment-from-external-content", false, 1},
		"email-confirm.yaml": {"requireConfirmation", "confirm-email-vendors", false, 0},
	}
	for file, tc := range tests {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", "decide", "--manifests", samples(t), "--request", filepath.Join(root, "examples", "requests", file), "--explain")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d: %s", r.code, tc.code, r.stderr)
			}
			first, _, _ := strings.Cut(r.stdout, "\n")
			if !strings.HasSuffix(first, ": "+tc.outcome) || !strings.Contains(r.stdout, tc.rule) {
				t.Errorf("want outcome %s by %s, got:\n%s", tc.outcome, tc.rule, r.stdout)
			}
			if got := strings.Contains(r.stdout, "\nauthorization "); got != tc.authorized {
				t.Errorf("authorization printed = %v, want %v:\n%s", got, tc.authorized, r.stdout)
			}
			if !strings.Contains(r.stdout, "rules:\n") || !strings.Contains(r.stdout, "matched") {
				t.Errorf("--explain printed no rule results:\n%s", r.stdout)
			}
		})
	}
}

func TestDecideRejectsWithoutEcho(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "requests", "payment-allow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const canary = "canary-value-7f3a"
	tests := map[string]struct{ content, want string }{
		"an unknown field":        {string(raw) + "\nsurprise: " + canary + "\n", "unknown field"},
		"a duplicated key":        {string(raw) + "\ntime: 1\n", "a key appears twice"},
		"a caller without roles":  {strings.Replace(string(raw), "payments-agent-runtime", canary, 1), "unauthorized"},
		"an unknown tenant token": {strings.Replace(string(raw), "tenant: acme", "tenant: "+strings.ToUpper(canary), 1), "malformed"},
	}
	// The appended line is the file's last: its line number, column 1.
	last := strings.Count(string(raw), "\n") + 2
	if !strings.HasSuffix(string(raw), "\n") {
		t.Fatal("the sample request no longer ends with a newline")
	}
	located := map[string]string{
		"an unknown field": fmt.Sprintf("req.yaml:%d:1: document 1: is not a request", last),
		"a duplicated key": fmt.Sprintf("req.yaml:%d:1: document 1: is not a request", last),
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", "decide", "--manifests", samples(t), "--request", writeFile(t, "req.yaml", tc.content))
			if want, ok := located[name]; ok && !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q does not locate the problem at %q", r.stderr, want)
			}
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 naming %q", r.code, r.stderr, tc.want)
			}
			if strings.Contains(strings.ToLower(r.stdout+r.stderr), canary) {
				t.Errorf("the rejected value was echoed: %q", r.stderr)
			}
		})
	}
}

// TestExplainSpeaksThePolicysWords: --explain lists every rule of the
// selected policy and, under it, each predicate as its manifest names it —
// the predicate name and an operand that, read as YAML, is the operand the
// author wrote (collection operands compared as sets) — with every result
// in one aligned column. The expectations come from parsing the
// PolicySnapshot manifest, not from earlier output.
func TestExplainSpeaksThePolicysWords(t *testing.T) {
	t.Parallel()
	// The example requests select the active version: payments-guardrails
	// version 2, in generation 2.
	raw, err := os.ReadFile(filepath.Join(samples(t), "stk_v1alpha1_policysnapshot_generation2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type policy struct {
		Lifecycle string `json:"lifecycle"`
		Rules     []struct {
			ID        string         `json:"id"`
			Condition map[string]any `json:"condition"`
		} `json:"rules"`
	}
	var snap struct {
		Spec struct {
			Policies []policy `json:"policies"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &snap); err != nil {
		t.Fatal(err)
	}
	active := slices.IndexFunc(snap.Spec.Policies, func(p policy) bool { return p.Lifecycle == "active" })
	if active < 0 {
		t.Fatal("the second sample generation holds no active policy")
	}
	// want: rule → its predicates, each "name {operand as normalized YAML}".
	want := map[string][]string{}
	var walk func(rule string, c map[string]any)
	walk = func(rule string, c map[string]any) {
		if p, ok := c["predicate"].(map[string]any); ok {
			want[rule] = append(want[rule], predicateKey(t, p))
			return
		}
		for _, k := range []string{"all", "any"} {
			children, _ := c[k].([]any)
			for _, ch := range children {
				walk(rule, ch.(map[string]any))
			}
		}
	}
	for _, r := range snap.Spec.Policies[active].Rules {
		walk(r.ID, r.Condition)
	}

	r := runCLI("", "decide", "--manifests", samples(t), "--request",
		filepath.Join(testutil.RepoRoot(t), "examples", "requests", "payment-deny.yaml"), "--explain")
	if r.code != 1 { // a deny exits 1

		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, table, ok := strings.Cut(r.stdout, "rules:\n")
	if !ok {
		t.Fatalf("no rules section:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	header := lines[0]
	opAt, resAt := strings.Index(header, "effect / operand"), strings.Index(header, "result")
	if opAt < 0 || resAt < 0 {
		t.Fatalf("header %q lacks the operand or result column", header)
	}
	results := []string{"matched", "notMatched", "indeterminate"}
	got := map[string][]string{}
	rule := ""
	for _, l := range lines[1:] {
		if len(l) <= resAt || l[resAt-1] != ' ' {
			t.Errorf("line %q does not reach the result column at %d", l, resAt)
			continue
		}
		res, _, _ := strings.Cut(l[resAt:], " ")
		if !slices.Contains(results, res) {
			t.Errorf("line %q: %q in the result column", l, res)
		}
		name, operand := strings.TrimSpace(l[:opAt]), strings.TrimSpace(l[opAt:resAt])
		if !strings.HasPrefix(l, "    ") {
			rule = name
			continue
		}
		var p map[string]any
		if err := yaml.Unmarshal([]byte("{"+operand+"}"), &p); err != nil {
			t.Errorf("rule %s: operand %q is not the manifest's YAML: %v", rule, operand, err)
			continue
		}
		p["name"] = name
		got[rule] = append(got[rule], predicateKey(t, p))
	}
	for _, m := range []map[string][]string{want, got} {
		for _, ps := range m {
			slices.Sort(ps)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explained predicates (-manifest +explained):\n%s\n%s", diff, r.stdout)
	}
}

// predicateKey is a predicate mapping as canonical JSON, its collection
// operand sorted (a set).
func predicateKey(t *testing.T, p map[string]any) string {
	t.Helper()
	if vs, ok := p["values"].([]any); ok {
		s := make([]string, len(vs))
		for i, v := range vs {
			s[i] = fmt.Sprint(v)
		}
		slices.Sort(s)
		p["values"] = s
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExplainColumnsLineUp: in --explain's table every column starts at
// the header's offset on every line that has it (the reason on every rule
// line), and no line ends in padding.
func TestExplainColumnsLineUp(t *testing.T) {
	t.Parallel()
	r := runCLI("", "decide", "--manifests", samples(t), "--request",
		filepath.Join(testutil.RepoRoot(t), "examples", "requests", "payment-deny.yaml"), "--explain")
	_, table, _ := strings.Cut(r.stdout, "rules:\n")
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("no explanation:\n%s", r.stdout)
	}
	header := lines[0]
	cols := []int{strings.Index(header, "effect / operand"), strings.Index(header, "result"), strings.Index(header, "reason")}
	rules := 0
	for _, l := range lines[1:] {
		if strings.HasSuffix(l, " ") {
			t.Errorf("padding at the end of %q", l)
		}
		isRule := !strings.HasPrefix(l, "    ")
		for i, c := range cols {
			if i == 2 && !isRule {
				continue // a predicate has no reason
			}
			if i == 0 && !isRule && len(l) > cols[1] && strings.TrimSpace(l[c:cols[1]]) == "" {
				continue // a predicate without an operand (delegationPresent)
			}
			if len(l) <= c || l[c-1] != ' ' || l[c] == ' ' {
				t.Errorf("column %d does not start at offset %d in %q", i, c, l)
			}
		}
		if isRule {
			rules++
		}
	}
	if rules < 2 {
		t.Errorf("%d rule lines, want several:\n%s", rules, table)
	}
}

// TestAnUnknownRequestKeyNamesTheNearestDeclaredOne: a mistyped key of a
// request file is reported at its line with the declared key it is
// nearest to, and without its own text.
func TestAnUnknownRequestKeyNamesTheNearestDeclaredOne(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "requests", "payment-allow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	typo := strings.Replace(string(raw), "\ntime:", "\ntiem:", 1)
	if typo == string(raw) {
		t.Fatal("the example has no top-level time key")
	}
	r := runCLI("", "decide", "--manifests", samples(t), "--request", writeFile(t, "req.yaml", typo))
	if r.code != 1 || !strings.Contains(r.stderr, `unknown field: no such key is declared here; did you mean "time"?`) || strings.Contains(r.stderr, "tiem") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
