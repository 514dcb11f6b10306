package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersionNamesTheGoToolchainInVersionAndHelp: `toolgate version`,
// `--version` and `--help` all name the build, including the Go version
// from the binary's build information.
func TestVersionNamesTheGoToolchainInVersionAndHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}, {"--help"}} {
		r := runCLI("", args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, "toolgate ") || !strings.Contains(r.stdout, runtime.Version()) {
			t.Errorf("%v: stdout %q does not name the build and %s", args, r.stdout, runtime.Version())
		}
	}
}

func TestVersionTakesNoArguments(t *testing.T) {
	t.Parallel()
	if r := runCLI("", "version", "extra"); r.code != 2 {
		t.Errorf("version extra: exit %d, want 2 (usage)", r.code)
	}
}
