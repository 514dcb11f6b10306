package ship_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// citation is a test docs/level2.md cites: `file_test.go:TestName` (a Go
// test) or `file_test.go:"text"` (a Ginkgo spec or container).
var citation = regexp.MustCompile("`([A-Za-z0-9_./-]+_test\\.go):(Test[A-Za-z0-9_]+|\"[^\"`]+\")`")

// TestLevel2CitationsExist: docs/level2.md has one row for every Level 2
// obligation of Section 43 (read from the spec's table), each with at least
// one positive and one negative test, and every test it cites exists — a
// `func TestX(` or an It/Describe/Context/When with that exact text in the
// cited file — so the claim cannot outlive its evidence.
func TestLevel2CitationsExist(t *testing.T) {
	root := testutil.RepoRoot(t)
	spec, err := os.ReadFile(filepath.Join(root, "docs", "spec", "securetoolkit-protocol-phase1-6.txt"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "level2.md"))
	if err != nil {
		t.Fatal(err)
	}
	obligations := tableRows(t, string(spec), "| Level 2 obligation |")
	if len(obligations) < 10 {
		t.Fatalf("the spec's Level 2 table has %d rows; the parser lost it", len(obligations))
	}
	rows := map[string][]string{}
	for _, r := range tableRows(t, string(doc), "| Level 2 obligation |") {
		rows[r[0]] = r
	}
	for _, o := range obligations {
		r, ok := rows[o[0]]
		if !ok {
			t.Errorf("docs/level2.md has no row for the obligation %q", o[0])
			continue
		}
		delete(rows, o[0])
		if len(r) != 6 {
			t.Errorf("%s: %d cells, want 6 (obligation, control, positive, negative, evidence, claim)", o[0], len(r))
			continue
		}
		for i, what := range map[int]string{2: "positive", 3: "negative"} {
			if !citation.MatchString(r[i]) {
				t.Errorf("%s: no %s test cited", o[0], what)
			}
		}
		for i, what := range map[int]string{1: "documented control", 4: "evidence artifact", 5: "claim"} {
			if strings.TrimSpace(r[i]) == "" {
				t.Errorf("%s: no %s", o[0], what)
			}
		}
	}
	for o := range rows {
		t.Errorf("docs/level2.md has a row %q that is no Section 43 obligation", o)
	}

	files := map[string]string{}
	ms := citation.FindAllStringSubmatch(string(doc), -1)
	if len(ms) == 0 {
		t.Fatal("docs/level2.md cites no test")
	}
	for _, m := range ms {
		file, name := m[1], m[2]
		src, ok := files[file]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				t.Errorf("%s: cited, not found", file)
				files[file] = ""
				continue
			}
			src = string(b)
			files[file] = src
		}
		if strings.HasPrefix(name, "Test") {
			if !regexp.MustCompile(`(?m)^func ` + name + `\(t \*testing\.T\)`).MatchString(src) {
				t.Errorf("%s: no func %s", file, name)
			}
			continue
		}
		if !regexp.MustCompile(`\b(It|Describe|Context|When)\(` + regexp.QuoteMeta(name) + `,`).MatchString(src) {
			t.Errorf("%s: no Ginkgo spec %s", file, name)
		}
	}
}

// tableRows returns the body rows of the Markdown table whose header line
// starts with header, each split into trimmed cells (`\|` is a pipe inside
// a cell).
func tableRows(t *testing.T, text, header string) [][]string {
	t.Helper()
	var rows [][]string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, header):
			if in || rows != nil {
				t.Fatalf("two tables start with %q", header)
			}
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			line = strings.ReplaceAll(strings.TrimSpace(line), `\|`, "\x00")
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
			}
			rows = append(rows, cells)
		default:
			in = false
		}
	}
	return rows
}
