package argpred_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

func str() schema.Draft   { return schema.Draft{Kind: "string"} }
func uint_() schema.Draft { return schema.Draft{Kind: "unsignedInteger"} }

func field(name, req string, t schema.Draft) schema.FieldDraft {
	return schema.FieldDraft{Name: name, Requirement: req, Type: t}
}

func object(fs ...schema.FieldDraft) schema.Draft {
	return schema.Draft{Kind: "object", Fields: append([]schema.FieldDraft{}, fs...)}
}

func tool(id, toolID string, root schema.Draft) registry.DefinitionDraft {
	return registry.DefinitionDraft{
		ID: id, ToolID: toolID, Version: "1", Lifecycle: "active", Risk: "moderate",
		SideEffect: "reversibleMutation", Reversibility: "reversible", Capabilities: []string{"data.write"},
		Title: "A tool", Summary: "A tool used by the argument predicate tests.",
		Schema: registry.SchemaDraft{ID: id + "-schema", Version: "v1", Root: root},
	}
}

// tools is the registry every test reads: one tool per family of
// predicate.
func tools(t testing.TB) *registry.Snapshot {
	t.Helper()
	s, err := registry.Publish(registry.Draft{ID: "argpred-tests", Generation: "1", Definitions: []registry.DefinitionDraft{
		tool("files-write", "files.write", object(
			field("path", "required", str()),
			field("content", "required", object(field("length", "required", uint_()), field("sha256", "required", str()))),
			field("mode", "optional", schema.Draft{Kind: "enumeration", Cases: []string{"append", "overwrite"}}),
			field("note", "optional", str()),
		)),
		tool("mail-send", "mail.send", object(
			field("to", "required", schema.Draft{Kind: "array", Items: &schema.Draft{Kind: "string"}}),
			field("cc", "optional", schema.Draft{Kind: "array", Items: &schema.Draft{Kind: "string"}}),
			field("parts", "required", schema.Draft{Kind: "array", Items: &schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
				field("label", "optional", str()),
			}}}),
		)),
		tool("payments-transfer", "payments.transfer", object(
			field("amount", "required", uint_()),
			field("delta", "required", schema.Draft{Kind: "signedInteger"}),
			field("account", "required", schema.Draft{Kind: "resourceID"}),
			field("flag", "required", schema.Draft{Kind: "bool"}),
		)),
		tool("http-fetch", "http.fetch", object(field("url", "required", str()))),
	}})
	if err != nil {
		t.Fatalf("registry.Publish: %v", err)
	}
	return s
}

// eval publishes d against tools and applies it to the arguments JSON of
// a request for d's tool.
func eval(t *testing.T, reg *registry.Snapshot, d argpred.Draft, args string) argpred.Result {
	t.Helper()
	p, err := argpred.New(d, reg, nil)
	if err != nil {
		t.Fatalf("New(%+v): %v", d, err)
	}
	tid, _ := ident.ParseToolID(d.Tool)
	ver, _ := ident.ParseGeneration(d.Version)
	res, err := reg.Lookup(tid, ver)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonexact.Decode([]byte(args), jsonexact.Limits{MaxDepth: 8})
	if err != nil {
		t.Fatalf("arguments %s: %v", args, err)
	}
	a, err := res.Definition().Schema().Validate(v)
	if err != nil {
		t.Fatalf("arguments %s do not validate: %v", args, err)
	}
	return p.Eval(res.Definition().Digest(), a.Root())
}
