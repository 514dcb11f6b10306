package engine_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// The engine is pure (docs/architecture.md, spec Section 7.7): standard library only,
// plus the engine's own packages and the pure jsonexact decoder, and none of
// the standard packages that reach the outside world or a clock.
var (
	allowedModulePrefixes = []string{
		"github.com/toolgate/toolgate/internal/engine",
		"github.com/toolgate/toolgate/internal/jsonexact",
	}
	forbiddenStd = []string{
		"os", "os/exec", "os/signal", "net", "net/http", "net/netip", "net/url", "syscall",
		"math/rand", "math/rand/v2", "crypto/rand", "unsafe", "reflect", "runtime", "time",
		"io/fs", "path/filepath", "log", "log/slog", "plugin", "embed",
	}
)

// TestEnginePurity parses every non-test Go file under internal/engine and
// internal/jsonexact and rejects imports outside the allow-list, and any use
// of time.Now even through an alias.
func TestEnginePurity(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	for _, dir := range []string{"internal/engine", "internal/jsonexact"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if reason := importProblem(p); reason != "" {
					t.Errorf("%s imports %q: %s", rel, p, reason)
				}
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(src), "time.Now") {
				t.Errorf("%s reads the clock; time is an explicit argument", rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestEngineHasNoTransitiveEnvironmentDependency checks the complete
// dependency graph, not only direct imports: a standard package can reach
// the environment on the engine's behalf (crypto/sha256 reaches os through
// the FIPS module's randomness source, which is why package digest carries
// its own SHA-256).
func TestEngineHasNoTransitiveEnvironmentDependency(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		testutil.SkipOrFailInCI(t, "go tool not on PATH: cannot list the engine's dependency graph")
	}
	cmd := exec.Command(goTool, "list", "-deps", "./internal/engine/...", "./internal/jsonexact/...")
	cmd.Dir = testutil.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{"os", "os/exec", "net", "syscall", "time", "math/rand", "math/rand/v2", "crypto/rand", "plugin"}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "net/") || strings.HasPrefix(dep, "k8s.io/") || strings.HasPrefix(dep, "sigs.k8s.io/") {
			t.Errorf("the engine depends on %s transitively", dep)
		}
		for _, f := range forbidden {
			if dep == f {
				t.Errorf("the engine depends on %s transitively", dep)
			}
		}
	}
}

func importProblem(p string) string {
	first := strings.SplitN(p, "/", 2)[0]
	if strings.Contains(first, ".") {
		for _, ok := range allowedModulePrefixes {
			if p == ok || strings.HasPrefix(p, ok+"/") {
				return ""
			}
		}
		return "only the standard library and the engine's own packages are allowed"
	}
	for _, bad := range forbiddenStd {
		if p == bad {
			return "the engine must not reach the environment, a clock, randomness or reflection"
		}
	}
	return ""
}

func TestPurityCheckRejectsForbiddenImports(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"os", "net/http", "time", "math/rand/v2", "k8s.io/apimachinery/pkg/runtime", "github.com/toolgate/toolgate/internal/manifest"} {
		if importProblem(p) == "" {
			t.Errorf("importProblem(%q) accepted a forbidden import", p)
		}
	}
	for _, p := range []string{"strings", "crypto/sha256", "github.com/toolgate/toolgate/internal/engine/fault", "github.com/toolgate/toolgate/internal/jsonexact"} {
		if r := importProblem(p); r != "" {
			t.Errorf("importProblem(%q) = %q, want allowed", p, r)
		}
	}
}
