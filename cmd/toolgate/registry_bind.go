package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	goccy "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/toolgate/toolgate/internal/mcpgate"
	"github.com/toolgate/toolgate/internal/mcpgate/mcpimport"
)

// registryBind rewrites, in place, the docRef and schema.root of every
// ToolRegistry definition that carries an argument profile (arguments) to
// the profile's binding (docs/arguments.md, Binding): after a reviewer
// changed a choice, the definition is bound to the changed profile. An
// MCPGateway mapping among the files gets the same profile for each tool
// of the same toolID and version. The files' comments and layout stay;
// nothing else changes. A profile that does not build leaves every file
// unchanged, each one named.
func registryBind(args []string, _ io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return usageError{"registry bind takes the ToolRegistry (and MCPGateway) files to rewrite"}
	}
	type parsed struct {
		path    string
		file    *ast.File
		changed bool
	}
	var (
		files   []*parsed
		errs    []string
		rebound []string
		// profiles are the bound profiles by toolID@version, as JSON.
		profiles = map[string][]byte{}
	)
	replace := func(f *ast.File, di int, at, path, value string) {
		p, err := goccy.PathString(path)
		if err == nil {
			err = p.ReplaceWithReader(&ast.File{Docs: []*ast.DocumentNode{f.Docs[di]}}, strings.NewReader(value))
		}
		if err != nil {
			errs = append(errs, at+": missing (write one; bind replaces it)")
		}
	}
	for _, path := range args {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseBytes(raw, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("%s: not YAML", path)
		}
		files = append(files, &parsed{path: path, file: f})
	}
	for _, pf := range files {
		for di, doc := range pf.file.Docs {
			var head struct {
				Kind string `yaml:"kind"`
				Spec struct {
					Definitions []struct {
						ID        string         `yaml:"id"`
						ToolID    string         `yaml:"toolID"`
						Version   string         `yaml:"version"`
						DocRef    string         `yaml:"docRef"`
						Arguments map[string]any `yaml:"arguments"`
						Schema    struct {
							Root any `yaml:"root"`
						} `yaml:"schema"`
					} `yaml:"definitions"`
				} `yaml:"spec"`
			}
			if doc.Body == nil || goccy.NodeToValue(doc.Body, &head) != nil || head.Kind != "ToolRegistry" {
				continue
			}
			for i, d := range head.Spec.Definitions {
				if d.Arguments == nil {
					continue
				}
				at := fmt.Sprintf("%s: document %d: spec.definitions[%d]", pf.path, di, i)
				doc, err := json.Marshal(d.Arguments)
				if err != nil {
					errs = append(errs, at+".arguments: not a profile document")
					continue
				}
				docRef, root, err := mcpimport.BindingOf(doc)
				if err != nil {
					errs = append(errs, at+".arguments: "+err.Error())
					continue
				}
				profiles[d.ToolID+"@"+d.Version] = doc
				n := len(errs)
				if d.DocRef != docRef {
					replace(pf.file, di, at+".docRef", fmt.Sprintf("$.spec.definitions[%d].docRef", i), docRef)
				}
				if !sameJSON(d.Schema.Root, root) {
					// JSON is YAML's flow style: it replaces the node
					// whatever the indentation around it.
					replace(pf.file, di, at+".schema.root", fmt.Sprintf("$.spec.definitions[%d].schema.root", i), string(root))
				}
				if d.DocRef != docRef || !sameJSON(d.Schema.Root, root) {
					if len(errs) == n {
						rebound = append(rebound, fmt.Sprintf("rebound %s: %s -> %s", d.ID, orNone(d.DocRef), docRef))
					}
					pf.changed = true
				}
			}
		}
	}
	for _, pf := range files {
		for di, doc := range pf.file.Docs {
			var head struct {
				Kind  string `yaml:"kind"`
				Tools []struct {
					Name      string `yaml:"name"`
					ToolID    string `yaml:"toolID"`
					Version   string `yaml:"version"`
					Arguments any    `yaml:"arguments"`
				} `yaml:"tools"`
			}
			if doc.Body == nil || goccy.NodeToValue(doc.Body, &head) != nil || head.Kind != mcpgate.ConfigKind {
				continue
			}
			for i, t := range head.Tools {
				prof, ok := profiles[t.ToolID+"@"+t.Version]
				if !ok || sameJSON(t.Arguments, prof) {
					continue
				}
				at := fmt.Sprintf("%s: document %d: tools[%d].arguments", pf.path, di, i)
				n := len(errs)
				replace(pf.file, di, at, fmt.Sprintf("$.tools[%d].arguments", i), string(prof))
				if len(errs) == n {
					rebound = append(rebound, fmt.Sprintf("copied the profile of %s@%s to the mapping of %s", t.ToolID, t.Version, t.Name))
				}
				pf.changed = true
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("nothing written: %s", strings.Join(errs, "; "))
	}
	written := 0
	for _, pf := range files {
		if !pf.changed {
			continue
		}
		if err := os.WriteFile(pf.path, []byte(strings.TrimRight(pf.file.String(), "\n")+"\n"), 0o644); err != nil { //nolint:gosec // the reviewer's own draft
			return err
		}
		written++
	}
	for _, l := range rebound {
		fmt.Fprintln(out, l)
	}
	fmt.Fprintf(out, "bound %s\n", plural(written, "file", "files"))
	return nil
}

// sameJSON reports whether a decoded YAML value and a JSON text are the
// same JSON value (member order aside).
func sameJSON(v any, text []byte) bool {
	var want any
	if json.Unmarshal(text, &want) != nil {
		return false
	}
	a, errA := json.Marshal(v)
	b, errB := json.Marshal(want)
	return errA == nil && errB == nil && string(a) == string(b)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
