package mcpimport

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/argprofile"
)

// A schema of the kind real servers publish gets a profile whose every
// judgment is a stated reason, and which New accepts; the call the server
// would take derives.
func TestProposeProfileMapsARealisticSchema(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{
	  "entityType":{"type":"string","enum":["Person","In Progress"]},
	  "query":{"type":"string","description":"free text"},
	  "region":{"type":"string","maxLength":32,"x-mcp-header":"Region"},
	  "max_results":{"type":"integer","minimum":0,"maximum":100,"default":10},
	  "page":{"type":"integer","exclusiveMinimum":0},
	  "price":{"type":"number","multipleOf":0.01},
	  "ratio":{"type":"number"},
	  "since":{"type":["string","null"],"format":"date"},
	  "filter":{"type":"object","additionalProperties":true},
	  "ids":{"type":"array","items":{"type":"string","format":"uuid"}},
	  "target":{"anyOf":[{"type":"string"},{"type":"integer"}]},
	  "shape":{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}
	},"required":["entityType","query"]}`
	pr := ProposeProfile("searchEntities", []byte(schema))
	if len(pr.Refused) > 0 {
		t.Fatalf("refused: %v", pr.Refused)
	}
	p, err := argprofile.New(pr.Draft)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Derive([]byte(`{"entityType":"In Progress","query":"Zoë\n","region":"eu-west1","max_results":10,` +
		`"price":12.34,"ratio":0.5,"since":null,"filter":{"x":[1]},"ids":["123e4567-e89b-12d3-a456-426614174000"],` +
		`"target":7,"shape":{"b":"y"}}`))
	if err != nil {
		t.Fatalf("Derive: %v", err)
	}
	for _, want := range []string{`"entity-type":"in-progress"`, `"max-results":10`, `"price":1234`, `"ratio":50`,
		`"since":{"tag":"none"}`, `"target":{"integer":7,"tag":"integer"}`, `"region":"eu-west1"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("derivation %s lacks %s", out, want)
		}
	}
	if _, err := p.Derive([]byte(`{"entityType":"Person","query":"q","page":0}`)); !errors.Is(err, &argprofile.Error{Code: argprofile.CodeOutOfRange}) {
		t.Errorf("exclusiveMinimum 0 let 0 through: %v", err)
	}
	if _, err := p.Derive([]byte(`{"entityType":"Person","query":"q","page":1}`)); err != nil {
		t.Errorf("exclusiveMinimum 0 refused 1: %v", err)
	}
	var got []string
	for _, r := range pr.Reasons {
		got = append(got, r.Pointer+" "+r.Reason)
	}
	for _, want := range []string{
		"/properties/entityType " + ProposeRename,
		"/properties/entityType/enum " + ProposeCaseRename,
		"/properties/query " + ProposeDigest,
		"/properties/region " + ProposeEscaped,
		"/properties/region/x-mcp-header " + ProposeHeader,
		"/properties/max_results/default " + ProposeDefaultSkip,
		"/properties/max_results/minimum " + ProposeUnsigned,
		"/properties/price/multipleOf " + ProposeMultipleOf,
		"/properties/page/exclusiveMinimum " + ProposeExclusive,
		"/properties/ratio " + ProposeDecimal,
		"/properties/since/type " + ProposeNullable,
		"/properties/filter " + ProposeJSONOpen,
		"/properties/ids " + ProposeArrayBound,
		"/properties/target/anyOf " + ProposeUnion,
		"/properties/shape/oneOf " + ProposeJSONUnion,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no reason %q; got %q", want, got)
		}
	}
}

// What the profile cannot hold is refused, never dropped.
func TestProposeProfileRefusesWhatItCannotHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, schema, ptr string }{
		{"pattern outside the agreed dialect", `{"type":"object","properties":{"a":{"type":"string","pattern":"\\s"}}}`, ""},
		{"multipleOf not a power of ten", `{"type":"object","properties":{"a":{"type":"number","multipleOf":3}}}`, "/properties/a/multipleOf"},
		{"not", `{"type":"object","properties":{"a":{"type":"string","not":{}}}}`, "/properties/a/not"},
		{"colliding names", `{"type":"object","properties":{"maxResults":{"type":"string"},"max_results":{"type":"string"}}}`, "/properties/max_results"},
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"https://x/y"}}}`, "/properties/a/$ref"},
	} {
		pr := ProposeProfile("t", []byte(tc.schema))
		if len(pr.Refused) == 0 || pr.Refused[0].Pointer != tc.ptr {
			t.Errorf("%s: refused %v, want at %q", tc.name, pr.Refused, tc.ptr)
		}
	}
}

// The measure: how many of the saved tools/list answers' tools get a
// profile New accepts, against how many the closed-Schema import takes.
func TestProposeProfileOnTheSavedToolsLists(t *testing.T) {
	t.Parallel()
	total, proposed, closed := 0, 0, 0
	for _, f := range []string{"testdata/tools-list.json", "../../../test/mcp/testdata/import-tools-list.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Result struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for _, tool := range doc.Result.Tools {
			total++
			if pr := ProposeProfile(tool.Name, tool.InputSchema); len(pr.Refused) == 0 {
				proposed++
			} else {
				t.Logf("not proposed: %v", pr.Refused)
			}
			if _, _, refused := convert(tool.Name, tool.InputSchema); len(refused) == 0 {
				closed++
			}
		}
	}
	t.Logf("%d tools: %d get a profile, %d import as a closed Schema", total, proposed, closed)
	if proposed <= closed {
		t.Errorf("the profile maps no more tools (%d) than the closed import (%d)", proposed, closed)
	}
}

// Import proposes a profile for every listed tool, and each proposal's YAML
// reads back (argprofile.Parse) as the same profile.
func TestImportProposesAProfilePerTool(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := ParseToolsList(raw)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Import(tools, Options{ToolPrefix: "files", SnapshotID: "files", Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Profiles) != len(tools) {
		t.Fatalf("%d profiles for %d tools", len(r.Profiles), len(tools))
	}
	for _, pp := range r.Profiles {
		if len(pp.Refused) > 0 {
			continue
		}
		want, err := argprofile.New(pp.Draft)
		if err != nil {
			t.Fatal(err)
		}
		y, err := pp.YAML()
		if err != nil {
			t.Fatal(err)
		}
		got, err := argprofile.Parse(y)
		if err != nil {
			t.Fatalf("%s: the YAML does not read back: %v\n%s", pp.Draft.Tool, err, y)
		}
		if !got.Digest().Equal(want.Digest()) {
			t.Errorf("%s: the YAML reads back as another profile", pp.Draft.Tool)
		}
	}
}
