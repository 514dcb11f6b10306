package engine_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/testutil"
)

// The engine is pure (docs/architecture.md, spec Section 7.7): standard library only,
// plus the engine's own packages, the pure jsonexact decoder, its error shape (jsonerr) and the JSON lexer
// (jsonlex), and none of
// the standard packages that reach the outside world or a clock.
var (
	allowedModulePrefixes = []string{
		"github.com/toolgate/toolgate/internal/engine",
		"github.com/toolgate/toolgate/internal/jsonexact",
		"github.com/toolgate/toolgate/internal/jsonerr",
		"github.com/toolgate/toolgate/internal/jsonlex",
	}
	forbiddenStd = []string{
		"os", "os/exec", "os/signal", "net", "net/http", "net/netip", "net/url", "syscall",
		"math/rand", "math/rand/v2", "crypto/rand", "unsafe", "reflect", "runtime", "time",
		"io/fs", "path/filepath", "log", "log/slog", "plugin", "embed",
	}
)

// TestEnginePurity parses every non-test Go file under internal/engine,
// internal/jsonexact, internal/jsonerr and internal/jsonlex and rejects imports outside the allow-list, and any use
// of time.Now even through an alias.
func TestEnginePurity(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	for _, dir := range []string{"internal/engine", "internal/jsonexact", "internal/jsonerr", "internal/jsonlex"} {
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

// hashOnlyDeps are the environment-reaching standard packages that
// crypto/sha256 brings into the engine's graph, and the only ones allowed
// there: the FIPS 140 module links its DRBG (crypto/internal/sysrand,
// entropy, hence os, syscall and time) and reads GODEBUG once, at package
// initialization (docs/decisions.md, "Digests"). Hashing itself reads no
// environment, clock or randomness. The list is exact in both directions:
// TestEngineHasNoTransitiveEnvironmentDependency fails if one of these stops
// coming only through crypto/sha256 or if the set changes (a Go upgrade is
// then reviewed, not silently accepted).
var hashOnlyDeps = []string{"os", "syscall", "time"}

// depGraph is `go list -deps` over the given patterns: every package and
// its direct imports.
func depGraph(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		testutil.SkipOrFailInCI(t, "go tool not on PATH: cannot list the engine's dependency graph")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, patterns...)
	cmd := exec.Command(goTool, args...)
	cmd.Dir = testutil.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		g[f[0]] = f[1:]
	}
	return g
}

// reachable returns every package reachable from roots in g, not expanding
// the packages in stop (they are reported but not followed).
func reachable(g map[string][]string, roots []string, stop string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if p == stop {
			return
		}
		for _, q := range g[p] {
			walk(q)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return seen
}

func environmentPackage(dep string) bool {
	forbidden := []string{"os", "os/exec", "net", "syscall", "time", "math/rand", "math/rand/v2", "crypto/rand", "plugin"}
	return slices.Contains(forbidden, dep) || strings.HasPrefix(dep, "net/") ||
		strings.HasPrefix(dep, "k8s.io/") || strings.HasPrefix(dep, "sigs.k8s.io/")
}

// TestEngineHasNoTransitiveEnvironmentDependency checks the complete
// dependency graph, not only direct imports: a standard package can reach
// the environment on the engine's behalf. The one exception is
// crypto/sha256, imported by package digest only: it may bring exactly
// hashOnlyDeps, and nothing else in the engine may reach them.
func TestEngineHasNoTransitiveEnvironmentDependency(t *testing.T) {
	t.Parallel()
	g := depGraph(t, "./internal/engine/...", "./internal/jsonexact/...", "./internal/jsonlex/...")
	var roots []string
	for p, imports := range g {
		if !strings.HasPrefix(p, "github.com/toolgate/toolgate/") {
			continue
		}
		roots = append(roots, p)
		if slices.Contains(imports, "crypto/sha256") && p != "github.com/toolgate/toolgate/internal/engine/digest" {
			t.Errorf("%s imports crypto/sha256; only package digest may", p)
		}
	}
	slices.Sort(roots)
	// Without crypto/sha256's subtree, nothing reaches the environment.
	for dep := range reachable(g, roots, "crypto/sha256") {
		if environmentPackage(dep) {
			t.Errorf("the engine depends on %s transitively, not through crypto/sha256", dep)
		}
	}
	// Through it, exactly hashOnlyDeps.
	var viaHash []string
	for dep := range reachable(g, []string{"crypto/sha256"}, "") {
		if environmentPackage(dep) {
			viaHash = append(viaHash, dep)
		}
	}
	slices.Sort(viaHash)
	if diff := cmp.Diff(hashOnlyDeps, viaHash); diff != "" {
		t.Errorf("environment packages crypto/sha256 brings (-allowed +got):\n%s", diff)
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
	for _, p := range []string{"strings", "crypto/sha256", "github.com/toolgate/toolgate/internal/engine/fault", "github.com/toolgate/toolgate/internal/jsonexact", "github.com/toolgate/toolgate/internal/jsonlex"} {
		if r := importProblem(p); r != "" {
			t.Errorf("importProblem(%q) = %q, want allowed", p, r)
		}
	}
}
