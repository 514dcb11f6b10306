package arch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// admissionParts are the rules internal/publication assembles into one
// admission function per kind (HostAuthority, ToolRegistry, Policy and
// Admit). A product package that called one of them directly would be a
// second admission path, whose steps could differ from the webhook's.
var admissionParts = map[string][]string{
	modulePath + "/internal/manifest": {"CheckConfirmed", "CheckHostAuthorityName", "CheckPolicyName", "CheckRegistryName",
		"GraceOf", "HostAuthorityDraft", "HostConfig", "PolicyDraft", "RegistryDraft"},
	modulePath + "/internal/host": {"CheckProfileBinding", "PublishRegistryDraft"},
}

// admissionAssemblers may call the parts: the package that defines them and
// the one that assembles them.
var admissionAssemblers = []string{"internal/manifest", "internal/publication", "internal/host"}

func TestOneAdmissionPathPerKind(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	var checked int
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || isOutside(rel+"/") || isOutside(rel) || slices.Contains(admissionAssemblers, rel) || rel == "bench" || rel == "charts") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		checked++
		for _, call := range admissionCalls(t, p) {
			t.Errorf("%s calls %s: admit through internal/publication (HostAuthority, ToolRegistry, Policy, Admit) so every path applies the same rules", rel, call)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("only %d files were checked: the walk did not reach the product packages", checked)
	}
}

func TestOneAdmissionPathCanFail(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nimport (\n\tm \"" + modulePath + "/internal/manifest\"\n\t\"" + modulePath + "/internal/host\"\n)\n\n" +
		"func f() { _, _ = m.RegistryDraft(nil); _, _ = host.PublishRegistryDraft(nil); _ = m.Set{} }\n"
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := admissionCalls(t, p)
	want := []string{"host.PublishRegistryDraft", "manifest.RegistryDraft"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("calls found = %v, want %v", got, want)
	}
}

// admissionCalls lists the admission parts the Go file p refers to, as
// package.Name.
func admissionCalls(t *testing.T, p string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{} // local import name → import path
	for _, imp := range f.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := admissionParts[ip]; !ok {
			continue
		}
		name := path.Base(ip)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = ip
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if ip, ok := local[x.Name]; ok && slices.Contains(admissionParts[ip], sel.Sel.Name) {
			out = append(out, path.Base(ip)+"."+sel.Sel.Name)
		}
		return true
	})
	return out
}
