package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestCLIConventions: help is not an error, an unknown verb is named,
// flags may follow positional arguments, and the version comes from the
// build information.
func TestCLIConventions(t *testing.T) {
	t.Parallel()
	req := filepath.Join(testutil.RepoRoot(t), "examples", "requests", "payment-allow.yaml")
	tests := map[string]struct {
		args           []string
		code           int
		stdout, stderr string // substrings; an empty stderr must be empty
	}{
		"--help lists every verb":            {args: []string{"--help"}, stdout: "decide"},
		"-h lists every verb":                {args: []string{"-h"}, stdout: "intent digest"},
		"a verb's --help shows its synopsis": {args: []string{"decide", "--help"}, stdout: "usage: toolgate decide --manifests PATH --request FILE"},
		"a two-word verb's -h":               {args: []string{"registry", "validate", "-h"}, stdout: "usage: toolgate registry validate PATH..."},
		"an unknown verb is named":           {args: []string{"regsitry", "validate"}, code: 2, stderr: `unknown verb "regsitry validate"`},
		"an unknown second word is named":    {args: []string{"policy", "delete"}, code: 2, stderr: `unknown verb "policy delete"`},
		"a flag after the positional path is parsed": {
			args: []string{"registry", "validate", samplesDir(t), "--bogus"}, code: 2, stderr: "unknown flag --bogus",
		},
		"after --, everything is positional": {
			args: []string{"registry", "validate", "--", "--bogus"}, code: 1, stderr: "--bogus",
		},
		"flags after other flags and values": {
			args: []string{"decide", "--request", req, "--explain", "--manifests", samplesDir(t)}, stdout: "rules:",
		},
		"version": {args: []string{"version"}, stdout: "toolgate "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.stdout) || (tc.stderr == "" && r.stderr != "") || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stdout %q, stderr %q; want stdout containing %q and stderr containing %q", r.stdout, r.stderr, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestCLIErrorsHaveOnePrefix: a user-facing error starts with "toolgate: "
// and carries no package prefix.
func TestCLIErrorsHaveOnePrefix(t *testing.T) {
	t.Parallel()
	for _, r := range []result{
		runCLI(`{"a":1,"a":2}`, "intent", "digest"),
		runCLI("", "audit", "verify", "--log", t.TempDir(), "--key", "name+00000000+AQ=="),
	} {
		if r.code != 1 || !strings.HasPrefix(r.stderr, "toolgate: ") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		for _, p := range []string{"engine:", "jsonexact:", "agentsafe:", "audit:"} {
			if strings.Contains(r.stderr, p) {
				t.Errorf("stderr %q carries the package prefix %q", r.stderr, p)
			}
		}
	}
}

func samplesDir(t *testing.T) string { return samples(t) }
