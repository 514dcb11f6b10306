package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", "decide", "--manifests", samples(t), "--request", writeFile(t, "req.yaml", tc.content))
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 naming %q", r.code, r.stderr, tc.want)
			}
			if strings.Contains(strings.ToLower(r.stdout+r.stderr), canary) {
				t.Errorf("the rejected value was echoed: %q", r.stderr)
			}
		})
	}
}
