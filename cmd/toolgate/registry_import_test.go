package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
// unconfirmed annotation.
func confirm(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "  annotations:\n    import.toolgate.dev/unconfirmed: \"true\"\n", "", 1)
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
	if r.code != 1 || !strings.Contains(r.stderr, "5 tools refused") {
		t.Fatalf("import of a fixture with refused tools: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"drafted files-mcp generation 1: 3 tools; 10 refusals",
		"refused  search_logs /properties/query/pattern:",
		"refused  walk_tree /properties/root/properties/children/items/$ref: $ref cycle",
		"narrowed read_file /properties/head/type: number read as integer",
		"narrowed read_file /properties/path: string narrowed to printable ASCII (0x20–0x7E)",
		"proposed argument profiles (mcp-arguments.yaml): 7 of 8 tools",
		"chose    read_file /properties/path: free text: bound as its SHA-256 and length",
		"chose    transfer /properties/tags: array with uniqueItems or more than 64 elements: json of kind array",
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
	if r := runCLI("", "validate", "-f", reg); r.code != 1 || !strings.Contains(r.stdout, "an unconfirmed import draft") {
		t.Errorf("validate -f of an unconfirmed draft: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := runCLI("", "registry", "validate", reg); r.code != 1 || !strings.Contains(r.stderr, "an unconfirmed import draft") {
		t.Errorf("registry validate of an unconfirmed draft: exit %d, stderr %q", r.code, r.stderr)
	}
	confirm(t, reg)
	if r := runCLI("", "validate", "-f", reg); r.code != 0 || r.stdout != "1 object valid\n" {
		t.Errorf("validate -f of the confirmed draft: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("", "registry", "validate", reg); r.code != 0 || !strings.Contains(r.stdout, "registry files-mcp generation 1: valid, 3 definitions") {
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
	if len(cfg.Tools) != 3 {
		t.Fatalf("mapping has %d tools, want 3", len(cfg.Tools))
	}
	for _, m := range cfg.Tools {
		if m.DefinitionDigest == "" || m.DefinitionDigest != served[m.Name] {
			t.Errorf("%s: mapping digest %s, the server's definition %s", m.Name, m.DefinitionDigest, served[m.Name])
		}
	}

	// The profile file: one document per accepted proposal, judgments
	// marked. The reviewer lets policy compare transfer's account.
	profiles := filepath.Join(dir, "mcp-arguments.yaml")
	pb, err := os.ReadFile(profiles)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(pb), "\n---\n"); n != 7 || !strings.Contains(string(pb), "choice: text  # toolgate: confirm") {
		t.Errorf("%s: %d separators, want 7, with judgments marked:\n%s", profiles, n, pb)
	}
	reviewedAccount := "  - field: account\n    json: account\n    value:\n      choice: string\n"
	edit := strings.Replace(string(pb), "  - field: account\n    json: account\n    value:\n      bind: digest  # toolgate: confirm\n      choice: text  # toolgate: confirm\n", reviewedAccount, 1)
	if edit == string(pb) {
		t.Fatalf("transfer's account is not proposed as text:\n%s", pb)
	}
	if err := os.WriteFile(profiles, []byte(edit), 0o600); err != nil {
		t.Fatal(err)
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
		"drafted files-mcp generation 2: 3 tools",
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
