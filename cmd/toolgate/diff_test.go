package main

import (
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// copySamples copies the named sample manifests into a fresh directory.
func copySamples(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(samples(t), n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDiffShowsWhatAGenerationChanges: the shipped second generation
// deprecates version 1 of the guardrails, adds version 2 with a stricter
// evaluation age and a rule denying delegated payments, and is a valid
// successor; a head that edits the retained version is not.
func TestDiffShowsWhatAGenerationChanges(t *testing.T) {
	t.Parallel()
	base := []string{"stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml", "stk_v1alpha1_policysnapshot.yaml"}
	old := copySamples(t, base...)
	r := runCLI("", "diff", old, samples(t))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"policy snapshot payments-policy generation 2 (payments/payments-policy-2): valid successor",
		"policy payments-guardrails version 1: active → deprecated",
		"policy payments-guardrails version 2: added (active, 9 rules)",
		"rule allow-submit-operating-accounts: obligations changed: − maximumEvaluationAgeSeconds 60 s; + maximumEvaluationAgeSeconds 30 s",
		"rule deny-delegated-payments: added (deny, delegationRequired)",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := runCLI("", "diff", old, old); r.code != 0 || r.stdout != "no changes: NEW adds no PolicySnapshot generation to OLD\n" {
		t.Errorf("identical trees: exit %d, stdout %q; want exit 0 saying there are no changes", r.code, r.stdout)
	}

	head := copySamples(t, append(base, "stk_v1alpha1_policysnapshot_generation2.yaml")...)
	gen2 := filepath.Join(head, "stk_v1alpha1_policysnapshot_generation2.yaml")
	b, err := os.ReadFile(gen2)
	if err != nil {
		t.Fatal(err)
	}
	// Editing the retained version 1 (its evaluation age) is not allowed.
	edited := strings.Replace(string(b), `seconds: "60"`, `seconds: "45"`, 1)
	if edited == string(b) {
		t.Fatal("the second generation no longer retains the 60-second age this test edits")
	}
	if err := os.WriteFile(gen2, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI("", "diff", old, head)
	if r.code != 1 || !strings.Contains(r.stdout, "NOT a valid successor") || !strings.Contains(r.stderr, "1 new generation is not a valid successor") {
		t.Errorf("an edited retained version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/diff/*.golden.json from diff's output (review the diff by hand)")

var sampleBase = []string{"stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml", "stk_v1alpha1_policysnapshot.yaml"}

const sampleGen2 = "stk_v1alpha1_policysnapshot_generation2.yaml"

// editedHead is a tree with every sample, generation 2's new policy
// version (what follows "# Version 2:") edited by each replacement, each
// of which must apply.
func editedHead(t *testing.T, edits ...[2]string) string {
	t.Helper()
	dir := copySamples(t, append(sampleBase, sampleGen2)...)
	p := filepath.Join(dir, sampleGen2)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	retained, v2, ok := strings.Cut(string(b), "  # Version 2:")
	if !ok {
		t.Fatal("the second generation no longer marks its version 2")
	}
	for _, e := range edits {
		if !strings.Contains(v2, e[0]) {
			t.Fatalf("version 2 no longer contains %q", e[0])
		}
		v2 = strings.Replace(v2, e[0], e[1], 1)
	}
	if err := os.WriteFile(p, []byte(retained+"  # Version 2:"+v2), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// removeDeny drops version 2's deny-payment-from-external-content.
var removeDeny = [2]string{`    - id: deny-payment-from-external-content
      effect: deny
      reason: provenanceInsufficient
      condition:
        all:
        - predicate: {name: sideEffectIs, value: financial}
        - any:
          - predicate: {name: provenanceContainsSource, value: emailContent}
          - predicate: {name: provenanceContainsSource, value: retrievedWebContent}
      obligations:
      - {kind: requireAuditEvent}
`, ""}

// TestDiffFailOnARemovedDenyRule: on the samples with a deny rule removed
// from the new policy version, diff reports a rule-removed change and
// --fail-on rule-removed exits 1 naming the kind; a --fail-on naming no
// kind that occurs exits 0, as does diff without it.
func TestDiffFailOnARemovedDenyRule(t *testing.T) {
	t.Parallel()
	base := copySamples(t, sampleBase...)
	head := editedHead(t, removeDeny)
	r := runCLI("", "diff", base, head, "--fail-on", "rule-removed")
	if r.code != 1 || r.stderr != "toolgate: changes of a --fail-on kind: 1 rule-removed\n" ||
		!strings.Contains(r.stdout, "rule deny-payment-from-external-content: removed (was deny)") {
		t.Errorf("--fail-on rule-removed: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{}, {"--fail-on", "scope-widened,effect-changed"}, {"--fail-on", "rule-removed"}} {
		h := head
		if len(args) == 2 && args[1] == "rule-removed" {
			h = samples(t) // nothing removed
		}
		if r := runCLI("", append([]string{"diff", base, h}, args...)...); r.code != 0 {
			t.Errorf("diff %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// --fail-on rule-changed selects every aspect of a kept rule.
	if r := runCLI("", "diff", base, samples(t), "--fail-on", "rule-changed"); r.code != 1 || !strings.Contains(r.stderr, "1 obligation-added, 1 obligation-removed") {
		t.Errorf("--fail-on rule-changed: exit %d, stderr %q", r.code, r.stderr)
	}
	// The removal is an error annotation at the version that lost the
	// rule, every other change a warning.
	r = runCLI("", "diff", base, head, "--fail-on", "rule-removed", "--format", "github")
	var errs, warnings []string
	for l := range strings.Lines(r.stdout) {
		switch {
		case strings.HasPrefix(l, "::error "):
			errs = append(errs, l)
		case strings.HasPrefix(l, "::warning "):
			warnings = append(warnings, l)
		default:
			t.Errorf("not a workflow command: %q", l)
		}
	}
	file := filepath.Join(head, sampleGen2)
	b, _ := os.ReadFile(file)
	rulesLine := strings.Count(string(b[:strings.Index(string(b), "  # Version 2:")]), "\n") + 2 // version 2's first line
	if lines := strings.Split(string(b), "\n"); strings.TrimSpace(lines[rulesLine-1]) != "- id: payments-guardrails" {
		t.Fatalf("line %d is %q, not version 2's first", rulesLine, lines[rulesLine-1])
	}
	want := "::error file=" + ghProperty(file) + ",line=" + strconv.Itoa(rulesLine) + ",title=toolgate diff%3A rule-removed::" +
		"PolicySnapshot payments/payments-policy-2: policy payments-guardrails version 2: rule deny-payment-from-external-content: removed (was deny)\n"
	if r.code != 1 || len(errs) != 1 || errs[0] != want || len(warnings) != 5 {
		t.Errorf("exit %d, errors %q (want %q), %d warnings", r.code, errs, want, len(warnings))
	}
	// JUnit: the generation is one case, failed by the removal.
	r = runCLI("", "diff", base, head, "--fail-on", "rule-removed", "--format", "junit")
	var j docJUnit
	if err := xml.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != 1 || j.Tests != 1 || j.Failures != 1 ||
		!strings.Contains(j.Suites[0].Cases[0].Failure.Text, "rule-removed: PolicySnapshot payments/payments-policy-2: policy payments-guardrails version 2: rule deny-payment-from-external-content") {
		t.Errorf("junit: exit %d, %v, %+v", r.code, err, j)
	}
}

// TestDiffFailOnIsAClosedSet: a --fail-on kind outside the set is a usage
// error naming the set, never the value.
func TestDiffFailOnIsAClosedSet(t *testing.T) {
	t.Parallel()
	r := runCLI("", "diff", "a", "b", "--fail-on", "rule-removed,Bogus-Kind")
	if r.code != 2 || !strings.Contains(r.stderr, "rule-added, rule-removed") || strings.Contains(r.stderr, "Bogus-Kind") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestDiffJSONGolden: diff -o json of the shipped second generation, and of
// a head whose new version removes a deny rule, widens a scope, changes an
// effect and changes conditions, is the golden document (file paths as
// NEW/...): every change with its kind, object, policy, rule, predicates
// and line.
func TestDiffJSONGolden(t *testing.T) {
	t.Parallel()
	base := copySamples(t, sampleBase...)
	tests := map[string]string{
		"shipped": copySamples(t, append(sampleBase, sampleGen2)...),
		"review": editedHead(t, removeDeny,
			// allow-email-finance-team: a second list, in condition and scope.
			[2]string{"values: [list-finance-team]}\n      scope:\n        capabilities: [communication.external]\n        resources: [list-finance-team]",
				"values: [list-finance-team, list-vendor-billing]}\n      scope:\n        capabilities: [communication.external]\n        resources: [list-finance-team, list-vendor-billing]"},
			// confirm-email-vendors becomes an allow without confirmation.
			[2]string{"effect: requireConfirmation\n      reason: confirmationRuleMatched", "effect: allow\n      reason: allowRuleMatched"},
			[2]string{"      - {kind: requireConfirmation}\n      - {kind: requireSingleUseAuthorization}\n", "      - {kind: requireSingleUseAuthorization}\n"},
			// deny-email-unauthenticated: only unknown assurance.
			[2]string{"values: [unknown, unauthenticated]}", "values: [unknown]}"},
			// deny-model-influence-unverified: an all instead of an any.
			[2]string{"        - any:\n          - predicate: {name: provenanceCoverageIs", "        - all:\n          - predicate: {name: provenanceCoverageIs"},
		),
	}
	for name, head := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", "diff", base, head, "-o", "json")
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			got := strings.ReplaceAll(r.stdout, head+string(filepath.Separator), "NEW/")
			golden := filepath.Join("testdata", "diff", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("diff -o json differs from %s (-want +got; go test -run TestDiffJSONGolden -update rewrites it):\n%s", golden, d)
			}
		})
	}
}
