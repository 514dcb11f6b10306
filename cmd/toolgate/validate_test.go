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

// TestValidateChecksRevocationsAndTheGrace: validate -f applies the
// Revocation and supersededGrace rules the CRD and the webhook apply,
// every violation at its path.
func TestValidateChecksRevocationsAndTheGrace(t *testing.T) {
	t.Parallel()
	dir := copySamples(t, "stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml",
		"stk_v1alpha1_policysnapshot.yaml", "stk_v1alpha1_policysnapshot_generation2.yaml")
	good := "apiVersion: stk.toolgate.dev/v1alpha1\nkind: Revocation\nmetadata:\n  name: ok\n  namespace: payments\n" +
		"spec:\n  hostAuthorityRef:\n    name: payments-host\n  reason: incident\n  policySnapshot:\n    snapshotID: payments-policy\n    generation: \"1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "revocation.yaml"), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCLI("", "validate", "-f", dir); r.code != 0 || r.stdout != "5 objects valid\n" {
		t.Fatalf("a valid Revocation: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	bad := "---\napiVersion: stk.toolgate.dev/v1alpha1\nkind: Revocation\nmetadata:\n  name: two-targets\n  namespace: payments\n" +
		"spec:\n  hostAuthorityRef:\n    name: payments-host\n  reason: x\n  authorization:\n    id: a1\n  signingKey:\n    keyID: NOT-A-KEY\n"
	if err := os.WriteFile(filepath.Join(dir, "revocation-bad.yaml"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	ha := filepath.Join(dir, "stk_v1alpha1_hostauthority.yaml")
	b, err := os.ReadFile(ha)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "  maxAuthorizationLifetimeSeconds:", "  supersededGrace:\n    generations: \"99\"\n  maxAuthorizationLifetimeSeconds:", 1))
	if err := os.WriteFile(ha, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI("", "validate", "-f", dir)
	for _, want := range []string{
		"Revocation payments/two-targets: spec: malformed",
		"Revocation payments/two-targets: spec.signingKey.keyID: malformed",
		"HostAuthority payments/payments-host: spec.supersededGrace.generations: malformed",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 || strings.Contains(r.stdout+r.stderr, "NOT-A-KEY") {
		t.Errorf("exit %d, or the rejected key id is echoed:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
