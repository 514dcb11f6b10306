package mcpimport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/manifest"
)

func definitionOf(t *testing.T, r *Result, tool string) v1alpha1.ToolDefinition {
	t.Helper()
	for _, m := range r.Gateway.Tools {
		if m.Name != tool {
			continue
		}
		for _, d := range r.Registry.Spec.Definitions {
			if string(d.ToolID) == m.ToolID && string(d.Version) == m.Version {
				return d
			}
		}
	}
	t.Fatalf("%s: not in the draft", tool)
	return v1alpha1.ToolDefinition{}
}

// A tool with an accepted profile imports with it: its definition's
// arguments read back (argprofile.Parse) as the proposal, docRef is its
// DocRef and schema.root its Schema. A tool without one imports with its
// closed Schema when that converts, and carries no arguments.
func TestAnAcceptedProfileIsTheDefinitionsArgumentsBoundByDocRefAndSchema(t *testing.T) {
	r, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	profiled, closed := 0, 0
	for _, pp := range r.Profiles {
		want, ok := pp.Accepted()
		if !ok {
			if r.Profiled(pp.Tool) {
				t.Errorf("%s: no accepted profile, yet profiled", pp.Tool)
			}
			continue
		}
		if !r.Profiled(pp.Tool) {
			continue // refused for another reason (its name): not in the draft
		}
		profiled++
		d := definitionOf(t, r, pp.Tool)
		if d.Arguments == nil {
			t.Errorf("%s: an accepted profile, no arguments", pp.Tool)
			continue
		}
		got, err := argprofile.Parse(d.Arguments.Raw)
		if err != nil || !got.Digest().Equal(want.Digest()) {
			t.Errorf("%s: the arguments read back as another profile (%v)", pp.Tool, err)
			continue
		}
		root, _ := json.Marshal(nodeOf(want.Schema()))
		if d.DocRef != want.DocRef() || string(d.Schema.Root.Raw) != string(root) {
			t.Errorf("%s: docRef %s and schema.root %s are not the profile's %s, %s", pp.Tool, d.DocRef, d.Schema.Root.Raw, want.DocRef(), root)
		}
	}
	for _, m := range r.Gateway.Tools {
		if !r.Profiled(m.Name) {
			closed++
			if d := definitionOf(t, r, m.Name); d.DocRef != "" || d.Arguments != nil {
				t.Errorf("%s: a closed-Schema definition with docRef %q or arguments", m.Name, d.DocRef)
			}
		}
	}
	// Every tool that converts to a closed Schema now also gets a profile
	// (a tool without arguments gets the trivial one), so the fixture
	// reaches the closed-Schema fallback no more (docs/decisions.md, "MCP
	// import: a tool imports with its accepted profile, the closed Schema
	// only without one").
	if profiled == 0 || closed != 0 {
		t.Errorf("%d profiled and %d closed-Schema definitions, want every imported tool profiled", profiled, closed)
	}
}

// Every judgment is listed in the unconfirmed annotation, each proposal's
// reason is a comment of the draft, and its lines carry ConfirmMarker; a
// member kept under its own name is no rename.
func TestEveryJudgmentIsListedCommentedAndMarked(t *testing.T) {
	tools := append(fixture(t), Tool{Name: "page", InputSchema: json.RawMessage(`{"type":"object","properties":{"maxResults":{"type":"integer"}}}`)})
	r, err := Import(tools, options())
	if err != nil {
		t.Fatal(err)
	}
	y, err := r.RegistryYAML()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, u := range r.Unconfirmed {
		listed[u.String()] = true
	}
	for _, pp := range r.Profiles {
		if !r.Profiled(pp.Tool) {
			continue
		}
		id := string(definitionOf(t, r, pp.Tool).ID)
		for _, f := range pp.Reasons {
			if !listed[manifest.Unconfirmed{Definition: id, Field: manifest.ConfirmArguments, Pointer: f.Pointer}.String()] {
				t.Errorf("%s: the choice at %s is not in the annotation", pp.Tool, f.Pointer)
			}
			if !strings.Contains(string(y), "  # chose "+pointer(f.Pointer)+": "+f.Reason+"\n") {
				t.Errorf("%s: the reason at %s is not a comment of the draft", pp.Tool, f.Pointer)
			}
		}
		for _, field := range []string{"risk", "sideEffect", "reversibility", "capabilities"} {
			if !listed[id+" "+field] {
				t.Errorf("%s: %s is not in the annotation", id, field)
			}
		}
	}
	if got := r.Registry.Annotations[UnconfirmedAnnotation]; got != manifest.FormatUnconfirmed(r.Unconfirmed) {
		t.Errorf("the annotation is not the list of suggestions:\n%s", got)
	}
	for _, want := range []string{"choice: text  " + ConfirmMarker, "bind: digest  " + ConfirmMarker,
		"scale: 2  " + ConfirmMarker, "choice: json  " + ConfirmMarker, "field: max-results  " + ConfirmMarker, "choice: array  " + ConfirmMarker} {
		if !strings.Contains(string(y), want) {
			t.Errorf("the draft lacks %q", want)
		}
	}
	if strings.Contains(string(y), "field: path  "+ConfirmMarker) {
		t.Error("a member kept under its own name is marked as a rename")
	}
}

// A previous registry whose definition carries a profile that does not
// build stops the re-import, every bad one named.
func TestAPreviousProfileThatDoesNotBuildStopsTheReimport(t *testing.T) {
	first, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	reg := *first.Registry.DeepCopy()
	reg.Spec.Definitions[0].Arguments = &apiextensionsv1.JSON{Raw: []byte(`{"profile":"toolgate.mcp-arguments/1","tool":"read_file","extra":1,"arguments":{"choice":"object"}}`)}
	reg.Spec.Definitions[1].Arguments = &apiextensionsv1.JSON{Raw: []byte(`{"profile":"toolgate.mcp-arguments/2","tool":"transfer","arguments":{"choice":"object","members":[]}}`)}
	gw := first.Gateway
	o := options()
	o.Previous = &Previous{Registry: reg, Gateway: &gw}
	_, err = Import(fixture(t), o)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{"spec.definitions[0].arguments: not a profile", "spec.definitions[1].arguments:"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
}

// A re-import keeps the reviewed definition, and so the reviewed profile,
// of a tool whose definition is unchanged (the reviewer's edit survives,
// no diff), and names by pointer the choices that changed for a tool whose
// definition changed.
func TestReimportKeepsReviewedProfilesAndNamesChangedPointers(t *testing.T) {
	first, err := Import(fixture(t), options())
	if err != nil {
		t.Fatal(err)
	}
	// The reviewer lets policy compare read_file's path, and rebinds.
	reg := *first.Registry.DeepCopy()
	reg.Annotations = nil
	var d argprofile.Draft
	if err := json.Unmarshal(reg.Spec.Definitions[0].Arguments.Raw, &d); err != nil {
		t.Fatal(err)
	}
	d.Arguments.Members[1].Value = argprofile.NodeDraft{Choice: "string"}
	if err := Bind(&reg.Spec.Definitions[0], d); err != nil {
		t.Fatal(err)
	}
	o := options()
	gw := first.Gateway
	o.Previous = &Previous{Registry: reg, Gateway: &gw}
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
	if d := r.Registry.Spec.Definitions[0]; d.DocRef != reg.Spec.Definitions[0].DocRef || r.unconfirmed[string(d.ID)] {
		t.Errorf("the carried-over definition must be the reviewed one, unmarked: %s", d.DocRef)
	}
	for _, u := range r.Unconfirmed {
		if u.Definition == string(r.Registry.Spec.Definitions[0].ID) {
			t.Errorf("the carried-over definition is listed unconfirmed: %s", u)
		}
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
