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

// dirOf is a set's committed directory, from this package's directory.
func dirOf(st set) string { return filepath.Join("..", "..", filepath.FromSlash(st.dir)) }

const (
	readmeBegin = "<!-- corpus-table: begin (go test ./hack/mcpcorpus -run TestCorpus -update) -->\n"
	readmeEnd   = "<!-- corpus-table: end -->\n"
)

// profileBar is the share of tools whose proposed argument profile New
// accepts, on the corpus and on the holdout alike.
const profileBar = 0.95

// Every committed capture parses as `toolgate registry import --from-file`
// and the SDK client read it, and every tool is imported or refused with
// a JSON pointer and a reason, and has an argument profile or a refusal
// with a pointer and a reason (importCapture checks them).
func TestCorpusEveryToolIsImportedOrRefusedWithAReason(t *testing.T) {
	for _, st := range sets {
		t.Run(st.name, func(t *testing.T) {
			reps, err := report(dirOf(st), st.servers)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, s := range st.servers {
				names[s.name] = true
			}
			for _, s := range reps {
				if !names[s.Info.Server] {
					t.Errorf("%s.json: no such server in hack/mcpcorpus's %s list: it cannot be re-captured", s.Info.Server, st.name)
				}
				delete(names, s.Info.Server)
				raw, err := os.ReadFile(filepath.Join(dirOf(st), s.Info.Server+".json"))
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
				t.Errorf("server %s has no capture: go run ./hack/mcpcorpus -set %s -only %s", n, st.name, n)
			}
			t.Log("\n" + table(reps))
		})
	}
}

// At least 95 % of the tools get an argument profile New accepts, on the
// corpus and on the holdout (servers the proposals were not tuned to).
func TestCorpusAtLeast95PercentOfToolsGetAnArgumentProfile(t *testing.T) {
	for _, st := range sets {
		t.Run(st.name, func(t *testing.T) {
			reps, _ := report(dirOf(st), st.servers) // errors: the test above
			tools, profiled := 0, 0
			for _, s := range reps {
				tools, profiled = tools+len(s.Tools), profiled+s.Profiled
			}
			if tools == 0 || float64(profiled) < profileBar*float64(tools) {
				t.Errorf("%s: %d of %d tools have an argument profile, under %.0f %%", st.name, profiled, tools, 100*profileBar)
			}
		})
	}
}

// The report of the importer over each set is the reviewed golden file,
// and the README's table is the report's: an importer change shows as a
// diff of both.
func TestCorpusReportMatchesTheGoldenFileAndTheREADME(t *testing.T) {
	for _, st := range sets {
		t.Run(st.name, func(t *testing.T) {
			dir := dirOf(st)
			reps, _ := report(dir, st.servers) // errors: the test above
			got := golden(reps, st.dir)
			goldenPath := filepath.Join(dir, st.name+"-report.golden")
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
		})
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
