package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestARuleNamingAnUndefinedToolFailsValidate: the samples as shipped
// pass validate -f and policy validate; with a typo in the tool identity
// of a deny rule (which then protects nothing) both exit 1 with the
// finding at its file, line and path, never echoing the name.
func TestARuleNamingAnUndefinedToolFailsValidate(t *testing.T) {
	t.Parallel()
	if r := runCLI("", "validate", "-f", samples(t)); r.code != 0 {
		t.Fatalf("the samples: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("", "policy", "validate", samples(t)); r.code != 0 {
		t.Fatalf("the samples: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	const gen2 = "stk_v1alpha1_policysnapshot_generation2.yaml"
	dir := copySamples(t, "stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml", "stk_v1alpha1_policysnapshot.yaml", gen2)
	p := filepath.Join(dir, gen2)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// The last email.send is version 2's deny-email-unauthenticated.
	const name = "identifier: email.send}"
	i := strings.LastIndex(string(b), name)
	if i < 0 {
		t.Fatalf("%s no longer names email.send", gen2)
	}
	edited := string(b[:i]) + "identifier: email.sendd}" + string(b[i+len(name):])
	if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(edited[:i], "\n") + 1
	want := filepath.Join(dir, gen2) + ":" + strconv.Itoa(line) + ": PolicySnapshot payments/payments-policy-2: " +
		"spec.policies[1].rules[7].condition.all[0].predicate.identifier: notFound: no Registry Snapshot in scope defines a tool of this identity"

	r := runCLI("", "validate", "-f", dir)
	if r.code != 1 || !strings.Contains(r.stdout, want) || strings.Count(r.stdout, "notFound") != 1 {
		t.Errorf("validate -f: exit %d, stdout %q; want exit 1 and the one finding %q", r.code, r.stdout, want)
	}
	r = runCLI("", "policy", "validate", dir)
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("policy validate: exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, want)
	}
	r = runCLI("", "validate", "-f", dir, "-o", "json")
	var doc validation
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 1 || doc.Valid || len(doc.Findings) != 1 ||
		doc.Findings[0].Reason != "notFound" || doc.Findings[0].Line != line {
		t.Errorf("validate -o json: exit %d, %v, %+v", r.code, err, doc)
	}
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.Contains(out, "email.sendd") {
			t.Errorf("the output echoes the undefined name: %q", out)
		}
	}
}
