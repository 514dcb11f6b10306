package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestConformanceTableNamesRealTests keeps docs/conformance.md honest: every
// Go test or fuzz function it names must exist in the repository.
func TestConformanceTableNamesRealTests(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "conformance.md"))
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "hack") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
				defined[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`")
	count := 0
	for _, m := range named.FindAllStringSubmatch(string(doc), -1) {
		count++
		if !defined[m[1]] {
			t.Errorf("docs/conformance.md names %s, which no test file defines", m[1])
		}
	}
	if count < 100 {
		t.Errorf("docs/conformance.md names only %d tests; the table was not parsed", count)
	}
}
