package main

import (
	"os"
	"os/exec"
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

// editFile replaces the first from with to in the file at p.
func editFile(t *testing.T, p, from, to string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), from) {
		t.Fatalf("%s no longer contains %q", p, from)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), from, to, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

var sampleFiles = []string{"stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml",
	"stk_v1alpha1_policysnapshot.yaml", "stk_v1alpha1_policysnapshot_generation2.yaml"}

// TestValidateRefusesNothingToValidate: a path without any toolgate object
// (empty, or only kustomize's files) fails instead of passing silently.
func TestValidateRefusesNothingToValidate(t *testing.T) {
	t.Parallel()
	onlyKustomize := copySamples(t, "kustomization.yaml", "namespace.yaml")
	for name, dir := range map[string]string{"an empty directory": t.TempDir(), "only kustomize's files": onlyKustomize} {
		r := runCLI("", "validate", "-f", dir)
		if r.code != 1 || !strings.Contains(r.stderr, "nothing was validated") || strings.Contains(r.stdout, "valid") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 saying nothing was validated", name, r.code, r.stdout, r.stderr)
		}
	}
}

// TestValidateAppliesTheNameAndIdentityRules: the apiserver's name rules
// (CEL) and one object per name and per identity hold across files, every
// violation reported at once at its file, line and path.
func TestValidateAppliesTheNameAndIdentityRules(t *testing.T) {
	t.Parallel()
	dir := copySamples(t, sampleFiles...)
	// A registry whose name is not <snapshotID>-<generation>.
	editFile(t, filepath.Join(dir, "stk_v1alpha1_toolregistry.yaml"), "name: primary-registry-1\n", "name: primary-registry-one\n")
	// The second generation copied into another file: one name, twice.
	b, err := os.ReadFile(filepath.Join(dir, "stk_v1alpha1_policysnapshot_generation2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zz-copy.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	// A second HostAuthority claiming the first one's authority identity.
	ha, err := os.ReadFile(filepath.Join(dir, "stk_v1alpha1_hostauthority.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zz-host.yaml"), []byte(strings.Replace(string(ha), "  name: payments-host\n", "  name: payments-host-b\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI("", "validate", "-f", dir)
	for _, want := range []string{
		"stk_v1alpha1_toolregistry.yaml:10: ToolRegistry payments/primary-registry-one: metadata.name: mismatch: a ToolRegistry is named <spec.snapshotID>-<spec.snapshotGeneration>",
		"zz-copy.yaml:18: PolicySnapshot payments/payments-policy-2: metadata.name: duplicate: another PolicySnapshot with this namespace and name is at " + filepath.Join(dir, "stk_v1alpha1_policysnapshot_generation2.yaml") + ":18",
		"zz-host.yaml:",
		"HostAuthority payments/payments-host-b: metadata.name: mismatch",
		"HostAuthority payments/payments-host-b: spec.authorityID: duplicate: another HostAuthority in this namespace, at " + filepath.Join(dir, "stk_v1alpha1_hostauthority.yaml") + ":8, claims this authority identity",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1; stderr %q", r.code, r.stderr)
	}
}

// TestValidateAgainstThePublishedState: with --against, an object the base
// already holds must be unchanged (the webhook refuses the update), and a
// Revocation may not disappear; the base is a directory or a git revision.
func TestValidateAgainstThePublishedState(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	const revocation = "apiVersion: stk.toolgate.dev/v1alpha1\nkind: Revocation\nmetadata:\n  name: gen1-incident\n  namespace: payments\n" +
		"spec:\n  hostAuthorityRef:\n    name: payments-host\n  reason: incident\n  policySnapshot:\n    snapshotID: payments-policy\n    generation: \"1\"\n"
	base := copySamples(t, sampleFiles...)
	if err := os.WriteFile(filepath.Join(base, "revocation.yaml"), []byte(revocation), 0o600); err != nil {
		t.Fatal(err)
	}
	// head: the repository at base, committed, then edited in its worktree.
	head := copySamples(t, sampleFiles...)
	if err := os.WriteFile(filepath.Join(head, "revocation.yaml"), []byte(revocation), 0o600); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = head
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "published")

	for name, against := range map[string]string{"a directory": base, "a git revision": "HEAD"} {
		if r := runCLI("", "validate", "-f", head, "--against", against); r.code != 0 || r.stdout != "5 objects valid\n" {
			t.Errorf("%s, nothing changed: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}

	gen2 := filepath.Join(head, "stk_v1alpha1_policysnapshot_generation2.yaml")
	editFile(t, gen2, `seconds: "30"`, `seconds: "20"`)
	if err := os.Remove(filepath.Join(head, "revocation.yaml")); err != nil {
		t.Fatal(err)
	}
	// Without --against the edited generation is valid on its own.
	if r := runCLI("", "validate", "-f", head); r.code != 0 {
		t.Fatalf("the edited tree alone: exit %d, stdout %q", r.code, r.stdout)
	}
	for name, tc := range map[string]struct{ against, revocationFile string }{
		"a directory":    {base, filepath.Join(base, "revocation.yaml")},
		"a git revision": {"HEAD", "HEAD:revocation.yaml"},
	} {
		r := runCLI("", "validate", "-f", head, "--against", tc.against)
		for _, want := range []string{
			gen2 + ":21: PolicySnapshot payments/payments-policy-2: spec: mismatch: the spec is immutable: publish a new generation as a new object",
			tc.revocationFile + ":4: Revocation payments/gen1-incident: metadata.name: ineligible: a Revocation is never withdrawn",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", name, want, r.stdout)
			}
		}
		if r.code != 1 || !strings.Contains(r.stderr, "2 objects of 4 invalid") {
			t.Errorf("%s: exit %d, stderr %q", name, r.code, r.stderr)
		}
	}
	if r := runCLI("", "validate", "-f", head, "--against", "no-such-revision"); r.code != 1 || !strings.Contains(r.stderr, "--against: git ls-tree") {
		t.Errorf("an unknown revision: exit %d, stderr %q", r.code, r.stderr)
	}
}
