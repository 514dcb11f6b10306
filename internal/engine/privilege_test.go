package engine_test

import (
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// Privilege is a value only its owner holds (spec Sections 13, 14, 29, 43).
// These are the privileged types and the only exported functions allowed
// to return them: their constructors.
const (
	modulePath   = "github.com/toolgate/toolgate"
	boundaryPkg  = modulePath + "/internal/engine/boundary"
	authorityPkg = modulePath + "/internal/engine/authority"
	hostPkg      = modulePath + "/internal/host"
	confirmPkg   = modulePath + "/internal/engine/confirm"
)

var (
	// privileged names each privileged named type (by package path and
	// name) and its constructors, written pkgpath.Func.
	privileged = map[string][]string{
		boundaryPkg + ".Boundary":       {boundaryPkg + ".New"},
		authorityPkg + ".RoleAuthority": {authorityPkg + ".Grant"},
		hostPkg + ".Host":               {hostPkg + ".New"},
		// The confirmer attester of toolgate.confirmations/1.
		confirmPkg + ".Attester": {confirmPkg + ".NewAttester"},
	}
	// exemptPackages are not part of the product: testutil is a fixture
	// package for tests that play the Host, and cannot be imported by
	// production code.
	exemptPackages = []string{modulePath + "/internal/testutil"}
)

// isExempt reports whether path is an exempt package or one of its
// subpackages (internal/testutil/pipelinefixture, for example).
func isExempt(path string) bool {
	for _, e := range exemptPackages {
		if path == e || strings.HasPrefix(path, e+"/") {
			return true
		}
	}
	return false
}

// TestNoExportedRouteToPrivilege type-checks every package of the module
// from its compiled export data and fails on any exported route by which a
// caller that was not handed a privileged value could obtain one: an
// exported function or method (of any type, exported or not) whose results
// reach a privileged type, an exported struct field or package variable of
// such a type, or a callback parameter through which the package would hand
// one out. "Reach" follows pointers, slices, arrays, maps, channels,
// exported struct fields, function results and interface method results.
func TestNoExportedRouteToPrivilege(t *testing.T) {
	t.Parallel()
	pkgs := loadModule(t)
	var routes []string
	for _, p := range pkgs {
		if isExempt(p.Path()) {
			continue
		}
		routes = append(routes, privilegeRoutes(p)...)
	}
	slices.Sort(routes)
	for _, r := range routes {
		t.Error(r)
	}
	if t.Failed() {
		return
	}
	// The check must be able to fail: with its constructor no longer
	// allowed, boundary.New is reported.
	saved := privileged[boundaryPkg+".Boundary"]
	defer func() { privileged[boundaryPkg+".Boundary"] = saved }()
	privileged[boundaryPkg+".Boundary"] = nil
	var checked bool
	for _, p := range pkgs {
		if p.Path() == boundaryPkg {
			checked = true
			if len(privilegeRoutes(p)) == 0 {
				t.Error("with no constructor allowed, boundary.New was not reported: the check cannot fail")
			}
		}
	}
	if !checked {
		t.Error("package boundary was not type-checked")
	}
}

// TestDomainIsNotABoundary pins the split of privilege from identity: a
// boundary.Domain can be neither assigned nor converted to a
// boundary.Boundary, and the evaluator accepts only an engine-built
// Evaluation Input (Section 21, structural evaluator misuse).
func TestDomainIsNotABoundary(t *testing.T) {
	t.Parallel()
	var boundaryPkgTypes, policyPkg *types.Package
	for _, p := range loadModule(t) {
		switch p.Path() {
		case boundaryPkg:
			boundaryPkgTypes = p
		case modulePath + "/internal/engine/policy":
			policyPkg = p
		}
	}
	if boundaryPkgTypes == nil || policyPkg == nil {
		t.Fatal("boundary or policy package not loaded")
	}
	b := boundaryPkgTypes.Scope().Lookup("Boundary").Type()
	d := boundaryPkgTypes.Scope().Lookup("Domain").Type()
	if types.AssignableTo(d, b) || types.ConvertibleTo(d, b) {
		t.Error("a boundary.Domain converts to a boundary.Boundary: identity can be turned into privilege")
	}
	eval, ok := policyPkg.Scope().Lookup("Evaluate").(*types.Func)
	if !ok {
		t.Fatal("policy.Evaluate not found")
	}
	in := eval.Type().(*types.Signature).Params().At(0).Type()
	if got := types.TypeString(in, nil); got != "*"+modulePath+"/internal/engine/evalinput.Input" {
		t.Errorf("policy.Evaluate takes %s; want only an engine-built *evalinput.Input", got)
	}
	if policyPkg.Scope().Lookup("Facts") != nil {
		t.Error("package policy exports Facts: callers could evaluate facts of their own")
	}
}

// privilegeRoutes lists every exported route to a privileged value in p.
func privilegeRoutes(p *types.Package) []string {
	var out []string
	report := func(pos string, what string, via []string) {
		out = append(out, fmt.Sprintf("%s: %s reaches %s", pos, what, strings.Join(via, " via ")))
	}
	scope := p.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		switch o := obj.(type) {
		case *types.Func:
			if o.Exported() && !isConstructor(p.Path()+"."+o.Name()) {
				if via := sigLeaks(o.Type().(*types.Signature), map[types.Type]bool{}); via != nil {
					report(p.Path(), "func "+o.Name(), via)
				}
			}
		case *types.Var:
			if o.Exported() {
				if via := reaches(o.Type(), map[types.Type]bool{}); via != nil {
					report(p.Path(), "var "+o.Name(), via)
				}
			}
		case *types.TypeName:
			named, ok := o.Type().(*types.Named)
			if !ok {
				continue
			}
			for m := range named.Methods() {
				if m.Exported() && !isConstructor(p.Path()+"."+o.Name()+"."+m.Name()) {
					if via := sigLeaks(m.Type().(*types.Signature), map[types.Type]bool{}); via != nil {
						report(p.Path(), "method "+o.Name()+"."+m.Name(), via)
					}
				}
			}
			if st, ok := named.Underlying().(*types.Struct); ok {
				for f := range st.Fields() {
					if f.Exported() && !f.Embedded() {
						if via := reaches(f.Type(), map[types.Type]bool{}); via != nil {
							report(p.Path(), "field "+o.Name()+"."+f.Name(), via)
						}
					}
				}
			}
		}
	}
	return out
}

// isConstructor reports whether fn (pkgpath.Name) is an allowed
// constructor of a privileged type.
func isConstructor(fn string) bool {
	for _, ctors := range privileged {
		if slices.Contains(ctors, fn) {
			return true
		}
	}
	return false
}

// sigLeaks reports how a call could hand a privileged value to its caller:
// through a result, or through a parameter of a callback it is given.
func sigLeaks(sig *types.Signature, seen map[types.Type]bool) []string {
	for v := range sig.Results().Variables() {
		if via := reaches(v.Type(), seen); via != nil {
			return append(via, "result")
		}
	}
	for v := range sig.Params().Variables() {
		if cb, ok := v.Type().Underlying().(*types.Signature); ok {
			for cv := range cb.Params().Variables() {
				if via := reaches(cv.Type(), seen); via != nil {
					return append(via, "callback parameter")
				}
			}
		}
	}
	return nil
}

// reaches returns the path by which a value of type t holds or yields a
// privileged value, or nil.
func reaches(t types.Type, seen map[types.Type]bool) []string {
	if seen[t] {
		return nil
	}
	seen[t] = true
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
		name := n.Obj().Pkg().Path() + "." + n.Obj().Name()
		if _, ok := privileged[name]; ok {
			return []string{name}
		}
		if slices.Contains(exemptPackages, n.Obj().Pkg().Path()) {
			return nil
		}
		for m := range n.Methods() {
			if m.Exported() {
				if via := sigLeaks(m.Type().(*types.Signature), seen); via != nil {
					return append(via, name+"."+m.Name())
				}
			}
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return reaches(u.Elem(), seen)
	case *types.Slice:
		return reaches(u.Elem(), seen)
	case *types.Array:
		return reaches(u.Elem(), seen)
	case *types.Chan:
		return reaches(u.Elem(), seen)
	case *types.Map:
		if via := reaches(u.Key(), seen); via != nil {
			return via
		}
		return reaches(u.Elem(), seen)
	case *types.Struct:
		for f := range u.Fields() {
			if f.Exported() {
				if via := reaches(f.Type(), seen); via != nil {
					return append(via, "field "+f.Name())
				}
			}
		}
	case *types.Signature:
		return sigLeaks(u, seen)
	case *types.Interface:
		for m := range u.Methods() {
			if via := sigLeaks(m.Type().(*types.Signature), seen); via != nil {
				return append(via, "interface method "+m.Name())
			}
		}
	}
	return nil
}

// loadModule type-checks every non-test package of the module from the
// export data `go list -export` produces.
func loadModule(t *testing.T) []*types.Package {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		testutil.SkipOrFailInCI(t, "go tool not on PATH: cannot type-check the module")
	}
	cmd := exec.Command(goTool, "list", "-export", "-deps", "-json=ImportPath,Export,Module,GoFiles", "./...")
	cmd.Dir = testutil.RepoRoot(t)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	var own []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath, Export string
			Module             *struct{ Path string }
			GoFiles            []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		exports[p.ImportPath] = p.Export
		// A package of tests only (test/...) has no API to inspect.
		if p.Module != nil && p.Module.Path == modulePath && len(p.GoFiles) > 0 {
			own = append(own, p.ImportPath)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var pkgs []*types.Package
	for _, path := range own {
		p, err := imp.Import(path)
		if err != nil {
			t.Fatalf("importing %s: %v", path, err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("type-checked %d packages of the module; expected the whole module", len(pkgs))
	}
	return pkgs
}
