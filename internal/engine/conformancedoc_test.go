package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		if d.IsDir() && skipDir(root, path, d.Name()) {
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

// TestConformanceTableCitesTestsInTheirPackages checks every table row of
// docs/conformance.md: a Status from the closed set, and every cited test
// defined in one of the packages the row names (`all` names any) and unable
// to skip itself (a test that may lack something uses
// testutil.SkipOrFailInCI, which fails under CI).
func TestConformanceTableCitesTestsInTheirPackages(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "conformance.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Where each test is defined (repository-relative directory) and
	// whether its body can skip.
	defined := map[string][]string{}
	skips := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`)
	skip := regexp.MustCompile(`\.Skip(?:f|Now)?\(`)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipDir(root, path, d.Name()) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		locs := decl.FindAllSubmatchIndex(src, -1)
		for i, m := range locs {
			name := string(src[m[2]:m[3]])
			end := len(src)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			defined[name] = append(defined[name], filepath.ToSlash(rel))
			skips[name] = skips[name] || skip.Match(src[m[1]:end])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[string]bool{"proven by test": true, "structural only": true, "deferred to the service": true,
		"built": true, "partly built": true, "not built": true} // the last three: the Section 41 table
	ticked := regexp.MustCompile("`([^`]+)`")
	named := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`")
	var header []string
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == nil {
			header = cells
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows++
		col := func(name string) string {
			for i, h := range header {
				if h == name && i < len(cells) {
					return cells[i]
				}
			}
			return ""
		}
		where := cells[0]
		if !statuses[col("Status")] {
			t.Errorf("row %q: status %q is not one of the closed set", where, col("Status"))
		}
		pkgCell := col("Package")
		var dirs []string
		for _, m := range ticked.FindAllStringSubmatch(pkgCell, -1) {
			for _, d := range []string{m[1], "internal/" + m[1]} {
				if fi, err := os.Stat(filepath.Join(root, d)); err == nil && fi.IsDir() {
					dirs = append(dirs, d)
					break
				}
			}
		}
		for _, m := range named.FindAllStringSubmatch(line, -1) {
			name := m[1]
			if skips[name] {
				t.Errorf("row %q cites %s, which can skip itself", where, name)
			}
			if pkgCell == "all" {
				continue
			}
			found := false
			for _, d := range defined[name] {
				found = found || slices.Contains(dirs, d)
			}
			if !found {
				t.Errorf("row %q cites %s, defined in %v, not in the row's packages %s", where, name, defined[name], pkgCell)
			}
		}
	}
	if rows < 100 {
		t.Errorf("only %d table rows parsed; the tables were not read", rows)
	}
}

// skipDir reports whether the conformance tests' walk skips a directory:
// .git, and the tool modules under hack/ (their own go.mod; hack/ship and
// the other hack packages of this module are walked, as their tests are
// cited).
func skipDir(root, path, name string) bool {
	if name == ".git" {
		return true
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || !strings.HasPrefix(filepath.ToSlash(rel), "hack/") {
		return false
	}
	_, err = os.Stat(filepath.Join(path, "go.mod"))
	return err == nil
}
