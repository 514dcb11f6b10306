package argpred_test

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// A predicate is checked against its tool's Schema when it is published,
// then applied to the validated arguments of each request: a path under
// the root matches, a sibling does not, and a path with a ".." segment is
// refused (indeterminate, which denies) rather than cleaned.
func ExampleNew() {
	reg, _ := registry.Publish(registry.Draft{ID: "files-registry", Generation: "1", Definitions: []registry.DefinitionDraft{{
		ID: "files-write-1", ToolID: "files.write", Version: "1", Lifecycle: "active", Risk: "moderate",
		SideEffect: "reversibleMutation", Reversibility: "reversible", Capabilities: []string{"data.write"},
		Title: "Write a file", Summary: "Writes one file.",
		Schema: registry.SchemaDraft{ID: "files-write-args", Version: "v1", Root: schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
			{Name: "path", Requirement: "required", Type: schema.Draft{Kind: "string"}},
		}}},
	}}})
	p, err := argpred.New(argpred.Draft{Name: "pathWithin", Tool: "files.write", Version: "1", Path: "/path", Root: "/workspace/project"}, reg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tool, _ := ident.ParseToolID("files.write")
	one, _ := ident.NewGeneration(1)
	res, _ := reg.Lookup(tool, one)
	def := res.Definition()
	for _, path := range []string{"/workspace/project/src/main.go", "/workspace/project2/x", "/workspace/project/../../etc/passwd"} {
		v, _ := jsonexact.Decode([]byte(`{"path":"`+path+`"}`), jsonexact.Limits{MaxDepth: 8})
		args, _ := def.Schema().Validate(v)
		fmt.Println(path, p.Eval(def.Digest(), args.Root()))
	}
	// Output:
	// /workspace/project/src/main.go matched
	// /workspace/project2/x notMatched
	// /workspace/project/../../etc/passwd indeterminate
}
