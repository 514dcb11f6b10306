package ship_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/testutil"
)

// issueCitation is a reference a reader of the repository cannot resolve:
// a tracker's item by number (the word, singular or plural, then a number,
// or issue-N inside a heading's anchor). A page or comment names the spec
// section, the docs page or the decision's title instead.
var issueCitation = regexp.MustCompile(`[Ii]ssues?[ -]#?[0-9]+`)

// repoFiles returns the repository's files (relative, slash-separated)
// whose name ends in one of exts, skipping hidden directories, bin/ and
// dist/ (build output), as TestRepositoryStandsAlone does.
func repoFiles(t *testing.T, root string, exts ...string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if path != root && (strings.HasPrefix(n, ".") && n != ".ci" || n == "bin" || n == "dist" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(path, e) && d.Type().IsRegular() {
				rel, _ := filepath.Rel(root, path)
				files = append(files, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// issueCitations lists "file:line: text" for every issue citation in text.
func issueCitations(file, text string) []string {
	var found []string
	for i, line := range strings.Split(text, "\n") {
		for _, m := range issueCitation.FindAllString(line, -1) {
			found = append(found, fmt.Sprintf("%s:%d: %q", file, i+1, m))
		}
	}
	return found
}

// TestNoIssueCitations: no Markdown page and no Go file cites a tracker's
// issue by number (CHANGELOG.md, a log by nature, may).
func TestNoIssueCitations(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	files := repoFiles(t, root, ".md", ".go")
	if len(files) < 100 {
		t.Fatalf("found %d Markdown and Go files; the walk did not see the repository", len(files))
	}
	for _, f := range files {
		if filepath.Base(f) == "CHANGELOG.md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range issueCitations(f, string(b)) {
			t.Errorf("%s: cite the spec section, docs page or decision title instead", c)
		}
	}
}

func TestIssueCitationsAreFound(t *testing.T) {
	t.Parallel()
	issue := "iss" + "ue" // kept apart so this file does not cite one itself
	text := strings.Join([]string{
		"see " + issue + " 17, item 3",
		"(" + strings.ToUpper(issue[:1]) + issue[1:] + " 19)",
		"[x](decisions.md#key-management-" + issue + "-17-item-3)",
		issue + "s 6 and 7; " + issue + " #26",
		"an " + issue + " with no number, " + issue + "d 3 times, t" + issue + " 4", // the last is a known false positive
	}, "\n")
	got := issueCitations("f.md", text)
	want := []string{
		`f.md:1: "` + issue + ` 17"`,
		`f.md:2: "I` + issue[1:] + ` 19"`,
		`f.md:3: "` + issue + `-17"`,
		`f.md:4: "` + issue + `s 6"`,
		`f.md:4: "` + issue + ` #26"`,
		`f.md:5: "` + issue + ` 4"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("issue citations (-want +got):\n%s", diff)
	}
}

var (
	fence       = regexp.MustCompile("^\\s*(```|~~~)")
	heading     = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
	inlineLink  = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	mdLinkText  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	goDocAnchor = regexp.MustCompile(`((?:[\w.-]+/)*[\w.-]+\.md)#([\w%-]+)`)
)

// slug is the anchor GitHub gives a heading: its text (links reduced to
// their text) in lower case, every character that is not a letter, a
// digit, a space, '-' or '_' dropped, spaces turned into '-'.
func slug(text string) string {
	text = mdLinkText.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// markdown is a page split into what links can reach and what links it
// makes, code blocks and code spans left out.
type markdown struct {
	anchors map[string]bool
	links   []mdLink
}

type mdLink struct {
	line   int
	target string
}

func parseMarkdown(text string) markdown {
	md := markdown{anchors: map[string]bool{}}
	seen := map[string]int{}
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			md.anchors[m[1]] = true
		}
		if h := heading.FindStringSubmatch(line); h != nil {
			s := slug(h[2])
			if n := seen[s]; n > 0 {
				md.anchors[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				md.anchors[s] = true
			}
			seen[s]++
		}
		plain := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(plain, -1) {
			md.links = append(md.links, mdLink{i + 1, m[1]})
		}
		if m := refLink.FindStringSubmatch(plain); m != nil {
			md.links = append(md.links, mdLink{i + 1, m[1]})
		}
	}
	return md
}

// brokenLinks checks every relative link of the pages: its file must exist
// and, when it names an anchor in a Markdown page, that page must have a
// heading (or an HTML anchor) with that anchor. pages maps a slash path to
// its text; exists says whether another path is a file or directory.
func brokenLinks(pages map[string]string, exists func(string) bool) []string {
	parsed := map[string]markdown{}
	for p, text := range pages {
		parsed[p] = parseMarkdown(text)
	}
	var broken []string
	for p, md := range parsed {
		for _, l := range md.links {
			t := l.target
			if strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") || strings.HasPrefix(t, "/") {
				continue
			}
			file, anchor, _ := strings.Cut(t, "#")
			target := p
			if file != "" {
				target = filepath.ToSlash(filepath.Join(filepath.Dir(p), file))
			}
			where := fmt.Sprintf("%s:%d: %s", p, l.line, t)
			if _, ok := parsed[target]; !ok && !exists(target) {
				broken = append(broken, where+": no such file")
				continue
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if !parsed[target].anchors[anchor] {
				broken = append(broken, where+": no heading with this anchor in "+target)
			}
		}
	}
	sort.Strings(broken)
	return broken
}

// TestMarkdownLinksResolve: every relative link of every Markdown page
// reaches a file, and every anchor a heading of the page it names; a Go
// file's comment naming a page's anchor (docs/decisions.md#…) must resolve
// too. Renaming a heading therefore fails here until its links follow.
func TestMarkdownLinksResolve(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	pages := map[string]string{}
	for _, f := range repoFiles(t, root, ".md") {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		pages[f] = string(b)
	}
	if len(pages) < 10 || pages["docs/decisions.md"] == "" {
		t.Fatalf("found %d Markdown pages; the walk did not see the repository", len(pages))
	}
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	for _, b := range brokenLinks(pages, exists) {
		t.Error(b)
	}
	for _, f := range repoFiles(t, root, ".go") {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			_, comment, ok := strings.Cut(line, "//")
			if !ok {
				continue
			}
			for _, m := range goDocAnchor.FindAllStringSubmatch(comment, -1) {
				page := m[1]
				if _, ok := pages[page]; !ok {
					page = filepath.ToSlash(filepath.Join(filepath.Dir(f), m[1]))
				}
				md, ok := pages[page]
				if !ok {
					t.Errorf("%s:%d: %s#%s: no such page", f, i+1, m[1], m[2])
					continue
				}
				if !parseMarkdown(md).anchors[m[2]] {
					t.Errorf("%s:%d: %s#%s: no heading with this anchor", f, i+1, m[1], m[2])
				}
			}
		}
	}
}

func TestBrokenLinksAreFound(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"README.md": "# Toolgate\n\n[ok](docs/a.md#the-façade-sections-1317) [ok](docs/a.md#the-façade-sections-1317-1)\n" +
			"[ok](#toolgate) [ok](docs/a.md) [ok](LICENSE) [web](https://example.com/x#y)\n" +
			"[gone](docs/a.md#key-management-17) [missing](docs/b.md) [self](#nowhere)\n" +
			"`[in code](docs/b.md)`\n```\n[in a block](docs/b.md)\n## not a heading\n```\n[ref]: docs/a.md#not-a-heading\n",
		"docs/a.md": "# A\n\n## The façade (Sections 13–17)\n\n### The façade (Sections 13–17)\n\n[up](../README.md#toolgate) [`make dev-cluster`](#make-dev-cluster)\n\n### `make dev-cluster`\n",
	}
	exists := func(p string) bool { return p == "LICENSE" }
	want := []string{
		"README.md:11: docs/a.md#not-a-heading: no heading with this anchor in docs/a.md",
		"README.md:5: #nowhere: no heading with this anchor in README.md",
		"README.md:5: docs/a.md#key-management-17: no heading with this anchor in docs/a.md",
		"README.md:5: docs/b.md: no such file",
	}
	if diff := cmp.Diff(want, brokenLinks(pages, exists)); diff != "" {
		t.Errorf("broken links (-want +got):\n%s", diff)
	}
}
