// Package testutil holds helpers shared by toolgate's tests.
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RepoRoot returns the repository root, located from this source file so
// tests work from any package directory and from a fresh clone.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("testutil: cannot locate source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// SpecLines returns the lines of the normative protocol text vendored at
// docs/spec/securetoolkit-protocol-phase1-6.txt, so tests can derive their
// expectations from the spec's own tables and vectors.
func SpecLines(tb testing.TB) []string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(RepoRoot(tb), "docs", "spec", "securetoolkit-protocol-phase1-6.txt"))
	if err != nil {
		tb.Fatalf("testutil: read spec: %v", err)
	}
	return strings.Split(string(b), "\n")
}

// SpecSection returns the spec lines from the first line containing start up
// to (not including) the first later line containing end.
func SpecSection(tb testing.TB, start, end string) []string {
	tb.Helper()
	lines := SpecLines(tb)
	from := -1
	for i, l := range lines {
		if from < 0 && strings.Contains(l, start) {
			from = i
			continue
		}
		if from >= 0 && strings.Contains(l, end) {
			return lines[from:i]
		}
	}
	tb.Fatalf("testutil: spec section %q..%q not found", start, end)
	return nil
}
