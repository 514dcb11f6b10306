package argprofile_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// I2: the package reads no clock, environment, file, network or random
// source: none of its own files imports one.
func TestPackageIsPure(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"os", "net", "time", "math/rand", "math/rand/v2", "crypto/rand", "reflect", "unsafe", "syscall"}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if path == bad || strings.HasPrefix(path, bad+"/") && bad != "math/rand" {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked only %d files", checked)
	}
}
