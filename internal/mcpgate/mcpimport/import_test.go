package mcpimport

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/mcpgate"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.yaml (review the diff by hand)")

func fixture(t *testing.T) []Tool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "tools-list.json"))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := ParseToolsList(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func options() Options {
	return Options{
		Namespace: "files", SnapshotID: "files-mcp", ToolPrefix: "files",
		Gateway: mcpgate.Config{
			Toolgate:      mcpgate.Endpoint{URL: "http://127.0.0.1:8080", TokenFile: "executor.token"},
			HostAuthority: mcpgate.ObjectRef{Namespace: "files", Name: "files-host"},
			OutcomeLog:    "outcomes.jsonl",
		},
	}
}

// The expected lists are written from the narrowing rules
// (docs/decisions.md), not from the importer's output: the closed-Schema
// conversion of every tool, whichever path imports it.
func TestTheClosedSchemaConversionNarrowsReportingEachPointerAndRefusesEveryUnsafeConstruct(t *testing.T) {
	var r Result
	for _, tl := range fixture(t) {
		_, narrow, refuse := convert(tl.Name, tl.InputSchema)
		if len(refuse) == 0 {
			r.Narrowings = append(r.Narrowings, narrow...)
		}
		r.Refusals = append(r.Refusals, refuse...)
	}
	wantNarrow := []Finding{
		{"read_file", "", NarrowClosed},
		{"read_file", "/properties/head/type", NarrowNumber},
		{"read_file", "/properties/head", NarrowSigned},
		{"read_file", "/properties/path", NarrowASCII},
		{"read_file", "/properties/path", NarrowString},
		{"transfer", "/properties/account", NarrowASCII},
		{"transfer", "/properties/account", NarrowString},
		{"transfer", "/properties/amount", NarrowUnsigned},
		{"transfer", "/properties/instant/default", NarrowDefault},
		{"transfer", "/properties/tags/maxItems", NarrowArray},
		{"transfer", "/properties/tags/items", NarrowASCII},
		{"transfer", "/properties/tags/items/maxLength", NarrowString},
		{"list_dir", "/properties/path/anyOf/0", NarrowASCII},
		{"list_dir", "/properties/path/anyOf/0", NarrowString},
		{"list_roots", "", NarrowClosed},
		{"Bad Name!", "", NarrowClosed},
	}
	if d := cmp.Diff(wantNarrow, r.Narrowings); d != "" {
		t.Errorf("narrowings (-want +got):\n%s", d)
	}
	wantRefusals := []struct{ tool, pointer, reasonHas string }{
		{"search_logs", "/properties/limit/minimum", "minimum"},
		{"search_logs", "/properties/limit/maximum", "maximum"},
		{"search_logs", "/properties/query/pattern", "pattern"},
		{"search_logs", "/properties/since/format", "format"},
		{"lookup", "/properties/id/anyOf", "differing shapes"},
		{"walk_tree", "/properties/root/properties/children/items/$ref", "cycle"},
		{"fetch_page", "/properties/maxResults", "field name"},
		{"fetch_page", "/properties/note/type", "list of types"},
		{"fetch_page", "/properties/url/not", "keyword not"},
	}
	if len(r.Refusals) != len(wantRefusals) {
		t.Errorf("got %d refusals, want %d: %v", len(r.Refusals), len(wantRefusals), r.Refusals)
	}
	for i, w := range wantRefusals {
		if i >= len(r.Refusals) {
			break
		}
		g := r.Refusals[i]
		if g.Tool != w.tool || g.Pointer != w.pointer || !strings.Contains(g.Reason, w.reasonHas) {
			t.Errorf("refusal %d = %v, want %s %s (%s…)", i, g, w.tool, w.pointer, w.reasonHas)
		}
		if strings.Contains(g.Reason, "^[a-z]+$") || strings.Contains(g.Reason, "100") {
			t.Errorf("refusal %d echoes a value of the server's schema: %v", i, g)
		}
	}
}

// A tool imports with its accepted profile, otherwise with its closed
// Schema, otherwise not at all: then every refusal of its closed Schema is
// listed (and its profile's, in Profiles), the tool name's too.
func TestAToolImportsWithItsProfileOrItsClosedSchemaOrIsRefused(t *testing.T) {
	r, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	var mapped []string
	for _, m := range r.Gateway.Tools {
		path := "closed"
		if r.Profiled(m.Name) {
			path = "profile"
		}
		mapped = append(mapped, m.Name+"="+m.ToolID+"@"+m.Version+" "+path)
	}
	want := []string{"read_file=files.read-file@1 profile", "transfer=files.transfer@1 profile", "list_dir=files.list-dir@1 profile",
		"search_logs=files.search-logs@1 profile", "lookup=files.lookup@1 profile", "walk_tree=files.walk-tree@1 profile",
		"list_roots=files.list-roots@1 profile"}
	if d := cmp.Diff(want, mapped); d != "" {
		t.Errorf("mapped tools (-want +got):\n%s", d)
	}
	var refused []string
	for _, f := range r.Refusals {
		refused = append(refused, f.Tool+" "+pointer(f.Pointer))
	}
	wantRefused := []string{"fetch_page /properties/maxResults", "fetch_page /properties/note/type", "fetch_page /properties/url/not", "Bad Name! (root)"}
	if d := cmp.Diff(wantRefused, refused); d != "" {
		t.Errorf("refusals (-want +got):\n%s", d)
	}
	for _, n := range r.Narrowings {
		if n.Tool != "list_roots" {
			t.Errorf("a narrowing of a tool not imported with its closed Schema: %v", n)
		}
	}
}

func TestTheDraftMatchesTheReviewedGoldenFiles(t *testing.T) {
	r, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	for name, render := range map[string]func() ([]byte, error){
		"toolregistry.golden.yaml": r.RegistryYAML,
		"mcp-gateway.golden.yaml":  r.GatewayYAML,
	} {
		got, err := render()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(want), string(got)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func TestSuggestionsAreTheMostRestrictiveAndNeverReadFromAnnotations(t *testing.T) {
	r, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	// read_file claims readOnlyHint: an untrusted hint changes nothing.
	d := r.Registry.Spec.Definitions[0]
	if d.ToolID != "files.read-file" || d.Risk != "critical" || d.SideEffect != "irreversibleMutation" ||
		d.Reversibility != "irreversible" || len(d.Capabilities) != 5 {
		t.Errorf("read_file's suggestions = %s %s %s %v, want the most restrictive", d.Risk, d.SideEffect, d.Reversibility, d.Capabilities)
	}
	if _, ok := r.Registry.Annotations[UnconfirmedAnnotation]; !ok {
		t.Error("a draft with suggestions must carry the unconfirmed annotation")
	}
	y, _ := r.RegistryYAML()
	for _, key := range []string{"risk: critical", "sideEffect: irreversibleMutation", "reversibility: irreversible", "capabilities:"} {
		for _, line := range strings.Split(string(y), "\n") {
			if strings.HasSuffix(strings.TrimSpace(line), key) {
				t.Errorf("line %q carries no %q", line, ConfirmMarker)
			}
		}
	}
}

func schemaOf(props string) []byte {
	return []byte(`{"type":"object","additionalProperties":false,"properties":{"a":` + props + `}}`)
}

func TestNothingIsEverWidened(t *testing.T) {
	for _, tc := range []struct {
		name, prop, pointer string
	}{
		{"a maxLength below 1024 octets refuses", `{"type":"string","maxLength":10}`, "/properties/a/maxLength"},
		{"a minLength refuses", `{"type":"string","minLength":1}`, "/properties/a/minLength"},
		{"a maxItems below 64 refuses", `{"type":"array","items":{"type":"boolean"},"maxItems":5}`, "/properties/a/maxItems"},
		{"a minItems refuses", `{"type":"array","items":{"type":"boolean"},"minItems":1}`, "/properties/a/minItems"},
		{"an array without items refuses", `{"type":"array"}`, "/properties/a/items"},
		{"uniqueItems refuses", `{"type":"array","items":{"type":"boolean"},"uniqueItems":true}`, "/properties/a/uniqueItems"},
		{"a negative minimum above the 64-bit bound refuses", `{"type":"integer","minimum":-5}`, "/properties/a/minimum"},
		{"an exclusive bound refuses", `{"type":"number","exclusiveMinimum":0}`, "/properties/a/exclusiveMinimum"},
		{"multipleOf refuses", `{"type":"integer","multipleOf":2}`, "/properties/a/multipleOf"},
		{"an enum case that is no protocol token refuses", `{"type":"string","enum":["EUR"]}`, "/properties/a/enum/0"},
		{"a null type refuses", `{"type":"null"}`, "/properties/a/type"},
		{"no type refuses", `{"description":"anything"}`, "/properties/a"},
		{"allOf refuses", `{"allOf":[{"type":"string"}]}`, "/properties/a/allOf"},
		{"a remote $ref refuses", `{"$ref":"https://example.com/s.json"}`, "/properties/a/$ref"},
		{"a required name not declared refuses", `{"type":"object","properties":{},"required":["x"]}`, "/properties/a/required/0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, refusals := convert("t", schemaOf(tc.prop))
			if len(refusals) == 0 || refusals[0].Pointer != tc.pointer {
				t.Errorf("refusals = %v, want one at %s", refusals, tc.pointer)
			}
		})
	}
}

func TestReimportOfAChangedToolIsANewVersionReportedAsAChangeOfThePublishedOne(t *testing.T) {
	first, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	// The reviewer confirmed read_file as read-only.
	reviewed := first.Registry
	reviewed.Annotations = nil
	reviewed.Spec.Definitions[0].Risk = "low"
	gw := first.Gateway
	gw.Tools = append(gw.Tools, mcpgate.ToolMapping{Name: "old_tool", ToolID: "files.old-tool", Version: "3", DefinitionDigest: "sha256:00"})
	o := options()
	o.Previous = &Previous{Registry: reviewed, Gateway: &gw}

	tools := fixture(t)
	tools[1].Description = "Moves money between any two accounts."                                                          // transfer changed
	tools[2].InputSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","not":{"const":"/"}}}}`) // list_dir now refused
	tools = append(tools, Tool{Name: "stat", Description: "Stats a file.", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`)})
	r, err := Import(tools, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Registry.Spec.SnapshotGeneration != "2" || r.Registry.Name != "files-mcp-2" {
		t.Errorf("generation = %s (%s), want 2", r.Registry.Spec.SnapshotGeneration, r.Registry.Name)
	}
	var changes []string
	for _, c := range r.Changes {
		changes = append(changes, c.Kind+" "+c.Tool+" "+c.OldVersion+"->"+c.Version)
	}
	want := []string{"unchanged read_file 1->1", "changed transfer 1->2", "refused list_dir 1->", "unchanged search_logs 1->1",
		"unchanged lookup 1->1", "unchanged walk_tree 1->1", "unchanged list_roots 1->1", "added stat ->1", "removed old_tool 3->"}
	if d := cmp.Diff(want, changes); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	if !strings.Contains(r.Changes[1].String(), "published version 1") {
		t.Errorf("a changed definition must read as a change of the published version: %s", r.Changes[1])
	}
	if d := r.Registry.Spec.Definitions[0]; d.Risk != "low" || r.unconfirmed[string(d.ID)] {
		t.Errorf("the unchanged tool's reviewed definition must carry over confirmed, got risk %s", d.Risk)
	}
	if d := r.Registry.Spec.Definitions[1]; d.ID != "files-transfer-2" || d.Version != "2" || !r.unconfirmed[string(d.ID)] {
		t.Errorf("the changed tool must be a new, unconfirmed version: %s %s", d.ID, d.Version)
	}
}

func TestAToolListedTwiceIsRefusedAndABadPrefixStopsTheImport(t *testing.T) {
	tools := fixture(t)[:1]
	tools = append(tools, tools[0])
	r, err := Import(tools, options())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Gateway.Tools) != 1 || len(r.Refusals) != 1 || r.Refusals[0].Reason != "the server lists this tool name twice" {
		t.Errorf("mapped %d, refusals %v; want the second listing refused", len(r.Gateway.Tools), r.Refusals)
	}
	for _, prefix := range []string{"", "Files", "files..x", "-files"} {
		o := options()
		o.ToolPrefix = prefix
		if _, err := Import(fixture(t), o); err == nil {
			t.Errorf("prefix %q was accepted", prefix)
		}
	}
}

func TestADefaultBesideARefIsReportedToo(t *testing.T) {
	raw := []byte(`{"type":"object","additionalProperties":false,"properties":{"a":{"$ref":"#/$defs/b","default":true}},"$defs":{"b":{"type":"boolean"}}}`)
	_, narrow, refuse := convert("t", raw)
	if d := cmp.Diff([]Finding{{"t", "/properties/a/default", NarrowDefault}}, narrow); d != "" || len(refuse) != 0 {
		t.Errorf("narrowings (-want +got):\n%s\nrefusals %v", d, refuse)
	}
}
