package consume_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

const consumetestPath = "github.com/toolgate/toolgate/internal/consume/consumetest"

// importers returns the non-test Go files below root, outside nested
// modules, hidden directories and testdata, that import path.
func importers(t *testing.T, root, path string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			if name := d.Name(); strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if v, _ := strconv.Unquote(imp.Path.Value); v == path {
				rel, _ := filepath.Rel(root, p)
				bad = append(bad, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestNoProductionCodeImportsConsumetest keeps the conformance suite (and
// its etcd process helper) out of every binary: only _test.go files may
// import internal/consume/consumetest. depguard's no-testutil rule says the
// same in make lint.
func TestNoProductionCodeImportsConsumetest(t *testing.T) {
	t.Parallel()
	if bad := importers(t, testutil.RepoRoot(t), consumetestPath); len(bad) > 0 {
		t.Errorf("non-test files import %s: %v", consumetestPath, bad)
	}
}

// The check above can fail: it finds an aliased production importer and
// ignores test files and nested modules.
func TestConsumetestImportCheckFindsImporters(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":              "module example.com/m\n",
		"svc/svc.go":          "package svc\n\nimport ct \"" + consumetestPath + "\"\n\nvar _ = ct.Goroutines\n",
		"svc/svc_test.go":     "package svc\n\nimport \"" + consumetestPath + "\"\n",
		"nested/go.mod":       "module example.com/nested\n",
		"nested/n.go":         "package n\n\nimport \"" + consumetestPath + "\"\n",
		"svc/testdata/x/x.go": "package x\n\nimport \"" + consumetestPath + "\"\n",
		"other/other.go":      "package other\n\nimport \"context\"\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := importers(t, root, consumetestPath)
	if len(got) != 1 || got[0] != "svc/svc.go" {
		t.Fatalf("importers = %v, want [svc/svc.go]", got)
	}
}
