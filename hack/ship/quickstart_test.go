package ship_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestQuickstartShownOutput runs every sh block of docs/quickstart.md that
// calls bin/toolgate and shows its output as "# " lines, and compares the
// output the commands print with the lines the page shows, so the page
// cannot drift from the binary (issue 20, item 7).
func TestQuickstartShownOutput(t *testing.T) {
	root := testutil.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "toolgate")
	if b, err := exec.Command("go", "build", "-o", bin, filepath.Join(root, "cmd", "toolgate")).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(filepath.Join(root, "docs", "quickstart.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shBlocks(string(raw))
	ran := 0
	for i, b := range blocks {
		var script, shown []string
		for _, l := range b {
			if s, ok := strings.CutPrefix(l, "# "); ok {
				shown = append(shown, s)
			} else {
				script = append(script, l)
			}
		}
		if len(shown) == 0 || !strings.Contains(strings.Join(script, "\n"), "bin/toolgate") {
			continue
		}
		ran++
		tmp := t.TempDir()
		// /tmp/ first: the binary's own path is under the temp directory.
		src := strings.ReplaceAll(strings.Join(script, "\n"), "/tmp/", tmp+"/")
		src = strings.ReplaceAll(src, "bin/toolgate", bin)
		cmd := exec.Command("bash", "-c", src)
		cmd.Dir = root
		out, _ := cmd.CombinedOutput() // the blocks show failures on purpose
		got := strings.Split(strings.TrimRight(strings.ReplaceAll(string(out), tmp+"/", "/tmp/"), "\n"), "\n")
		if d := cmp.Diff(shown, got); d != "" {
			t.Errorf("docs/quickstart.md sh block %d: the output differs from what the page shows (-shown +got):\n%s", i+1, d)
		}
	}
	if ran == 0 {
		t.Fatal("docs/quickstart.md has no sh block calling bin/toolgate with shown output")
	}
}

// shBlocks returns the lines of every ```sh fenced block of a Markdown page.
func shBlocks(md string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case !in && strings.TrimSpace(l) == "```sh":
			in, cur = true, nil
		case in && strings.TrimSpace(l) == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, l)
		}
	}
	return blocks
}
