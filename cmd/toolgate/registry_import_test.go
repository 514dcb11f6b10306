package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/mcpgate"
)

const importFixture = "../../internal/mcpgate/mcpimport/testdata/tools-list.json"

func importInto(t *testing.T, from, out string, extra ...string) result {
	t.Helper()
	args := append([]string{"registry", "import", "--from-file", from, "--tool-prefix", "files", "--out", out,
		"--namespace", "files", "--snapshot-id", "files-mcp", "--host-authority", "files/files-host"}, extra...)
	return runCLI("", args...)
}

// confirm is the reviewer: it accepts the suggestions and removes the
// unconfirmed annotation, which lists them one a line.
func confirm(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`(?m)^  annotations:\n    import\.toolgate\.dev/unconfirmed: \|\n(      .*\n)+`).ReplaceAllString(string(b), "")
	if s == string(b) {
		t.Fatal("the draft carries no unconfirmed annotation")
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAnImportedDraftIsRefusedUntilConfirmedThenPublishesAndTheMappingLoads:
// the whole review path of `registry import`.
func TestAnImportedDraftIsRefusedUntilConfirmedThenPublishesAndTheMappingLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := importInto(t, importFixture, dir)
	if r.code != 1 || !strings.Contains(r.stderr, "2 tools refused") {
		t.Fatalf("import of a fixture with refused tools: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"drafted files-mcp generation 1: 7 tools (7 with an argument profile); 4 refusals; 43 choices to confirm",
		"refused  fetch_page /properties/url/not: keyword not",
		"refused  Bad Name! (root): the tool name has no protocol tool identifier segment",
		"chose    list_roots (root): no declared arguments: the trivial profile",
		"chose    read_file /properties/path: free text: bound as its SHA-256 and length",
		"chose    transfer /properties/tags: array with uniqueItems or more than 64 elements: json of kind array, bound as a digest",
		"chose    walk_tree /properties/root/properties/children/items/$ref: $ref cycle",
		"no profile fetch_page /properties/url/not: keyword not is not understood",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "^[a-z]+$") {
		t.Error("the report echoes a value of the server's schema")
	}
	reg := filepath.Join(dir, "toolregistry.yaml")
	// Every suggestion at once, each at its path.
	if r := runCLI("", "validate", "-f", reg); r.code != 1 || strings.Count(r.stdout, "an unconfirmed import draft") != 43 ||
		!strings.Contains(r.stdout, "spec.definitions[1].arguments/properties/tags: malformed: an unconfirmed import draft") ||
		!strings.Contains(r.stdout, "spec.definitions[0].risk: malformed: an unconfirmed import draft") {
		t.Errorf("validate -f of an unconfirmed draft: exit %d, %d lines", r.code, strings.Count(r.stdout, "\n"))
	}
	if r := runCLI("", "registry", "validate", reg); r.code != 1 || !strings.Contains(r.stderr, "an unconfirmed import draft") {
		t.Errorf("registry validate of an unconfirmed draft: exit %d, stderr %q", r.code, r.stderr)
	}
	confirm(t, reg)
	if r := runCLI("", "validate", "-f", reg); r.code != 0 || r.stdout != "1 object valid\n" {
		t.Errorf("validate -f of the confirmed draft: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("", "registry", "validate", reg); r.code != 0 || !strings.Contains(r.stdout, "registry files-mcp generation 1: valid, 7 definitions") {
		t.Errorf("registry validate of the confirmed draft: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// The mapping loads in the gateway's loader, and each digest is the
	// digest of the server's own definition, read here from the fixture.
	cfg, err := mcpgate.LoadConfig(filepath.Join(dir, "mcp-gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(importFixture)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	served := map[string]string{}
	for _, tl := range list.Result.Tools {
		d, err := mcpgate.Definition{Description: tl.Description, InputSchema: tl.InputSchema}.Digest()
		if err == nil {
			served[tl.Name] = d
		}
	}
	if len(cfg.Tools) != 7 {
		t.Fatalf("mapping has %d tools, want 7", len(cfg.Tools))
	}
	for _, m := range cfg.Tools {
		if m.DefinitionDigest == "" || m.DefinitionDigest != served[m.Name] {
			t.Errorf("%s: mapping digest %s, the server's definition %s", m.Name, m.DefinitionDigest, served[m.Name])
		}
	}

	// The reviewer lets policy compare transfer's account and rebinds the
	// definition to the changed profile: validate -f refuses the stale
	// binding before, accepts it after.
	db, err := os.ReadFile(reg)
	if err != nil {
		t.Fatal(err)
	}
	edit := strings.Replace(string(db), "        - field: account\n          json: account\n          value:\n            bind: digest  # toolgate: confirm\n            choice: text  # toolgate: confirm\n",
		"        - field: account\n          json: account\n          value:\n            choice: string\n", 1)
	if edit == string(db) {
		t.Fatalf("transfer's account is not proposed as text:\n%s", db)
	}
	if err := os.WriteFile(reg, []byte(edit), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCLI("", "validate", "-f", reg); r.code != 1 || !strings.Contains(r.stdout, "spec.definitions[1].") {
		t.Errorf("validate -f of an edited profile before bind: exit %d, stdout %q", r.code, r.stdout)
	}
	mapping := filepath.Join(dir, "mcp-gateway.yaml")
	if r := runCLI("", "registry", "bind", reg, mapping); r.code != 0 || !strings.Contains(r.stdout, "rebound files-transfer-1: argprofile.") ||
		!strings.Contains(r.stdout, "copied the profile of files.transfer@1 to the mapping of transfer\n") || !strings.HasSuffix(r.stdout, "bound 2 files\n") {
		t.Errorf("registry bind: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("", "validate", "-f", reg); r.code != 0 {
		t.Errorf("validate -f of the rebound draft: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if cfg, err := mcpgate.LoadConfig(mapping); err != nil || !strings.Contains(string(cfg.Tools[1].Arguments), `"choice":"string"`) {
		t.Errorf("the mapping does not load with transfer's edited profile (%v)", err)
	}
	if r := runCLI("", "registry", "bind", reg, mapping); r.code != 0 || r.stdout != "bound 0 files\n" {
		t.Errorf("registry bind of a bound draft changes nothing: exit %d, stdout %q", r.code, r.stdout)
	}

	// Re-import after the server changed transfer's description.
	changed := filepath.Join(t.TempDir(), "tools-list.json")
	edited := strings.Replace(string(raw), "Moves money between two accounts.", "Moves money between any accounts.", 1)
	if err := os.WriteFile(changed, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	next := t.TempDir()
	r = importInto(t, changed, next, "--previous", dir)
	for _, want := range []string{
		"drafted files-mcp generation 2: 7 tools",
		"unchanged  read_file: files.read-file version 1",
		"changed    transfer: the definition of published version 1 of files.transfer changed",
		"imported as version 2",
		"profile    transfer: changed (sha256:",
		") at /account\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("re-import stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(next, "toolregistry.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "name: files-mcp-2") || !strings.Contains(string(b), "id: files-transfer-2") {
		t.Errorf("the re-import is not generation 2 with transfer version 2:\n%s", b)
	}
}

// registry bind rebinds a one-line placeholder root too, and a profile
// that does not build writes nothing, naming its definition.
func TestRegistryBindRebindsAnyLayoutAndWritesNothingOnABadProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := func(choice string) string {
		return "apiVersion: stk.toolgate.dev/v1alpha1\nkind: ToolRegistry\nmetadata:\n  name: t-1\n  namespace: ns\nspec:\n  snapshotID: t\n  snapshotGeneration: \"1\"\n  definitions:\n" +
			"  # a comment bind keeps\n  - arguments: {profile: toolgate.mcp-arguments/1, tool: echo, arguments: {choice: object, members: [{json: message, field: message, required: true, value: {choice: " + choice + "}}]}}\n" +
			"    capabilities: [data.read]\n    docRef: argprofile.unbound\n    id: t-echo-1\n    lifecycle: active\n    reversibility: notApplicable\n    risk: low\n" +
			"    schema: {id: t-echo-1-args, root: {kind: object}, version: v1}\n    sideEffect: readOnly\n    summary: Echoes.\n    title: echo\n    toolID: t.echo\n    version: \"1\"\n"
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(doc("string")), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCLI("", "validate", "-f", good); r.code != 1 {
		t.Errorf("validate -f of an unbound definition: exit %d", r.code)
	}
	if r := runCLI("", "registry", "bind", good); r.code != 0 || !strings.Contains(r.stdout, "rebound t-echo-1: argprofile.unbound -> argprofile.") {
		t.Errorf("registry bind: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(good); !strings.Contains(string(b), "# a comment bind keeps") {
		t.Errorf("bind dropped the comment:\n%s", b)
	}
	if r := runCLI("", "validate", "-f", good); r.code != 0 {
		t.Errorf("validate -f of the bound definition: exit %d, stdout %q", r.code, r.stdout)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(doc("strng")), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCLI("", "registry", "bind", good, bad); r.code == 0 || !strings.Contains(r.stderr, "nothing written") || !strings.Contains(r.stderr, "spec.definitions[0].arguments") {
		t.Errorf("registry bind of a bad profile: exit %d, stderr %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(bad); string(b) != doc("strng") {
		t.Error("a bad profile's file was rewritten")
	}
}
