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

	"github.com/toolgate/toolgate/internal/mcpgate/mcpimport"
)

// registryBind rewrites, in place, the docRef and schema.root of every
// ToolRegistry definition that carries an argument profile (arguments) to
// the profile's binding (docs/arguments.md, Binding): after a reviewer
// changed a choice, the definition is bound to the changed profile. The
// file's comments and layout stay; nothing else changes. A profile that
// does not build leaves every file unchanged, each one named.
func registryBind(args []string, _ io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return usageError{"registry bind takes the ToolRegistry files to rewrite"}
	}
	type rewrite struct {
		path string
		file *ast.File
	}
	var (
		rewrites []rewrite
		errs     []string
		rebound  []string
	)
	for _, path := range args {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseBytes(raw, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("%s: not YAML", path)
		}
		changed := false
		for di, doc := range f.Docs {
			var head struct {
				Kind string `yaml:"kind"`
				Spec struct {
					Definitions []struct {
						ID        string         `yaml:"id"`
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
				at := fmt.Sprintf("%s: document %d: spec.definitions[%d]", path, di, i)
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
				replace := map[string]string{}
				if d.DocRef != docRef {
					replace["docRef"] = docRef
				}
				var want any
				_ = json.Unmarshal(root, &want)
				had, _ := json.Marshal(d.Schema.Root)
				if norm, _ := json.Marshal(want); string(had) != string(norm) {
					// JSON is YAML's flow style: it replaces the node
					// whatever the indentation around it.
					replace["schema.root"] = string(root)
				}
				for field, value := range replace {
					p, err := goccy.PathString(fmt.Sprintf("$.spec.definitions[%d].%s", i, field))
					if err == nil {
						err = p.ReplaceWithReader(&ast.File{Docs: []*ast.DocumentNode{f.Docs[di]}}, strings.NewReader(value))
					}
					if err != nil {
						errs = append(errs, at+"."+field+": missing (write one; bind replaces it)")
					}
				}
				if len(replace) > 0 {
					rebound = append(rebound, fmt.Sprintf("rebound %s: %s -> %s", d.ID, orNone(d.DocRef), docRef))
					changed = true
				}
			}
		}
		if changed {
			rewrites = append(rewrites, rewrite{path, f})
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("nothing written: %s", strings.Join(errs, "; "))
	}
	for _, r := range rewrites {
		if err := os.WriteFile(r.path, []byte(strings.TrimRight(r.file.String(), "\n")+"\n"), 0o644); err != nil { //nolint:gosec // the reviewer's own draft
			return err
		}
	}
	for _, l := range rebound {
		fmt.Fprintln(out, l)
	}
	fmt.Fprintf(out, "bound %s\n", plural(len(rewrites), "file", "files"))
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
