package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite corpus-report.golden and the README's table from the committed captures (review the diff)")

// dir is the committed corpus, from this package's directory.
var dir = filepath.Join("..", "..", filepath.FromSlash(corpusDir))

const (
	readmeBegin = "<!-- corpus-table: begin (go test ./hack/mcpcorpus -run TestCorpus -update) -->\n"
	readmeEnd   = "<!-- corpus-table: end -->\n"
)

// Every committed capture parses as `toolgate registry import --from-file`
// and the SDK client read it, and every tool is imported or refused with
// a JSON pointer and a reason (importCapture checks both).
func TestCorpusEveryToolIsImportedOrRefusedWithAReason(t *testing.T) {
	reps, err := report(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range servers {
		names[s.name] = true
	}
	for _, s := range reps {
		if !names[s.Info.Server] {
			t.Errorf("%s.json: no such server in hack/mcpcorpus's list: it cannot be re-captured", s.Info.Server)
		}
		delete(names, s.Info.Server)
		raw, err := os.ReadFile(filepath.Join(dir, s.Info.Server+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Result mcp.ListToolsResult `json:"result"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Errorf("%s: the SDK's ListToolsResult does not read the capture: %v", s.Info.Server, err)
		} else if len(c.Result.Tools) != len(s.Tools) {
			t.Errorf("%s: the SDK reads %d tools, the importer %d", s.Info.Server, len(c.Result.Tools), len(s.Tools))
		}
	}
	for n := range names {
		t.Errorf("server %s has no capture: go run ./hack/mcpcorpus -only %s", n, n)
	}
	t.Log("\n" + table(reps))
}

// The report of the importer over the corpus is the reviewed golden file,
// and the README's table is the report's: an importer change shows as a
// diff of both.
func TestCorpusReportMatchesTheGoldenFileAndTheREADME(t *testing.T) {
	reps, _ := report(dir) // errors: the test above
	got := golden(reps)
	goldenPath := filepath.Join(dir, "corpus-report.golden")
	readmePath := filepath.Join(dir, "README.md")
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(readme), readmeBegin)
	_, after, ok2 := strings.Cut(rest, readmeEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no table between %q and %q", readmePath, readmeBegin, readmeEnd)
	}
	wantReadme := before + readmeBegin + table(reps) + readmeEnd + after
	if *update {
		if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(readmePath, []byte(wantReadme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s is stale (-want +got); review, then -update:\n%s", goldenPath, d)
	}
	if d := cmp.Diff(string(readme), wantReadme); d != "" && !*update {
		t.Errorf("%s's table is stale (-want +got); -update:\n%s", readmePath, d)
	}
}

// A capture holds every page of tools/list in the server's order, each
// tool's JSON as sent (member order, number literals), read through the
// SDK client: a real SDK server paginating two tools a page.
func TestCaptureRecordsEveryPageAsSent(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "v1"}, &mcp.ServerOptions{PageSize: 2})
	names := []string{"a", "b", "c", "d", "e"}
	for _, n := range names {
		s.AddTool(&mcp.Tool{Name: n, Description: "<tool> " + n,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"z":{"type":"integer","maximum":9007199254740993},"a":{"type":"string"}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()
	pages, err := listTools(ct)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 {
		t.Fatalf("recorded %d pages, want 3", len(pages))
	}
	result, err := mergePages(pages)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "paged.json")
	if err := write(path, &Capture{Capture: CaptureInfo{Server: "paged", Package: "p", Version: "v1", Date: "d", Command: "c", Pages: 3}, Result: result}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tool := range got.Result.Tools {
		order = append(order, tool.Name)
	}
	if d := cmp.Diff(names, order); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	for _, want := range []string{`"maximum": 9007199254740993`, `"description": "<tool> a"`, "\n        \"inputSchema\": {\n"} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("the capture lacks %q as sent:\n%s", want, raw)
		}
	}
	if zi, ai := bytes.Index(raw, []byte(`"z"`)), bytes.Index(raw, []byte(`"a": {`)); zi < 0 || ai < zi {
		t.Errorf("members reordered: z at %d, a at %d", zi, ai)
	}
}

// Re-capturing a server whose answer, command and version are unchanged
// keeps the committed date; any change takes the new one.
func TestRecapturingAnUnchangedServerKeepsItsDate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	capture := func(date, result string) string {
		t.Helper()
		c := &Capture{Capture: CaptureInfo{Server: "s", Package: "p", Version: "1", Date: date, Command: "c", Pages: 1}, Result: json.RawMessage(result)}
		if err := write(path, c); err != nil {
			t.Fatal(err)
		}
		var got Capture
		raw, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(raw, &got) != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		return got.Capture.Date
	}
	for _, step := range []struct{ date, result, want string }{
		{"2026-01-01", `{"tools":[{"name":"a"}]}`, "2026-01-01"},
		{"2026-02-02", `{"tools": [ {"name": "a"} ]}`, "2026-01-01"},
		{"2026-03-03", `{"tools":[{"name":"b"}]}`, "2026-03-03"},
	} {
		if got := capture(step.date, step.result); got != step.want {
			t.Errorf("captured %s on %s: date %s, want %s", step.result, step.date, got, step.want)
		}
	}
}
