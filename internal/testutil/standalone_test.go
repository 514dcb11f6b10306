package testutil_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// outsideReferences are the ways a file could point at material outside
// the repository: the workplace's shared folder and the design document
// that lived there. They are assembled here so this file does not match
// itself.
var outsideReferences = []string{
	".." + "/shared",
	"shared" + "/spec",
	"shared" + "/docs",
	"DESIGN" + ".md",
}

// TestRepositoryStandsAlone: no source, document, manifest or script in the
// repository refers to files outside it; what a reader needs (the
// architecture, the decisions, the spec text) lives in docs/.
func TestRepositoryStandsAlone(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	text := map[string]bool{".go": true, ".md": true, ".yaml": true, ".yml": true, ".txt": true, ".sh": true, ".js": true, ".json": true, "": true}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !text[filepath.Ext(path)] || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return err // a built binary, not text
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		for _, ref := range outsideReferences {
			if strings.Contains(string(b), ref) {
				t.Errorf("%s refers to %q, outside the repository", filepath.ToSlash(rel), ref)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files; the walk did not see the repository", checked)
	}
}
