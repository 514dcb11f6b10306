package mcpimport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/argprofile"
)

// The file the reviewer edits reads back as the proposed profiles, one per
// tool with an accepted proposal, keyed by MCP tool name; every choice the
// proposer gave a reason for carries ConfirmMarker, and the tools without
// a profile are named.
func TestTheProfileFileReadsBackAsTheProposalsAndMarksEveryJudgment(t *testing.T) {
	tools := append(fixture(t), Tool{Name: "page", InputSchema: json.RawMessage(`{"type":"object","properties":{"maxResults":{"type":"integer"}}}`)})
	r, err := Import(tools, options())
	if err != nil {
		t.Fatal(err)
	}
	y, err := r.ProfilesYAML()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseProfiles(y)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	accepted := 0
	for _, pp := range r.Profiles {
		want, ok := pp.Accepted()
		if !ok {
			if !strings.Contains(string(y), "# "+pp.Refused[0].Tool+": no profile: refused at") {
				t.Errorf("%s: the file does not name the tool without a profile", pp.Refused[0].Tool)
			}
			continue
		}
		accepted++
		d, ok := got[pp.Draft.Tool]
		if !ok {
			t.Errorf("%s: no document", pp.Draft.Tool)
			continue
		}
		p, err := argprofile.New(d)
		if err != nil || !p.Digest().Equal(want.Digest()) {
			t.Errorf("%s: reads back as another profile (%v)", pp.Draft.Tool, err)
		}
	}
	if accepted != len(got) || accepted == 0 {
		t.Errorf("%d documents for %d accepted proposals", len(got), accepted)
	}
	for _, doc := range strings.Split(string(y), "\n---\n")[1:] {
		if strings.HasPrefix(doc, "# /") != strings.Contains(doc, ConfirmMarker) {
			t.Errorf("a document with reasons must mark its judgments, one without none:\n%s", doc)
		}
	}
	for _, want := range []string{"choice: text  " + ConfirmMarker, "bind: digest  " + ConfirmMarker,
		"scale: 2  " + ConfirmMarker, "choice: json  " + ConfirmMarker, "field: max-results  " + ConfirmMarker, "choice: array  " + ConfirmMarker} {
		if !strings.Contains(string(y), want) {
			t.Errorf("the file lacks %q", want)
		}
	}
	if strings.Contains(string(y), "field: path  "+ConfirmMarker) {
		t.Error("a member kept under its own name is marked as a rename")
	}
}

func TestParseProfilesRefusesEveryBadDocumentAtOnce(t *testing.T) {
	doc := "profile: toolgate.mcp-arguments/1\ntool: a\narguments: {choice: object, members: []}\n"
	for name, tc := range map[string]struct {
		in   string
		want []string
	}{
		"an unknown field and a tool twice": {
			in:   doc + "---\n" + doc + "---\nprofile: toolgate.mcp-arguments/1\ntool: b\nextra: 1\narguments: {choice: object}\n",
			want: []string{"document 1 (a): the tool has a profile already", "document 2: not a profile"},
		},
		"a profile New refuses": {
			in:   "profile: toolgate.mcp-arguments/2\ntool: c\narguments: {choice: object, members: []}\n",
			want: []string{"document 0 (c):"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseProfiles([]byte(tc.in))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

// A re-import keeps the reviewed profile of a tool whose definition is
// unchanged (the reviewer's edit survives, no diff), and names by pointer
// the choices that changed for a tool whose definition changed.
func TestReimportKeepsReviewedProfilesAndNamesChangedPointers(t *testing.T) {
	first, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	y, err := first.ProfilesYAML()
	if err != nil {
		t.Fatal(err)
	}
	// The reviewer lets policy compare read_file's path.
	y = []byte(strings.Replace(string(y), "      bind: digest  "+ConfirmMarker+"\n      choice: text  "+ConfirmMarker+"\n", "      choice: string\n", 1))
	profiles, err := ParseProfiles(y)
	if err != nil {
		t.Fatal(err)
	}
	if profiles["read_file"].Arguments.Members[1].Value.Choice != "string" {
		t.Fatalf("the edit did not apply:\n%s", y)
	}
	o := options()
	gw := first.Gateway
	o.Previous = &Previous{Registry: first.Registry, Gateway: &gw, Profiles: profiles}
	tools := fixture(t)
	tools[1].InputSchema = json.RawMessage(strings.Replace(string(tools[1].InputSchema), `"account": {"type": "string", "title": "Account"}`, `"account": {"type": "string", "title": "Account", "maxLength": 34}`, 1))
	if string(tools[1].InputSchema) == string(fixture(t)[1].InputSchema) {
		t.Fatalf("the fixture's transfer changed shape: %s", tools[1].InputSchema)
	}
	r, err := Import(tools, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range r.ProfileChanges {
		got = append(got, c.Kind+" "+c.Tool+" "+strings.Join(c.Pointers, ","))
	}
	want := []string{"changed transfer /account"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("profile changes (-want +got):\n%s", d)
	}
	if c := r.ProfileChanges[0].String(); !strings.Contains(c, "sha256:") || !strings.Contains(c, " -> ") {
		t.Errorf("a changed profile names both digests: %s", c)
	}
	if r.Profiles[0].Draft.Arguments.Members[1].Value.Choice != "string" || len(r.Profiles[0].Reasons) != 0 {
		t.Errorf("read_file's reviewed profile did not carry over: %+v", r.Profiles[0])
	}
	y, err = r.ProfilesYAML()
	if err != nil {
		t.Fatal(err)
	}
	readFile := strings.Split(string(y), "\n---\n")[1]
	if !strings.Contains(readFile, "tool: read_file") || strings.Contains(readFile, ConfirmMarker) {
		t.Errorf("the carried-over profile must be rendered as reviewed, unmarked:\n%s", readFile)
	}
}

// Every refusal of a tool at once: a refused tool name or member name does
// not hide what is refused inside (docs/mcp.md, "Import and review").
func TestARefusedNameDoesNotHideTheRefusalsInside(t *testing.T) {
	schema := `{"type":"object","properties":{"maxResults":{"type":"string","pattern":"^a$","not":{}},"max_results":{"type":"integer","not":{}}}}`
	r, err := Import([]Tool{{Name: "Bad Name!", InputSchema: json.RawMessage(schema)}}, options())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Refusals {
		got = append(got, pointer(f.Pointer))
	}
	want := []string{"(root)", "/properties/maxResults", "/properties/maxResults/not", "/properties/maxResults/pattern",
		"/properties/max_results", "/properties/max_results/not"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("closed import refusals (-want +got):\n%s", d)
	}
	got = nil
	for _, f := range r.Profiles[0].Refused {
		got = append(got, pointer(f.Pointer))
	}
	// maxResults and max_results propose one field name: the second
	// (in name order) collides, and its own refusal is still reported.
	want = []string{"/properties/maxResults/not", "/properties/max_results", "/properties/max_results/not"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("profile refusals (-want +got):\n%s", d)
	}
}
