package arch_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

const modulePath = "github.com/toolgate/toolgate"

// outside are the module paths the layer table leaves out on purpose:
// test-only packages, this package, and standalone programs.
var outside = []string{"test/", "internal/testutil", "internal/consume/consumetest", "internal/consume/consumebench", "internal/standalone/standalonetest", "internal/arch", "hack/", "examples/"}

// families may import each other within one layer: the protocol core's
// areas, the Consumption stores with their interface, and the MCP gateway
// with its importer (which writes the gateway's configuration).
var families = []string{"internal/engine", "internal/consume", "internal/mcpgate"}

// TestLayers: every module package sits in exactly one layer of
// docs/architecture.md's table, and imports only packages in lower layers
// or in its own family.
func TestLayers(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	layers := readLayers(t, filepath.Join(root, "docs", "architecture.md"))
	pkgs := listImports(t)
	placed := 0
	for path, p := range pkgs {
		rel, inModule := strings.CutPrefix(path, modulePath+"/")
		if !inModule || isOutside(rel) {
			continue
		}
		from, ok := layerOf(layers, rel)
		if !ok {
			t.Errorf("%s is in no layer of docs/architecture.md: place it in the table", rel)
			continue
		}
		placed++
		for _, imp := range p.Imports {
			irel, inModule := strings.CutPrefix(imp, modulePath+"/")
			if !inModule {
				continue
			}
			if err := allowed(layers, rel, from, irel); err != nil {
				t.Error(err)
			}
		}
	}
	if placed < 30 {
		t.Errorf("only %d packages were placed in a layer; the table or the listing was not read", placed)
	}
}

// TestLayersCanFail: the rule rejects an upward, a sideways and an
// unplaced import, and accepts a downward and an in-family one.
func TestLayersCanFail(t *testing.T) {
	t.Parallel()
	layers := readLayers(t, filepath.Join(testutil.RepoRoot(t), "docs", "architecture.md"))
	tests := []struct {
		from, to string
		ok       bool
	}{
		{"internal/store", "internal/server", false},       // up
		{"internal/standalone", "internal/server", false},  // sideways
		{"internal/host", "internal/manifest", false},      // up
		{"internal/engine/policy", "internal/host", false}, // up, out of the core
		{"internal/server", "internal/nowhere", false},     // not placed
		{"internal/server", "internal/host", true},
		{"internal/engine/policy", "internal/engine/fault", true},
		{"internal/consume/boltstore", "internal/consume", true},
	}
	for _, tc := range tests {
		from, ok := layerOf(layers, tc.from)
		if !ok {
			t.Fatalf("%s is in no layer", tc.from)
		}
		if err := allowed(layers, tc.from, from, tc.to); (err == nil) != tc.ok {
			t.Errorf("%s → %s: %v, want allowed %v", tc.from, tc.to, err, tc.ok)
		}
	}
}

// publicationSide are the packages besides the Host that name engine
// packages beyond fault: they turn API objects into engine drafts, and
// publish, admit, reconcile or keep the published snapshots, whose types
// are the engine's own (Sections 9, 10, 19). docs/architecture.md
// ("Layers") lists them with the same words.
var publicationSide = []string{
	"controllers",                // a PolicySnapshot's generation (ident)
	"internal/manifest",          // YAML manifests into engine drafts
	"internal/mcpgate/mcpimport", // an MCP tool's input schema as a schema draft
	"internal/publication",       // the one publication path of PolicySnapshot chains
	"internal/store",             // the served registry and policy snapshots
}

// TestOneDoorToTheEngine: the Host is the one door to the engine (docs/
// architecture.md, "The Host façade"). Every placed package outside the
// engine imports no engine package but fault (its typed rejections),
// unless it is the Host or on the publication side; and every package on
// the publication side still needs the exception, so the list stays exact.
func TestOneDoorToTheEngine(t *testing.T) {
	t.Parallel()
	pkgs := listImports(t)
	for path, p := range pkgs {
		rel, inModule := strings.CutPrefix(path, modulePath+"/")
		if !inModule || isOutside(rel) || family(rel) == "internal/engine" || rel == "internal/host" {
			continue
		}
		beyondFault := slices.ContainsFunc(p.Imports, func(imp string) bool { return !engineOnlyFault(imp) })
		switch exempt := slices.Contains(publicationSide, rel); {
		case beyondFault && !exempt:
			for _, imp := range p.Imports {
				if !engineOnlyFault(imp) {
					t.Errorf("%s imports %s: it reaches the engine only through internal/host (fault excepted)", rel, imp)
				}
			}
		case !beyondFault && exempt:
			t.Errorf("%s is on the publication side but imports no engine package beyond fault: take it off the list", rel)
		}
	}
	// The rule can fail: the Host itself imports the engine, and the
	// binary and the HTTP package are listed and held to it.
	if h := pkgs[modulePath+"/internal/host"]; !slices.ContainsFunc(h.Imports, func(imp string) bool { return !engineOnlyFault(imp) }) {
		t.Error("internal/host imports no engine package beyond fault: the rule cannot fail")
	}
	for _, rel := range []string{"internal/server", "cmd/toolgate"} {
		if _, ok := pkgs[modulePath+"/"+rel]; !ok || slices.Contains(publicationSide, rel) {
			t.Errorf("%s was not listed, or is exempt", rel)
		}
	}
}

func engineOnlyFault(imp string) bool {
	return !strings.HasPrefix(imp, modulePath+"/internal/engine/") || imp == modulePath+"/internal/engine/fault"
}

// layer is one row of the table: its rank (1 is the top) and its package
// patterns ("x/..." names x's subpackages).
type layer struct {
	rank     int
	patterns []string
}

// readLayers parses the "| Layer | Packages | …" table under "## Layers".
func readLayers(t *testing.T, path string) []layer {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Layers\n")
	if !ok {
		t.Fatal("docs/architecture.md has no \"## Layers\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	section, _, _ = strings.Cut(section, "\n### ")
	ticked := regexp.MustCompile("`([^`]+)`")
	var out []layer
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			continue
		}
		rank, err := strconv.Atoi(strings.Fields(strings.TrimSpace(cells[0]) + " x")[0])
		if err != nil {
			continue // the header and the separator row
		}
		l := layer{rank: rank}
		for _, m := range ticked.FindAllStringSubmatch(cells[1], -1) {
			l.patterns = append(l.patterns, m[1])
		}
		out = append(out, l)
	}
	if len(out) < 5 {
		t.Fatalf("only %d layers read from the table", len(out))
	}
	return out
}

// layerOf returns the rank of the layer that places pkg (a path relative
// to the module).
func layerOf(layers []layer, pkg string) (int, bool) {
	for _, l := range layers {
		for _, p := range l.patterns {
			if sub, ok := strings.CutSuffix(p, "/..."); ok && strings.HasPrefix(pkg, sub+"/") || p == pkg {
				return l.rank, true
			}
		}
	}
	return 0, false
}

func isOutside(rel string) bool {
	for _, o := range outside {
		if rel == strings.TrimSuffix(o, "/") || strings.HasPrefix(rel, strings.TrimSuffix(o, "/")+"/") {
			return true
		}
	}
	return false
}

func family(rel string) string {
	for _, f := range families {
		if rel == f || strings.HasPrefix(rel, f+"/") {
			return f
		}
	}
	return ""
}

// allowed reports why the import of to by from (in layer fromRank) crosses
// the layers, or nil.
func allowed(layers []layer, from string, fromRank int, to string) error {
	if isOutside(to) {
		return fmt.Errorf("%s imports %s, which is outside the layers (test-only or a program)", from, to)
	}
	toRank, ok := layerOf(layers, to)
	f := family(from)
	switch {
	case !ok:
		return fmt.Errorf("%s imports %s, which is in no layer of docs/architecture.md", from, to)
	case toRank > fromRank:
		return nil
	case f != "" && f == family(to):
		return nil
	case toRank == fromRank:
		return fmt.Errorf("%s imports %s, a package of its own layer (%d): layers import only downwards", from, to, fromRank)
	default:
		return fmt.Errorf("%s (layer %d) imports %s (layer %d): layers import only downwards", from, fromRank, to, toRank)
	}
}

type listedPackage struct {
	ImportPath string
	Imports    []string
}

// listImports lists every package of the module with its non-test
// imports.
func listImports(t *testing.T) map[string]listedPackage {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		testutil.SkipOrFailInCI(t, "go tool not on PATH: cannot list the module's imports")
	}
	cmd := exec.Command(goTool, "list", "-json=ImportPath,Imports", "./...")
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
