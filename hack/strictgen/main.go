// Command strictgen generates internal/server/zz_generated.strict.go: the
// member mapping of the strict request-body decoder (internal/server/strict.go)
// for each wire type in client/types.go. It reads the struct definitions with
// go/parser, so a field added to a wire type reaches the decoder by
// regenerating; the JSON scanning itself stays hand-written in strict.go.
//
// Usage: go run ./hack/strictgen -types client/types.go -out zz_generated.strict.go
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// A root is a request body: the decoder function strict.go's callers use,
// the wire type and what the body is, for the function's comment.
type root struct{ fn, typ, doc string }

// A wireType is a struct type a root reaches, with its short name:
// namesShort is its member list (the tests name these lists) and short,
// lower-cased, is its decoding method.
type wireType struct{ typ, short string }

// A table says what to generate: every root and every wire type they
// reach, in output order. A reachable type missing from types, or a listed
// one no root reaches, fails the generator.
type table struct {
	roots []root
	types []wireType
}

// toolgate is the API's table. To add a request body or a wire type, add
// its row here and run make generate.
var toolgate = table{roots: []root{
	{"decodeAuthorize", "AuthorizeRequest", "an authorize request body"},
	{"decodeValidate", "ValidateRequest", "a validate or consume request body"},
	{"decodeCurrent", "CurrentRequest", "a current request body"},
}, types: []wireType{
	{"AuthorizeRequest", "AuthorizeRequest"},
	{"HostAuthorityRef", "HostAuthority"},
	{"Proposal", "Proposal"},
	{"RegistrySelection", "Registry"},
	{"PolicySelection", "Policy"},
	{"Facts", "Facts"},
	{"Assessment", "Assessment"},
	{"SecurityContext", "Security"},
	{"Identity", "Identity"},
	{"Window", "Window"},
	{"Intent", "Intent"},
	{"Delegation", "Delegation"},
	{"Provenance", "Provenance"},
	{"ProvenanceRecord", "Record"},
	{"Influence", "Influence"},
	{"InfluenceCollection", "Collection"},
	{"InfluenceNode", "Node"},
	{"ValidateRequest", "Validate"},
	{"Expectations", "Expectations"},
	{"CurrentRequest", "Current"},
}}

// maxMembers is the width of the decoder's bit set of seen members.
const maxMembers = 32

// A kind is how a member's value is decoded.
type kind int

const (
	kString  kind = iota // string: scanner.String
	kStrings             // []string: scanner.Strings
	kUint                // uint64: scanner.Uint
	kBool                // bool: scanner.Bool
	kRaw                 // json.RawMessage: scanner.Raw, bytes kept
	kStruct              // a wire type, decoded by its method
	kPointer             // *wire type: allocated when the member is present
	kObjects             // []wire type: an array of objects
)

type field struct {
	goName, name string // the Go field and its JSON member name
	kind         kind
	typ          string // the wire type of kStruct, kPointer, kObjects
}

type generator struct {
	table
	structs map[string][]field  // every struct type of the file
	paths   map[string][]string // where each reached type is decoded
	stack   []string            // the types being visited, against recursion
}

func main() {
	types := flag.String("types", "client/types.go", "Go file declaring the wire types")
	pkg := flag.String("pkg", "github.com/toolgate/toolgate/client", "import path of the wire types' package")
	out := flag.String("out", "zz_generated.strict.go", "generated Go file")
	name := flag.String("package", "server", "package name of the generated file")
	flag.Parse()
	src, err := os.ReadFile(*types)
	if err != nil {
		log.Fatal(err)
	}
	gen, err := generate(toolgate, *types, src, *pkg, *name)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, gen, 0o644); err != nil {
		log.Fatal(err)
	}
}

// generate returns the decoder source, in package out, for the table's
// wire types declared in src (filename is for messages); the types are in
// package pkg.
func generate(t table, filename string, src []byte, pkg, out string) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := &generator{table: t, structs: map[string][]field{}, paths: map[string][]string{}}
	if err := g.parse(file); err != nil {
		return nil, err
	}
	for _, r := range g.roots {
		if err := g.visit(r.typ, ""); err != nil {
			return nil, err
		}
	}
	if err := g.checkTable(); err != nil {
		return nil, err
	}
	return g.emit(file.Name.Name, pkg, out)
}

// parse records the fields of every struct type of the file, failing on
// any field the decoder cannot map exactly.
func (g *generator) parse(file *ast.File) error {
	// The struct type names first, to tell a wire type from another named type.
	names := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if _, ok := ts.Type.(*ast.StructType); ok {
				names[ts.Name.Name] = true
			}
		}
		return true
	})
	var errs []error
	ast.Inspect(file, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		var fields []field
		for _, f := range st.Fields.List {
			if len(f.Names) != 1 || f.Tag == nil {
				errs = append(errs, fmt.Errorf("%s: every field needs one name and a json tag", ts.Name.Name))
				continue
			}
			tag, err := strconv.Unquote(f.Tag.Value)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			// encoding/json (the reference) skips unexported fields and
			// reads ",string" members differently: neither is mapped.
			name, opts, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			if name == "" || name == "-" || (opts != "" && opts != "omitempty") || !ast.IsExported(f.Names[0].Name) {
				errs = append(errs, fmt.Errorf("%s.%s: want an exported field tagged json:\"name\" or json:\"name,omitempty\"", ts.Name.Name, f.Names[0].Name))
				continue
			}
			k, typ, ok := classify(f.Type, names)
			if !ok {
				errs = append(errs, fmt.Errorf("%s.%s: no decoding for this field type", ts.Name.Name, f.Names[0].Name))
				continue
			}
			fields = append(fields, field{goName: f.Names[0].Name, name: name, kind: k, typ: typ})
		}
		g.structs[ts.Name.Name] = fields
		return false
	})
	return errors.Join(errs...)
}

// classify maps a field's type to its decoding.
func classify(e ast.Expr, structs map[string]bool) (kind, string, bool) {
	switch t := e.(type) {
	case *ast.Ident:
		switch {
		case t.Name == "string":
			return kString, "", true
		case t.Name == "uint64":
			return kUint, "", true
		case t.Name == "bool":
			return kBool, "", true
		case structs[t.Name]:
			return kStruct, t.Name, true
		}
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok && x.Name == "json" && t.Sel.Name == "RawMessage" {
			return kRaw, "", true
		}
	case *ast.StarExpr:
		if x, ok := t.X.(*ast.Ident); ok && structs[x.Name] {
			return kPointer, x.Name, true
		}
	case *ast.ArrayType:
		if x, ok := t.Elt.(*ast.Ident); ok && t.Len == nil {
			switch {
			case x.Name == "string":
				return kStrings, "", true
			case structs[x.Name]:
				return kObjects, x.Name, true
			}
		}
	}
	return 0, "", false
}

// visit records that typ is decoded at path, and so its members below it.
// Arrays add no index: paths name members.
func (g *generator) visit(typ, path string) error {
	fields, ok := g.structs[typ]
	switch {
	case !ok:
		return fmt.Errorf("%s: not a struct type of the file", typ)
	case slices.Contains(g.stack, typ):
		return fmt.Errorf("%s: recursive wire types are not supported", typ)
	case len(fields) > maxMembers:
		return fmt.Errorf("%s: more than %d members", typ, maxMembers)
	}
	if !slices.Contains(g.paths[typ], path) {
		g.paths[typ] = append(g.paths[typ], path)
	}
	g.stack = append(g.stack, typ)
	defer func() { g.stack = g.stack[:len(g.stack)-1] }()
	for _, f := range fields {
		if f.typ != "" {
			if err := g.visit(f.typ, join(path, f.name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkTable requires the table to list exactly the reached types, once.
func (g *generator) checkTable() error {
	var errs []error
	listed := map[string]bool{}
	shorts := map[string]bool{}
	for _, w := range g.types {
		if listed[w.typ] || shorts[w.short] {
			errs = append(errs, fmt.Errorf("%s: listed twice, or its short name is taken", w.typ))
		}
		listed[w.typ], shorts[w.short] = true, true
		if _, ok := g.paths[w.typ]; !ok {
			errs = append(errs, fmt.Errorf("%s: listed but no request body holds it", w.typ))
		}
	}
	for typ := range g.paths {
		if !listed[typ] {
			errs = append(errs, fmt.Errorf("%s: a request body holds it; add it to the table in hack/strictgen", typ))
		}
	}
	return errors.Join(errs...)
}

// join is fault.Join for member names.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func (g *generator) short(typ string) string {
	for _, w := range g.types {
		if w.typ == typ {
			return w.short
		}
	}
	panic("unlisted wire type " + typ) // checkTable ran first
}

func (g *generator) method(typ string) string {
	s := g.short(typ)
	return strings.ToLower(s[:1]) + s[1:]
}

func (g *generator) emit(pkgName, pkg, out string) ([]byte, error) {
	var body bytes.Buffer
	usesFault := false
	q := pkgName + "."

	body.WriteString("\n// The members of each wire type, in field order: the index of a name is the\n")
	body.WriteString("// member's case in its decoding method.\nvar (\n")
	for _, w := range g.types {
		fmt.Fprintf(&body, "\tnames%s = []string{", w.short)
		for i, f := range g.structs[w.typ] {
			if i > 0 {
				body.WriteString(", ")
			}
			body.WriteString(strconv.Quote(f.name))
		}
		body.WriteString("}\n")
	}
	body.WriteString(")\n")

	for _, r := range g.roots {
		fmt.Fprintf(&body, "\n// %s decodes %s strictly.\n", r.fn, r.doc)
		fmt.Fprintf(&body, "func %s(body string, v *%s%s) error {\n\treturn top(body, func(d *scanner) error { return d.%s(\"\", v) })\n}\n", r.fn, q, r.typ, g.method(r.typ))
	}

	for _, w := range g.types {
		paths := g.paths[w.typ]
		where := make([]string, len(paths))
		for i, p := range paths {
			where[i] = strconv.Quote(p)
		}
		fmt.Fprintf(&body, "\n// %s decodes a %s%s at path %s.\n", g.method(w.typ), q, w.typ, strings.Join(where, ", "))
		fmt.Fprintf(&body, "func (d *scanner) %s(path string, v *%s%s) error {\n", g.method(w.typ), q, w.typ)
		fmt.Fprintf(&body, "\treturn d.object(path, names%s, func(d *scanner, f int) error {\n\t\tswitch f {\n", w.short)
		fields := g.structs[w.typ]
		for i, f := range fields {
			if i == len(fields)-1 {
				body.WriteString("\t\tdefault:\n")
			} else {
				fmt.Fprintf(&body, "\t\tcase %d:\n", i)
			}
			// A member that is an object of its own gets its path as a
			// constant where this type is decoded at one path only, so
			// that no path is built for a valid body.
			child := "fault.Join(path, " + strconv.Quote(f.name) + ")"
			if len(paths) == 1 {
				child = strconv.Quote(join(paths[0], f.name))
			} else if f.typ != "" {
				usesFault = true
			}
			switch f.kind {
			case kString:
				fmt.Fprintf(&body, "\t\t\treturn d.String(path, %q, &v.%s)\n", f.name, f.goName)
			case kStrings:
				fmt.Fprintf(&body, "\t\t\treturn d.Strings(path, %q, &v.%s)\n", f.name, f.goName)
			case kUint:
				fmt.Fprintf(&body, "\t\t\treturn d.Uint(path, %q, &v.%s)\n", f.name, f.goName)
			case kBool:
				fmt.Fprintf(&body, "\t\t\treturn d.Bool(path, %q, &v.%s)\n", f.name, f.goName)
			case kRaw:
				fmt.Fprintf(&body, "\t\t\treturn d.Raw(path, %q, &v.%s)\n", f.name, f.goName)
			case kStruct:
				fmt.Fprintf(&body, "\t\t\treturn d.%s(%s, &v.%s)\n", g.method(f.typ), child, f.goName)
			case kPointer:
				// Allocated before decoding, as encoding/json does.
				fmt.Fprintf(&body, "\t\t\tp := &%s%s{}\n\t\t\tv.%s = p\n", q, f.typ, f.goName)
				fmt.Fprintf(&body, "\t\t\treturn d.%s(%s, p)\n", g.method(f.typ), child)
			case kObjects:
				fmt.Fprintf(&body, "\t\t\treturn objects(d, %s, &v.%s, (*scanner).%s)\n", child, f.goName, g.method(f.typ))
			}
		}
		body.WriteString("\t\t}\n\t})\n}\n")
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by hack/strictgen from the wire types of %s. DO NOT EDIT.\n\npackage %s\n\nimport (\n", pkg, out)
	fmt.Fprintf(&b, "\t%q\n", pkg)
	if usesFault {
		b.WriteString("\t\"github.com/toolgate/toolgate/internal/engine/fault\"\n")
	}
	b.WriteString(")\n")
	b.Write(body.Bytes())
	return format.Source(b.Bytes())
}
