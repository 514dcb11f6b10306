package argprofile_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/argprofile"
)

func sample(t testing.TB) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/search-entities.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func paths(err error) []string {
	var out []string
	var l argprofile.Errors
	if errors.As(err, &l) {
		for _, e := range l {
			out = append(out, e.Code.String()+"@"+e.Path)
		}
	}
	return out
}

// A draft outside the vocabulary is refused with every error at once, each
// at its path; nothing is built.
func TestNewRefusesEveryInvalidDraftAtOnce(t *testing.T) {
	t.Parallel()
	bad := `
profile: toolgate.mcp-arguments/2
tool: ""
limits: {maxOctets: 2000000, maxDepth: 33}
arguments:
  choice: object
  members:
    - {json: entityType, field: entityType, value: {choice: string, pattern: "(?=a)"}}
    - {json: a, field: x, value: {choice: integer, pattern: "a"}}
    - {json: b, field: x, value: {choice: decimal}}
    - {json: c, field: c, header: "Bad Header", value: {choice: string, format: email}}
    - {json: d, field: d, header: region, value: {choice: enum, cases: [{json: A, case: a}, {json: B, case: a}]}}
    - {json: e, field: e, header: Region, value: {choice: array, maxItems: 65, items: {choice: bool}}}
    - {json: f, field: f, value: {choice: union, alternatives: [{when: integer, tag: i, value: {choice: integer}}, {when: number, tag: n, value: {choice: decimal, scale: 1}}]}}
    - {json: g, field: g, value: {choice: text}}
    - {json: h, field: h, value: {choice: integer, minimum: 5, maximum: 4}}
    - {json: i, field: i, value: {choice: regex}}
    - {json: j, field: j, value: {choice: json, kinds: [object, bool, object]}}
    - {json: k, field: k, value: {choice: json, kinds: []}}
    - {json: l, field: l, value: {choice: string, kinds: [string]}}
    - {json: m, field: m, value: {choice: text, bind: digest, maxOctets: 1048576, pattern: "a{100}"}}
`
	_, err := argprofile.Parse([]byte(bad))
	want := []string{
		"invalidDraft@profile",
		"invalidDraft@tool",
		"invalidDraft@limits.maxOctets",
		"invalidDraft@limits.maxDepth",
		"invalidDraft@arguments.members[0].field",
		"invalidDraft@arguments.members[0].value.pattern",
		"invalidDraft@arguments.members[1].value.pattern",
		"invalidDraft@arguments.members[2].field",
		"invalidDraft@arguments.members[2].value.scale",
		"invalidDraft@arguments.members[3].header",
		"invalidDraft@arguments.members[3].value.format",
		"invalidDraft@arguments.members[4].value.cases[1].case",
		"invalidDraft@arguments.members[5].header",
		"invalidDraft@arguments.members[5].value.maxItems",
		"invalidDraft@arguments.members[6].value.alternatives[1].when",
		"invalidDraft@arguments.members[7].value.bind",
		"invalidDraft@arguments.members[8].value.minimum",
		"invalidDraft@arguments.members[9].value.choice",
		"invalidDraft@arguments.members[10].value.kinds[1]",
		"invalidDraft@arguments.members[10].value.kinds[2]",
		"invalidDraft@arguments.members[11].value.kinds",
		"invalidDraft@arguments.members[12].value.kinds",
		"invalidDraft@arguments.members[13].value.maxOctets",
	}
	if got := paths(err); !slices.Equal(got, want) {
		t.Errorf("Parse errors\n got %q\nwant %q", got, want)
	}
}

// The strict form: an unknown field or a duplicate key refuses the document.
func TestParseIsStrict(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"unknown field": "profile: toolgate.mcp-arguments/1\ntool: t\nextra: 1\narguments: {choice: object}\n",
		"duplicate key": "profile: toolgate.mcp-arguments/1\ntool: t\ntool: u\narguments: {choice: object}\n",
		"wrong type":    "profile: toolgate.mcp-arguments/1\ntool: t\narguments: {choice: object, members: 3}\n",
	} {
		if _, err := argprofile.Parse([]byte(doc)); !slices.Equal(paths(err), []string{"invalidDraft@(document)"}) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The representations add levels: a profile whose protocol Schema breaks a
// Section 39 bound is refused at construction, not at the first call.
func TestNewRefusesAProfileWhoseSchemaBreaksTheCore(t *testing.T) {
	t.Parallel()
	n := argprofile.NodeDraft{Choice: "text", Bind: "digest"}
	for range 6 {
		inner := n
		n = argprofile.NodeDraft{Choice: "array", Items: &inner}
	}
	_, err := argprofile.New(argprofile.Draft{Profile: argprofile.Version, Tool: "t", Arguments: argprofile.NodeDraft{
		Choice: "object", Members: []argprofile.MemberDraft{{JSON: "a", Field: "a", Value: n}}}})
	if got := paths(err); !slices.Equal(got, []string{"invalidDraft@arguments"}) {
		t.Errorf("got %q", got)
	}
	// A draft built in Go can even be cyclic: it is refused, not followed.
	cyclic := argprofile.NodeDraft{Choice: "array"}
	cyclic.Items = &cyclic
	_, err = argprofile.New(argprofile.Draft{Profile: argprofile.Version, Tool: "t", Arguments: argprofile.NodeDraft{
		Choice: "object", Members: []argprofile.MemberDraft{{JSON: "a", Field: "a", Value: cyclic}}}})
	if len(paths(err)) != 1 {
		t.Errorf("cyclic draft: %v", err)
	}
}

// I6: the digest changes with every field of the profile, and only with
// content (layout and key order of the YAML do not count).
func TestDigestChangesWithEveryField(t *testing.T) {
	t.Parallel()
	base, err := argprofile.Parse(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	edits := map[string][2]string{
		"tool":            {"tool: searchEntities", "tool: searchEntity"},
		"limit":           {"profile: toolgate.mcp-arguments/1", "profile: toolgate.mcp-arguments/1\nlimits: {maxDepth: 15}"},
		"member name":     {"json: entityType", "json: entity_type"},
		"field name":      {"field: entity-type", "field: kind"},
		"required":        {"field: query\n      required: true", "field: query"},
		"case json":       {"json: Person, case: person", "json: person, case: person"},
		"case token":      {"json: Person, case: person", "json: Person, case: human"},
		"bind":            {"bind: escaped, maxLength: 100", "bind: digest, maxLength: 100"},
		"maxLength":       {"maxLength: 4000", "maxLength: 4001"},
		"minimum":         {"minimum: 1, maximum: 100", "minimum: 2, maximum: 100"},
		"unsigned":        {"unsigned: true, minimum: 1", "minimum: 1"},
		"scale":           {"scale: 2", "scale: 3"},
		"alternative tag": {"tag: none", "tag: absent"},
		"format":          {"format: date", "format: uuid"},
		"json maxOctets":  {"maxOctets: 4096", "maxOctets: 4097"},
		"json kinds":      {"kinds: [object]", "kinds: [object, array]"},
		"json any kind":   {"kinds: [object], ", ""},
		"header":          {"header: Region", "header: Zone"},
		"pattern":         {`[0-9]$"`, `[0-9]?$"`},
		"maxItems":        {"maxItems: 8", "maxItems: 9"},
		"item minLength":  {"minLength: 1", "minLength: 0"},
		"swap renames":    {"field: label\n", "field: tmp\n"},
	}
	seen := map[string]string{base.Digest().String(): "base"}
	for name, e := range edits {
		doc := string(sample(t))
		if !strings.Contains(doc, e[0]) {
			t.Fatalf("%s: edit target not in the sample", name)
		}
		p, err := argprofile.Parse([]byte(strings.Replace(doc, e[0], e[1], 1)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := p.Digest().String()
		if prev, ok := seen[d]; ok {
			t.Errorf("%s gives the digest of %s", name, prev)
		}
		seen[d] = name
	}
	// Reordering members and cases is layout, not content.
	doc := strings.Replace(string(sample(t)), "          - {json: Person, case: person}\n          - {json: Organization, case: organization}\n",
		"          - {json: Organization, case: organization}\n          - {json: Person, case: person}\n", 1)
	p, err := argprofile.Parse([]byte(doc))
	if err != nil || !p.Digest().Equal(base.Digest()) {
		t.Errorf("reordered cases changed the digest: %v", err)
	}
	if r := base.DocRef(); len(r) != 63 || !strings.HasPrefix(r, "argprofile.") {
		t.Errorf("DocRef %q", r)
	}
}
