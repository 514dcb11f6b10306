package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateReportsEveryViolation: the shipped samples are valid; a tree
// with three broken objects reports every violation with its file, line
// and path, never the rejected value, and exits 1.
func TestValidateReportsEveryViolation(t *testing.T) {
	t.Parallel()
	if r := runCLI("", "validate", "-f", samples(t)); r.code != 0 || r.stdout != "4 objects valid\n" {
		t.Fatalf("the samples: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	dir := copySamples(t, "stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml",
		"stk_v1alpha1_policysnapshot.yaml", "stk_v1alpha1_policysnapshot_generation2.yaml")
	edit := func(name, from, to string) {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), from) {
			t.Fatalf("%s no longer contains %q", name, from)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), from, to, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	edit("stk_v1alpha1_toolregistry.yaml", "snapshotID: primary-registry", "snapshotID: Primary_Registry")
	edit("stk_v1alpha1_toolregistry.yaml", "toolID: email.send", "toolID: emailsend")
	edit("stk_v1alpha1_policysnapshot.yaml", "values: [acct-1001, acct-2002]}", "values: [acct-1001, acct-9999]}")
	r := runCLI("", "validate", "-f", dir)
	for _, want := range []string{
		"stk_v1alpha1_toolregistry.yaml:13: ToolRegistry payments/primary-registry-1: spec.snapshotID: malformed",
		"stk_v1alpha1_toolregistry.yaml:92: ToolRegistry payments/primary-registry-1: spec.definitions[2].toolID: malformed",
		"stk_v1alpha1_policysnapshot.yaml:46: PolicySnapshot payments/payments-policy-1: spec.policies[0].rules[0].condition.all[1].predicate.values[1]: outOfRange",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "objects of 4 invalid") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, value := range []string{"Primary_Registry", "emailsend", "acct-9999"} {
		if strings.Contains(r.stdout+r.stderr, value) {
			t.Errorf("the output echoes %q", value)
		}
	}
}
