package testutil_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/testutil"
)

const testutilPath = "github.com/toolgate/toolgate/internal/testutil"

// goFiles returns the module's Go files below root (relative, slash
// separated), skipping hidden directories, bin/, testdata/ and nested
// modules such as hack/tools.
func goFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// testutilImporters returns the non-test Go files below root, outside
// internal/testutil itself, that import internal/testutil or one of its
// subpackages.
func testutilImporters(t *testing.T, root string) []string {
	t.Helper()
	var bad []string
	for _, rel := range goFiles(t, root) {
		// consumetest is itself a test-only package (guarded the same way).
		slash := filepath.ToSlash(rel)
		if strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(slash, "internal/consume/consumetest/") ||
			strings.HasPrefix(slash, "internal/testutil/") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, rel), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == testutilPath || strings.HasPrefix(p, testutilPath+"/") {
				bad = append(bad, rel)
			}
		}
	}
	return bad
}

// TestNoProductionCodeImportsTestutil keeps test fixtures out of every
// binary: only _test.go files (and internal/testutil's own subpackages) may
// import internal/testutil or its subpackages. golangci-lint's depguard
// rule no-testutil says the same in make lint.
func TestNoProductionCodeImportsTestutil(t *testing.T) {
	t.Parallel()
	if bad := testutilImporters(t, testutil.RepoRoot(t)); len(bad) > 0 {
		t.Errorf("non-test files import %s: %v", testutilPath, bad)
	}
}

// The check above can fail: it finds a production file that imports
// testutil or a subpackage of it, even under an alias, and ignores test
// files, nested modules and testutil's own packages.
func TestTestutilImportCheckFindsImporters(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                           "module example\n",
		"a/prod.go":                        "package a\n\nimport tu \"" + testutilPath + "\"\n\nvar _ = tu.RepoRoot\n",
		"a/clean.go":                       "package a\n\nimport \"strings\"\n\nvar _ = strings.ToLower\n",
		"a/prod_test.go":                   "package a\n\nimport \"" + testutilPath + "\"\n\nvar _ = testutil.RepoRoot\n",
		"b/c/deep.go":                      "package c\n\nimport (\n\t\"fmt\"\n\t\"" + testutilPath + "\"\n)\n",
		"d/sub.go":                         "package d\n\nimport \"" + testutilPath + "/kubefixture\"\n",
		"d/near.go":                        "package d\n\nimport \"" + testutilPath + "x\"\n",
		"internal/testutil/sub/fixture.go": "package sub\n\nimport \"" + testutilPath + "\"\n",
		"nested/go.mod":                    "module nested\n",
		"nested/tool.go":                   "package nested\n\nimport \"" + testutilPath + "\"\n",
		"a/testdata/fixture.go":            "package fixture\n\nimport \"" + testutilPath + "\"\n",
		".hidden/ignored.go":               "package hidden\n\nimport \"" + testutilPath + "\"\n",
		"a/other_package_notes.md":         "import \"" + testutilPath + "\"\n",
	}
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"a/prod.go", "b/c/deep.go", "d/sub.go"}
	if diff := cmp.Diff(want, testutilImporters(t, root)); diff != "" {
		t.Errorf("importers (-want +got):\n%s", diff)
	}
}

// fuzzTarget is one Fuzz function: its package directory, name and whether
// its body seeds the corpus with f.Add.
type fuzzTarget struct {
	dir, name string
	hasAdd    bool
}

func fuzzTargets(t *testing.T, root string) []fuzzTarget {
	t.Helper()
	var targets []fuzzTarget
	for _, rel := range goFiles(t, root) {
		if !strings.HasSuffix(rel, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, rel), nil, 0)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") || fn.Body == nil {
				continue
			}
			ft := fuzzTarget{dir: filepath.ToSlash(filepath.Dir(rel)), name: fn.Name.Name}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" {
					ft.hasAdd = true
				}
				return true
			})
			targets = append(targets, ft)
		}
	}
	return targets
}

// TestEveryFuzzTargetRunsInCI requires each Fuzz function in the module to
// be run by make test-fuzz (and so by make fuzz-short in CI) in its own
// package, with a committed seed corpus: f.Add seeds or testdata/fuzz/<Name>/.
func TestEveryFuzzTargetRunsInCI(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{} // name -> package directory
	line := regexp.MustCompile(`-fuzz '\^(Fuzz\w+)\$\$' .* \./(\S+?)/?$`)
	for l := range strings.SplitSeq(string(makefile), "\n") {
		if m := line.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			listed[m[1]] = m[2]
		}
	}
	targets := fuzzTargets(t, root)
	if len(targets) == 0 {
		t.Fatal("found no fuzz targets")
	}
	var names []string
	for _, ft := range targets {
		names = append(names, ft.name)
		if dir, ok := listed[ft.name]; !ok || dir != ft.dir {
			t.Errorf("%s in %s is not run by make test-fuzz (listed for %q)", ft.name, ft.dir, dir)
		}
		if ft.hasAdd {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, ft.dir, "testdata", "fuzz", ft.name))
		if err != nil || len(entries) == 0 {
			t.Errorf("%s in %s has no seeds: add f.Add calls or files under testdata/fuzz/%s/", ft.name, ft.dir, ft.name)
		}
	}
	for name := range listed {
		if !slices.Contains(names, name) {
			t.Errorf("make test-fuzz runs %s, which does not exist", name)
		}
	}
}
