package engine_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// layerRules are the import rules of issue 16 ("One door to the engine"),
// in docs/architecture.md's layers: the HTTP service reaches the engine only
// through the Host façade (its typed rejections, fault, excepted), and the
// packages that build served domains sit below the HTTP package.
var layerRules = []struct {
	pkg string
	// allowed reports whether pkg may import imp; direct says whether
	// the rule covers direct imports only or every dependency.
	allowed func(imp string) bool
	direct  bool
	rule    string
}{
	{modulePath + "/internal/server", engineOnlyFault, true, "the server reaches the engine only through internal/host (fault excepted)"},
	{modulePath + "/internal/store", notServer, false, "the store sits below the HTTP package"},
	{modulePath + "/internal/standalone", notServer, false, "the standalone loader sits below the HTTP package"},
	{modulePath + "/internal/serving", notServer, false, "the served domains sit below the HTTP package"},
}

func engineOnlyFault(imp string) bool {
	return !strings.HasPrefix(imp, modulePath+"/internal/engine/") || imp == modulePath+"/internal/engine/fault"
}

func notServer(imp string) bool {
	return imp != modulePath+"/internal/server" && !strings.HasPrefix(imp, modulePath+"/internal/server/")
}

// TestLayerImports: internal/server imports no engine package but fault,
// and internal/store, internal/standalone and internal/serving do not
// depend on internal/server, directly or through another package.
func TestLayerImports(t *testing.T) {
	t.Parallel()
	pkgs := listImports(t)
	for _, r := range layerRules {
		p, ok := pkgs[r.pkg]
		if !ok {
			t.Errorf("%s was not listed", r.pkg)
			continue
		}
		imports := p.Deps
		if r.direct {
			imports = p.Imports
		}
		for _, imp := range imports {
			if !r.allowed(imp) {
				t.Errorf("%s imports %s: %s", r.pkg, imp, r.rule)
			}
		}
	}
	// The rules must be able to fail: the Host itself imports the engine,
	// and the service depends on itself.
	if h := pkgs[hostPkg]; !slices.ContainsFunc(h.Imports, func(imp string) bool { return !engineOnlyFault(imp) }) {
		t.Error("internal/host imports no engine package beyond fault: the server rule cannot fail")
	}
	if notServer(modulePath + "/internal/server") {
		t.Error("the store rule accepts internal/server: it cannot fail")
	}
}

type listedPackage struct {
	ImportPath    string
	Imports, Deps []string
}

// listImports lists every package of the module with its non-test imports
// and dependencies.
func listImports(t *testing.T) map[string]listedPackage {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		testutil.SkipOrFailInCI(t, "go tool not on PATH: cannot list the module's imports")
	}
	cmd := exec.Command(goTool, "list", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = testutil.RepoRoot(t)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}
