package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestTheHostModeSampleValidatesAndItsPolicyTestsPass: the manifests of
// examples/mcp-host-mode validate, and its policy tests pass: reads are
// allowed, writes only under /workspace, payments never.
func TestTheHostModeSampleValidatesAndItsPolicyTestsPass(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "mcp-host-mode")
	if r := runCLI("", "validate", "-f", filepath.Join(dir, "manifests")); r.code != 0 || !strings.Contains(r.stdout, "3 objects valid") {
		t.Fatalf("validate -f: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := runCLI("", "test", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "5 passed, 0 failed") {
		t.Fatalf("test: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestHostModeEvidenceProfileUnderEachPredicate is the evidence profile of
// docs/mcp.md ("Host mode"), measured: the Host-mode read of the sample
// (a Security Context of assurance unknown, the standing tool-bounded
// Intent, no Provenance, no Influence) under a policy whose one allow rule
// is the read's tool and one predicate. A predicate over a fact the
// gateway never supplies is indeterminate (deny, conditionIndeterminate)
// or does not match (deny, noAllowRuleMatched), except the three that
// read absence itself: unknown Provenance coverage, and an Influence count
// of zero under any bound.
func TestHostModeEvidenceProfileUnderEachPredicate(t *testing.T) {
	t.Parallel()
	root := filepath.Join(testutil.RepoRoot(t), "examples", "mcp-host-mode")
	const (
		allow         = "allow allowRuleMatched"
		indeterminate = "deny conditionIndeterminate"
		notMatched    = "deny noAllowRuleMatched"
	)
	for _, tc := range []struct{ predicate, want string }{
		{`{name: provenanceCoverageIs, value: unknown}`, allow},
		{`{name: provenanceCoverageIs, value: represented}`, notMatched},
		{`{name: provenanceContainsSource, value: directUserInput}`, indeterminate},
		{`{name: provenanceTrustIsOneOf, values: [hostVerified]}`, indeterminate},
		{`{name: provenanceContainsTransformation, value: extracted}`, indeterminate},
		{`{name: provenanceContainsNoSemanticTransformation}`, indeterminate},
		{`{name: allInfluenceBoundariesComplete}`, indeterminate},
		{`{name: influenceBoundaryCompletenessIs, identifier: chat-session, value: complete}`, indeterminate},
		{`{name: influenceContainsNoKind, value: modelOutput}`, indeterminate},
		{`{name: influenceContainsKind, value: userPrompt}`, notMatched},
		{`{name: exactInfluenceBoundary, identifier: chat-session}`, notMatched},
		{`{name: maximumInfluenceCount, count: "3"}`, allow},
		{`{name: assuranceIsOneOf, values: [multiFactor, phishingResistant, hardwareBound]}`, notMatched},
		{`{name: assuranceIsOneOf, values: [unknown]}`, allow},
		{`{name: authenticationMethodIncludes, value: possessionFactor}`, notMatched},
		{`{name: intendedCapabilitiesInclude, values: [data.read]}`, allow},
	} {
		t.Run(tc.predicate, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, f := range []string{"hostauthority.yaml", "toolregistry.yaml"} {
				raw, err := os.ReadFile(filepath.Join(root, "manifests", f))
				if err != nil {
					t.Fatal(err)
				}
				writeAt(t, filepath.Join(dir, f), string(raw))
			}
			writeAt(t, filepath.Join(dir, "policy.yaml"), `apiVersion: stk.toolgate.dev/v1alpha1
kind: PolicySnapshot
metadata: {name: coding-policy-1, namespace: coding}
spec:
  snapshotID: coding-policy
  snapshotGeneration: "1"
  hostAuthorityRef: {name: coding-host}
  policies:
  - id: host-mode
    generation: "1"
    lifecycle: active
    rules:
    - id: probe
      effect: allow
      reason: allowRuleMatched
      condition:
        all:
        - predicate: {name: exactToolID, identifier: fs.read-text-file}
        - predicate: `+tc.predicate+`
      scope: {capabilities: [data.read]}
`)
			r := runCLI("", "decide", "--manifests", dir, "--request", filepath.Join(root, "requests", "read.yaml"), "-o", "json")
			var out struct {
				Decision struct {
					Outcome string   `json:"outcome"`
					Reasons []string `json:"reasons"`
				} `json:"decision"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("exit %d: %v\n%s%s", r.code, err, r.stdout, r.stderr)
			}
			if got := out.Decision.Outcome + " " + strings.Join(out.Decision.Reasons, ","); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
