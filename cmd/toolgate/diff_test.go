package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
