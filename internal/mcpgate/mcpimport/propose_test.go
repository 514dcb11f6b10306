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
		{"pattern outside the agreed dialect", `{"type":"object","properties":{"a":{"type":"string","pattern":"(?=a)"}}}`, "/properties/a/pattern"},
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

// Each row is one proposal rule of docs/arguments.md: the schema, an
// argument text the server takes that the proposal derives, one the
// schema refuses that the profile refuses too, and the reason printed.
func TestProposalRulesHoldExactly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule, schema, accept, refuse, ptr, reason string
	}{
		{"a tool without arguments takes the trivial profile",
			`{"type":"object","properties":{}}`, `{}`, `{"a":1}`, "", ProposeNoArguments},
		{"a tool without arguments and additionalProperties false takes it without a reason",
			`{"type":"object","additionalProperties":false}`, `{}`, `{"a":1}`, "", ""},
		{"enumeration values sharing a token are named by their place",
			`{"type":"object","properties":{"r":{"type":"string","enum":["+1","-1","laugh"]}}}`, `{"r":"-1"}`, `{"r":"1"}`, "/properties/r/enum", ProposeCaseByPlace},
		{"a value with no token at all is named by its place",
			`{"type":"object","properties":{"r":{"type":"string","enum":["","a"]}}}`, `{"r":""}`, `{"r":"case-1"}`, "/properties/r/enum", ProposeCaseByPlace},
		{"a boolean enum of one value is its const",
			`{"type":"object","properties":{"d":{"type":"boolean","enum":[true]}}}`, `{"d":true}`, `{"d":false}`, "/properties/d/enum", ProposeBoolEnum},
		{"a boolean enum of both values constrains nothing",
			`{"type":"object","properties":{"d":{"type":"boolean","enum":[false,true]}}}`, `{"d":false}`, `{"d":"true"}`, "", ""},
		{"no type and no constraint is any JSON value, as a digest",
			`{"type":"object","properties":{"v":{"description":"anything"}}}`, `{"v":{"x":[1,null]}}`, `{"v":1e400}`, "/properties/v", ProposeJSONAny},
		{"integer format int32 is its range",
			`{"type":"object","properties":{"n":{"type":"integer","format":"int32","maximum":100}}}`, `{"n":-2147483648}`, `{"n":-2147483649}`, "/properties/n/format", ProposeIntFormat},
		{"integer format int32 keeps a tighter maximum",
			`{"type":"object","properties":{"n":{"type":"integer","format":"int32","maximum":100}}}`, `{"n":100}`, `{"n":101}`, "", ""},
		{"integer format uint32 is unsigned",
			`{"type":"object","properties":{"n":{"type":"integer","format":"uint32"}}}`, `{"n":4294967295}`, `{"n":-1}`, "/properties/n/minimum", ProposeUnsigned},
		{"a number's exclusiveMinimum is the next value at the scale",
			`{"type":"object","properties":{"g":{"type":"number","exclusiveMinimum":0}}}`, `{"g":0.01}`, `{"g":0}`, "/properties/g/exclusiveMinimum", ProposeExclusive},
		{"a number's exclusiveMaximum is the value before it at the scale",
			`{"type":"object","properties":{"g":{"type":"number","exclusiveMaximum":1.5}}}`, `{"g":1.49}`, `{"g":1.5}`, "/properties/g/exclusiveMaximum", ProposeExclusive},
		{"an integer's minimum between integers is the next integer",
			`{"type":"object","properties":{"n":{"type":"integer","minimum":1.5}}}`, `{"n":2}`, `{"n":1}`, "", ""},
		{"both a minimum and an exclusiveMinimum: the tighter",
			`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":5}}}`, `{"n":6}`, `{"n":5}`, "/properties/n/exclusiveMinimum", ProposeExclusive},
		{"propertyNames of type string holds for every name",
			`{"type":"object","properties":{"m":{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"string"}}}}`, `{"m":{"text/plain":"x"}}`, `{"m":{"a":1e400}}`, "/properties/m/propertyNames", ProposeNames},
		{"an open object is json of kind object",
			`{"type":"object","properties":{"o":{"type":"object"}}}`, `{"o":{"a":1}}`, `{"o":[]}`, "/properties/o", ProposeJSONOpen},
		{"an open object's member schema is named as the upstream's to check",
			`{"type":"object","properties":{"o":{"type":"object","additionalProperties":{"type":"string"}}}}`, `{"o":{"a":"x"}}`, `{"o":5}`, "/properties/o/additionalProperties", ProposeJSONMembers},
		{"an open object's required members are named as the upstream's to check",
			`{"type":"object","properties":{"o":{"type":"object","required":["a"]}}}`, `{"o":{"a":1}}`, `{"o":"a"}`, "/properties/o/required", ProposeJSONReq},
		{"an array with uniqueItems is json of kind array",
			`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"items":{"type":"integer"}}}}`, `{"a":[1,2]}`, `{"a":{"0":1}}`, "/properties/a", ProposeJSONArray},
		{"alternatives of one kind are json of that kind",
			`{"type":"object","properties":{"s":{"type":"object","oneOf":[{"type":"object","properties":{"a":{"type":"integer"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}}}`, `{"s":{"a":1}}`, `{"s":"a"}`, "/properties/s/oneOf", ProposeJSONUnion},
		{"alternatives that are references are json of their targets' kinds",
			`{"type":"object","properties":{"s":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/b"}]}},"$defs":{"a":{"type":"object","properties":{"a":{"type":"integer"}}},"b":{"type":"object","properties":{"b":{"type":"string"}}}}}`, `{"s":{"b":"x"}}`, `{"s":null}`, "/properties/s/anyOf", ProposeJSONUnion},
		{"an integer and a number alternative are json of both kinds",
			`{"type":"object","properties":{"n":{"anyOf":[{"type":"integer"},{"type":"number"}]}}}`, `{"n":1.5}`, `{"n":"1"}`, "/properties/n/anyOf", ProposeJSONUnion},
		{"alternatives naming no type take any kind, and say so",
			`{"type":"object","properties":{"s":{"anyOf":[{"minimum":1},{"maxLength":2}]}}}`, `{"s":5}`, `{"s":1e400}`, "/properties/s/anyOf", ProposeJSONNoKind},
		{"a $ref cycle is json of its target's kind",
			`{"type":"object","properties":{"t":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"c":{"type":"array","items":{"$ref":"#/$defs/n"}}}}}}`, `{"t":{"c":[{"c":[]}]}}`, `{"t":{"c":[5]}}`, "/properties/t/properties/c/items/$ref", ProposeJSONCycle},
		{"an open object with declared members is closed to them",
			`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"boolean"}},"additionalProperties":true}}}`, `{"o":{"a":true}}`, `{"o":{"a":true,"b":1}}`, "/properties/o/additionalProperties", ProposeClosed},
		{"a local reference into properties resolves",
			`{"type":"object","properties":{"a":{"type":["boolean","string"]},"b":{"$ref":"#/properties/a","description":"d"}}}`, `{"b":"x"}`, `{"b":1}`, "", ""},
		{"a pattern only the printable-ASCII dialect holds makes the text a string",
			`{"type":"object","properties":{"p":{"type":"string","maxLength":64,"pattern":"^[a-z\\s]+$"}}}`, `{"p":"a b"}`, `{"p":"a\tb"}`, "/properties/p/pattern", ProposeASCIIPat},
		{"a pattern with hex escapes stays text",
			`{"type":"object","properties":{"p":{"type":"string","pattern":"^[\\x20-\\x7E]*$"}}}`, `{"p":"a b"}`, `{"p":"a\u00e9"}`, "/properties/p", ProposeDigest},
	} {
		pr := ProposeProfile("t", []byte(tc.schema))
		p, ok := pr.Accepted()
		if !ok {
			t.Errorf("%s: refused %v", tc.rule, pr.Refused)
			continue
		}
		if _, err := p.Derive([]byte(tc.accept)); err != nil {
			t.Errorf("%s: %s refused: %v", tc.rule, tc.accept, err)
		}
		if _, err := p.Derive([]byte(tc.refuse)); err == nil {
			t.Errorf("%s: %s accepted", tc.rule, tc.refuse)
		}
		if tc.reason != "" && !slices.Contains(pr.Reasons, Finding{"t", tc.ptr, tc.reason}) {
			t.Errorf("%s: no reason %q at %q; got %v", tc.rule, tc.reason, tc.ptr, pr.Reasons)
		}
	}
}

// What the new rules still cannot hold is refused at its pointer.
func TestProposalRulesRefuseTheRest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ rule, schema, ptr string }{
		{"an explicitly open root", `{"type":"object","additionalProperties":true}`, ""},
		{"propertyNames that constrains", `{"type":"object","properties":{"m":{"type":"object","propertyNames":{"pattern":"^a"}}}}`, "/properties/m/propertyNames"},
		{"an integer format without an exact range", `{"type":"object","properties":{"n":{"type":"integer","format":"int128"}}}`, "/properties/n/format"},
		{"a draft-04 boolean exclusiveMinimum", `{"type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}}}`, "/properties/n/exclusiveMinimum"},
		{"a boolean enum with a non-boolean", `{"type":"object","properties":{"d":{"type":"boolean","enum":[true,"x"]}}}`, "/properties/d/enum"},
		{"an enumeration listing a value twice", `{"type":"object","properties":{"e":{"type":"string","enum":["a","a"]}}}`, "/properties/e/enum"},
		{"a place token colliding with a value's", `{"type":"object","properties":{"e":{"type":"string","enum":["+1","-1","case-1"]}}}`, "/properties/e/enum"},
		{"no type with a constraint", `{"type":"object","properties":{"v":{"minimum":1}}}`, "/properties/v"},
		{"a constraint beside $ref", `{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a","maxLength":3}}}`, "/properties/b/maxLength"},
		{"a reference to nothing", `{"type":"object","properties":{"b":{"$ref":"#/properties/none"}}}`, "/properties/b/$ref"},
		{"a keyword beside a list of types that none of them takes", `{"type":"object","properties":{"a":{"type":["string","null"],"not":{}}}}`, "/properties/a/not"},
		{"a boolean enum inside a list of types", `{"type":"object","properties":{"a":{"type":["boolean","string"],"enum":[true,"x"]}}}`, "/properties/a/type/0/enum"},
		{"a string constraint beside enum", `{"type":"object","properties":{"e":{"type":"string","enum":["a","bbbb"],"maxLength":3}}}`, "/properties/e/maxLength"},
		{"a pattern over 1,024 octets", `{"type":"object","properties":{"p":{"type":"string","pattern":"` + strings.Repeat("[ab]", 256) + `a"}}}`, "/properties/p/pattern"},
		{"a pattern over 1,024 program instructions", `{"type":"object","properties":{"p":{"type":"string","pattern":"a{1000}b{23}"}}}`, "/properties/p/pattern"},
		{"a keyword beside anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}],"maxLength":3}}}`, "/properties/a/maxLength"},
		{"oneOf beside anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}],"oneOf":[{"type":"string"},{"type":"null"}]}}}`, "/properties/a/oneOf"},
		{"an alternative of a kind the type beside it does not name", `{"type":"object","properties":{"a":{"type":"string","anyOf":[{"type":"string"},{"type":"integer"}]}}}`, "/properties/a/anyOf/1"},
		{"a type and alternatives of one kind with no kind in common", `{"type":"object","properties":{"a":{"type":"string","oneOf":[{"type":"integer","minimum":1},{"type":"integer","maximum":0}]}}}`, "/properties/a/oneOf"},
		{"a root without properties that requires a member", `{"type":"object","required":["a"]}`, "/required"},
	} {
		pr := ProposeProfile("t", []byte(tc.schema))
		if !slices.ContainsFunc(pr.Refused, func(f Finding) bool { return f.Pointer == tc.ptr }) {
			t.Errorf("%s: refused %v, want one at %q", tc.rule, pr.Refused, tc.ptr)
		}
		if _, ok := pr.Accepted(); ok {
			t.Errorf("%s: accepted", tc.rule)
		}
	}
}
