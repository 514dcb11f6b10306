package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPolicyValidateShippedSamples: the shipped HostAuthority and both
// PolicySnapshot generations publish (generation 2 as the exact successor),
// and the output lists each snapshot and its policies.
func TestPolicyValidateShippedSamples(t *testing.T) {
	t.Parallel()
	r := runCLI("", "policy", "validate", samples(t))
	lines := succeeded(t, r)
	if len(lines) != 8 {
		t.Fatalf("stdout has %d lines, want 8:\n%s", len(lines), r.stdout)
	}
	for i, prefix := range map[int]string{
		0: "host authority payments/payments-host (payments-host): valid, 5 capabilities, 8 resources, 6 roles, digest sha256:",
		1: "policy snapshot payments-policy generation 1: valid, 1 policy, 8 rules, digest sha256:",
		4: "policy snapshot payments-policy generation 2: valid, 2 policies, 17 rules, digest sha256:",
	} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], prefix)
		}
	}
	// Generation 2 keeps version 1 (now deprecated: lifecycles only move
	// forward) and adds version 2 with one more rule.
	for i, want := range map[int]string{
		3: "payments-guardrails 1 active 8",
		6: "payments-guardrails 1 deprecated 8",
		7: "payments-guardrails 2 active 9",
	} {
		if got := strings.Join(strings.Fields(lines[i]), " "); got != want {
			t.Errorf("policy row %d = %q, want %q", i, got, want)
		}
	}
}

// sampleDocs returns the shipped HostAuthority and PolicySnapshot texts;
// host is followed by the shipped ToolRegistry, which defines the tools
// the policies name (else every rule naming one is a finding).
func sampleDocs(t *testing.T) (host, pol string) {
	t.Helper()
	h, err := os.ReadFile(filepath.Join(samples(t), "stk_v1alpha1_hostauthority.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := os.ReadFile(filepath.Join(samples(t), "stk_v1alpha1_toolregistry.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h = append(append(h, "---\n"...), reg...)
	p, err := os.ReadFile(filepath.Join(samples(t), "stk_v1alpha1_policysnapshot.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(h), string(p)
}

// edit replaces old with new once and fails the test when the sample no
// longer has old.
func edit(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the sample no longer has %q", old)
	}
	return strings.Replace(s, old, new, 1)
}

// generation returns the sample snapshot as generation gen: a new object
// that keeps policy version 1 unchanged and adds version 2 with one more
// rule (a valid exact successor when gen is 2).
func generation(t *testing.T, pol string, gen int) string {
	t.Helper()
	g := strconv.Itoa(gen)
	out := edit(t, pol, "name: payments-policy-1\n", "name: payments-policy-"+g+"\n")
	out = edit(t, out, "  snapshotGeneration: \"1\"\n  hostAuthorityRef:", "  snapshotGeneration: \""+g+"\"\n  hostAuthorityRef:")
	i := strings.Index(out, "  - id: payments-guardrails\n")
	v1 := out[i:]
	v2 := edit(t, v1, "    generation: \"1\"\n", "    generation: \"2\"\n") + `    - id: deny-delegated-payments
      effect: deny
      reason: delegationRequired
      condition:
        all:
        - predicate: {name: sideEffectIs, value: financial}
        - predicate: {name: delegationPresent}
`
	return out + v2
}

// TestPolicyValidateRejects: each rejection exits 1 with one line per invalid
// object naming the object and the engine's reason; an object that depends
// on an invalid one is reported too.
func TestPolicyValidateRejects(t *testing.T) {
	t.Parallel()
	host, pol := sampleDocs(t)
	noAdmin := edit(t, host, `  - role: policyAdministrationAuthority
    subjects:
    - {kind: Group, name: payments-policy-admins}
    - {kind: ServiceAccount, name: argocd-application-controller, namespace: argocd}
`, "")
	cases := map[string]struct {
		docs     []string
		args     []string
		wantText string
		also     string // a second invalid object's line, when there is one
	}{
		"a missing hostAuthorityRef target rejects": {
			docs:     []string{host, edit(t, pol, "    name: payments-host\n", "    name: other-host\n")},
			wantText: "PolicySnapshot payments/payments-policy-1: spec.hostAuthorityRef.name: notFound",
		},
		"a HostAuthority in another namespace is not found": {
			docs:     []string{edit(t, host, "namespace: payments\n", "namespace: treasury\n"), pol},
			wantText: "PolicySnapshot payments/payments-policy-1: spec.hostAuthorityRef.name: notFound",
		},
		"a HostAuthority binding no policy administrator fails closed": {
			docs:     []string{noAdmin, pol},
			wantText: "PolicySnapshot payments/payments-policy-1: HostAuthority payments/payments-host binds no subject to policyAdministrationAuthority",
		},
		"a generation gap is not a successor": {
			docs:     []string{host, pol, generation(t, pol, 3)},
			wantText: "PolicySnapshot payments/payments-policy-3: spec.snapshotGeneration: notFound: the previous generation of this policy snapshot must be published first",
		},
		"a second object cannot claim a published generation": {
			docs:     []string{host, pol, edit(t, pol, "name: payments-policy-1\n", "name: payments-policy-1b\n")},
			wantText: "PolicySnapshot payments/payments-policy-1b: metadata.name: mismatch: a PolicySnapshot is named <spec.snapshotID>-<spec.snapshotGeneration>",
			also:     "PolicySnapshot payments/payments-policy-1b: spec.snapshotGeneration: duplicate: another PolicySnapshot in this namespace, at ",
		},
		"a chain must start at generation 1": {
			docs:     []string{host, generation(t, pol, 2)},
			wantText: "PolicySnapshot payments/payments-policy-2: spec.snapshotGeneration: notFound: the previous generation of this policy snapshot must be published first",
		},
		"a HostAuthority not named by its authorityID rejects": {
			docs:     []string{edit(t, host, "  name: payments-host\n", "  name: payments-host-x\n"), pol},
			wantText: "HostAuthority payments/payments-host-x: metadata.name: mismatch",
			also:     "PolicySnapshot payments/payments-policy-1: spec.hostAuthorityRef.name: notFound",
		},
		"a successor that changes a retained policy version rejects": {
			docs:     []string{host, pol, edit(t, generation(t, pol, 2), "seconds: \"60\"", "seconds: \"30\"")},
			wantText: "PolicySnapshot payments/payments-policy-2: spec.policies[0].rules: mismatch",
		},
		"a rule outside the Host ceiling rejects with its path": {
			docs:     []string{host, edit(t, pol, "values: [acct-1001, acct-2002]}", "values: [acct-1001, acct-echoed-value]}")},
			wantText: "PolicySnapshot payments/payments-policy-1: spec.policies[0].rules[0].condition.all[1].predicate.values[1]: outOfRange",
		},
		"an invalid HostAuthority rejects": {
			docs:     []string{edit(t, host, `maxAuthorizationLifetimeSeconds: "300"`, `maxAuthorizationLifetimeSeconds: "7200"`), pol},
			wantText: "HostAuthority payments/payments-host: spec.maxAuthorizationLifetimeSeconds: outOfRange",
			also:     "PolicySnapshot payments/payments-policy-1: spec.hostAuthorityRef.name: notFound",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDocs(t, tc.docs)
			r := runCLI("", append(append([]string{"policy", "validate"}, tc.args...), dir)...)
			if tc.also == "" {
				oneLine(t, r, 1, tc.wantText)
			} else {
				lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
				if r.code != 1 || r.stdout != "" || len(lines) != 2 ||
					!strings.Contains(lines[0], tc.wantText) || !strings.Contains(lines[1], tc.also) {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and the lines %q, %q", r.code, r.stdout, r.stderr, tc.wantText, tc.also)
				}
			}
			if strings.Contains(r.stderr, "echoed-value") {
				t.Errorf("stderr echoes the rejected value: %q", r.stderr)
			}
		})
	}
}

// TestPolicyValidatePublishesSuccessors: generation 2 is published as the
// exact successor of generation 1, whatever the file order.
func TestPolicyValidatePublishesSuccessors(t *testing.T) {
	t.Parallel()
	host, pol := sampleDocs(t)
	dir := t.TempDir()
	for name, d := range map[string]string{"a-gen2.yaml": generation(t, pol, 2), "b-gen1.yaml": pol, "c-host.yaml": host} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(d), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI("", "policy", "validate", dir)
	succeeded(t, r)
	var summaries []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "policy snapshot ") {
			summaries = append(summaries, l[:strings.Index(l, ", digest")])
		}
	}
	want := []string{
		"policy snapshot payments-policy generation 1: valid, 1 policy, 8 rules",
		"policy snapshot payments-policy generation 2: valid, 2 policies, 17 rules",
	}
	if strings.Join(summaries, "\n") != strings.Join(want, "\n") {
		t.Errorf("summaries = %q, want %q", summaries, want)
	}
}
