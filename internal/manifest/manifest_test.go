package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestShippedSampleLoadsAndPublishes: the sample the README runs is a valid
// Registry Snapshot under the engine's publication rules, and its payments
// Schema is the one the engine tests use.
func TestShippedSampleLoadsAndPublishes(t *testing.T) {
	t.Parallel()
	set, err := manifest.LoadPaths(filepath.Join(testutil.RepoRoot(t), "config", "samples"))
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	if len(set.ToolRegistries) != 1 {
		t.Fatalf("loaded %d ToolRegistry objects, want 1", len(set.ToolRegistries))
	}
	tr := set.ToolRegistries[0]
	if tr.Name != "primary-registry-1" || tr.Namespace != "payments" {
		t.Errorf("metadata = %s/%s, want payments/primary-registry-1", tr.Namespace, tr.Name)
	}
	// The apiserver's CEL rule: the name is <snapshotID>-<snapshotGeneration>.
	if want := string(tr.Spec.SnapshotID) + "-" + string(tr.Spec.SnapshotGeneration); tr.Name != want {
		t.Errorf("name = %q, want %q", tr.Name, want)
	}
	draft, err := manifest.RegistryDraft(tr.Spec)
	if err != nil {
		t.Fatalf("RegistryDraft: %v", err)
	}
	snap, err := registry.Publish(draft.Draft)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	var got []string
	for i := range snap.Len() {
		got = append(got, snap.Definition(i).ID().String())
	}
	if diff := cmp.Diff([]string{"accounts-lookup-1", "email-send-1", "payments-refund-1", "payments-submit-1"}, got); diff != "" {
		t.Errorf("definitions in Section 50 order (-want +got):\n%s", diff)
	}
	want := testutil.Publish(t, testutil.RegistryDraft(testutil.PaymentsDefinition())).Definition(0).Schema()
	if !want.Equal(snap.Definition(3).Schema()) {
		t.Error("the sample's payments Schema differs from testutil.PaymentsRoot")
	}
}

const header = "apiVersion: stk.toolgate.dev/v1alpha1\nkind: ToolRegistry\nmetadata: {name: r, namespace: ns}\n"

// definition is a valid sample definition with the given version and root
// lines, indented for the spec.definitions list.
func definition(version, root string) string {
	return `  - id: d-1
    toolID: a.b
    version: ` + version + `
    lifecycle: active
    risk: low
    sideEffect: readOnly
    reversibility: notApplicable
    capabilities: [data.read]
    title: A tool
    summary: A tool.
    schema:
      id: s
      version: v1
      root: ` + root + "\n"
}

func spec(defs string) string {
	return header + "spec:\n  snapshotID: primary-registry\n  snapshotGeneration: \"1\"\n  definitions:\n" + defs
}

// TestParseIsStrict proves the manifest reader's strictness: duplicate
// keys, unknown fields, the wrong apiVersion or kind, and scalars of the
// wrong YAML type reject the document; the error names the file and the
// document number, the line and column of the offending key or token and
// the key path leading to it, and never echoes the offending key or value.
func TestParseIsStrict(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		doc      string
		wantErr  bool
		wantText string
	}{
		"a valid document is accepted":            {doc: spec(definition(`"1"`, "{kind: object}"))},
		"an empty file is accepted as no objects": {doc: "# only a comment\n---\n"},
		"a duplicate key rejects": {
			doc:      header + "spec:\n  snapshotID: primary-registry\n  snapshotID: secret-value-123\n  snapshotGeneration: \"1\"\n",
			wantErr:  true,
			wantText: "f.yaml:6:3: document 1: is not a valid ToolRegistry document: spec: a key appears twice in this mapping",
		},
		"a duplicate key inside a schema tree rejects": {
			doc:      spec(definition(`"1"`, "{kind: object, kind: secret-value-123}")),
			wantErr:  true,
			wantText: "f.yaml:21:28: document 1: is not a valid ToolRegistry document: spec.definitions[0].schema.root: a key appears twice in this mapping",
		},
		"an unknown field rejects without echoing its name": {
			doc:      header + "spec:\n  snapshotID: primary-registry\n  snapshotGeneration: \"1\"\n  secretfield: secret-value-123\n",
			wantErr:  true,
			wantText: "f.yaml:7:3: document 1: is not a valid ToolRegistry document: spec: unknown field: no such key is declared here",
		},
		"an unknown field near a declared one names the declared one": {
			doc:      header + "spec:\n  snapshotID: primary-registry\n  snapshotGeneraton: \"1\"\n",
			wantErr:  true,
			wantText: "f.yaml:6:3: document 1: is not a valid ToolRegistry document: spec: unknown field: no such key is declared here; did you mean \"snapshotGeneration\"?",
		},
		"an unknown field deep in a definition names its neighbour": {
			doc:      spec("  - toolID: a.b\n    versoin: \"1\"\n"),
			wantErr:  true,
			wantText: "f.yaml:9:5: document 1: is not a valid ToolRegistry document: spec.definitions[0]: unknown field: no such key is declared here; did you mean \"version\"?",
		},
		"an unquoted numeric tool version rejects: versions are strings": {
			doc:      spec(definition("1", "{kind: object}")),
			wantErr:  true,
			wantText: "f.yaml:10:14: document 1: is not a valid ToolRegistry document: spec.definitions[0].version: wrong value type (quote numbers that are strings, e.g. \"1\")",
		},
		"an unquoted numeric generation rejects": {
			doc:      header + "spec:\n  snapshotID: primary-registry\n  snapshotGeneration: 1\n",
			wantErr:  true,
			wantText: "f.yaml:6:23: document 1: is not a valid ToolRegistry document: spec.snapshotGeneration: wrong value type (quote numbers that are strings, e.g. \"1\")",
		},
		"a wrong apiVersion rejects": {
			doc:      strings.Replace(spec(definition(`"1"`, "{kind: object}")), "v1alpha1", "v1beta1", 1),
			wantErr:  true,
			wantText: "f.yaml: document 1: apiVersion must be stk.toolgate.dev/v1alpha1",
		},
		"a wrong kind rejects": {
			doc:      strings.Replace(spec(definition(`"1"`, "{kind: object}")), "kind: ToolRegistry", "kind: Consumption", 1),
			wantErr:  true,
			wantText: "f.yaml: document 1: kind is not a toolgate kind this build reads (HostAuthority, PolicySnapshot, Revocation, ToolRegistry)",
		},
		"the document number counts from one across separators": {
			doc:      spec(definition(`"1"`, "{kind: object}")) + "---\n" + header + "spec: {snapshotID: x, snapshotGeneration: \"1\", secretfield: 1}\n",
			wantErr:  true,
			wantText: "f.yaml:26:48: document 2: is not a valid ToolRegistry document: spec: unknown field: no such key is declared here",
		},
		"a YAML syntax error rejects without echoing the line": {
			doc:      header + "spec: [secret-value-123\n",
			wantErr:  true,
			wantText: "f.yaml:4:7: document 1: is not a valid YAML mapping with string apiVersion and kind: YAML syntax error here",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set, err := manifest.Parse("f.yaml", []byte(tc.doc))
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			if err == nil || set != nil {
				t.Fatalf("Parse = %v, %v; want an error and no set", set, err)
			}
			if diff := cmp.Diff(tc.wantText, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
			testutil.CheckNoEcho(t, err, "secret")
		})
	}
}

// TestSchemaTreesRejectWithAPath: a Schema tree (stored as a JSON subtree
// because CRD schemas cannot recurse) is decoded strictly, and each
// rejection carries the path of the offending node from spec down.
func TestSchemaTreesRejectWithAPath(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		root     string
		wantErr  error
		wantPath string
	}{
		"an unknown key in a schema node rejects at that node": {
			root: `{"kind":"object","secretfield":1}`, wantErr: fault.ErrUnknownField, wantPath: "spec.definitions[0].schema.root",
		},
		"an unknown key in a nested field rejects at that field": {
			root:     `{"kind":"object","fields":[{"name":"a","requirement":"required","type":{"kind":"string"},"default":"x"}]}`,
			wantErr:  fault.ErrUnknownField,
			wantPath: "spec.definitions[0].schema.root.fields[0]",
		},
		"a duplicate key in a schema node rejects": {
			root: `{"kind":"object","kind":"string"}`, wantErr: fault.ErrDuplicate, wantPath: "spec.definitions[0].schema.root",
		},
		"a tree nested beyond any valid schema depth rejects": {
			root:    strings.Repeat(`{"kind":"array","items":`, 26) + `{"kind":"string"}` + strings.Repeat(`}`, 26),
			wantErr: fault.ErrLimitExceeded, wantPath: "spec.definitions[0].schema.root",
		},
		"JSON that is not a tree rejects": {
			root: `{"kind":`, wantErr: fault.ErrMalformed, wantPath: "spec.definitions[0].schema.root",
		},
		"a non-string kind rejects at the kind": {
			root: `{"kind":7}`, wantErr: fault.ErrKindMismatch, wantPath: "spec.definitions[0].schema.root.kind",
		},
		"a non-string enumeration case rejects at the case": {
			root:     `{"kind":"object","fields":[{"name":"c","requirement":"required","type":{"kind":"enumeration","cases":["a",true]}}]}`,
			wantErr:  fault.ErrKindMismatch,
			wantPath: "spec.definitions[0].schema.root.fields[0].type.cases[1]",
		},
		"fields that are not a list reject": {
			root: `{"kind":"object","fields":{"name":"a"}}`, wantErr: fault.ErrKindMismatch, wantPath: "spec.definitions[0].schema.root.fields",
		},
		"a schema node that is not an object rejects": {
			root: `"object"`, wantErr: fault.ErrKindMismatch, wantPath: "spec.definitions[0].schema.root",
		},
		"a missing root rejects": {
			root: ``, wantErr: fault.ErrMissing, wantPath: "spec.definitions[0].schema.root",
		},
		"a valid nested tree converts": {
			root: `{"kind":"object","fields":[{"name":"l","requirement":"optional","type":{"kind":"array","items":{"kind":"resourceID"}}}]}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := v1alpha1.ToolRegistrySpec{SnapshotID: "r", SnapshotGeneration: "1", Definitions: []v1alpha1.ToolDefinition{{
				ID: "d", ToolID: "a.b", Version: "1",
				Schema: v1alpha1.ToolSchema{ID: "s", Version: "v1", Root: apiextensionsv1.JSON{Raw: []byte(tc.root)}},
			}}}
			_, err := manifest.RegistryDraft(spec)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			testutil.CheckNoEcho(t, err, "secret")
		})
	}
}

// TestSchemaDraftKeepsEveryAttribute: the decoded draft carries exactly the
// declared attributes, so the engine (not the adapter) judges them.
func TestSchemaDraftKeepsEveryAttribute(t *testing.T) {
	t.Parallel()
	got, err := manifest.SchemaDraft([]byte(`{"kind":"object","fields":[` +
		`{"name":"c","requirement":"required","type":{"kind":"enumeration","cases":["y","x"]}},` +
		`{"type":{"kind":"array","items":{"kind":"string"}},"requirement":"optional","name":"l"}]}`))
	if err != nil {
		t.Fatalf("SchemaDraft: %v", err)
	}
	want := schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
		{Name: "c", Requirement: "required", Type: schema.Draft{Kind: "enumeration", Cases: []string{"y", "x"}}},
		{Name: "l", Requirement: "optional", Type: schema.Draft{Kind: "array", Items: &schema.Draft{Kind: "string"}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SchemaDraft (-want +got):\n%s", diff)
	}
}

// TestLoadPathsSkipsKustomizeFiles: a directory kubectl apply -k installs
// also holds kustomize's own file and a Namespace; directory loading skips
// exactly those, and anything else that is not a toolgate document still
// rejects.
func TestLoadPathsSkipsKustomizeFiles(t *testing.T) {
	t.Parallel()
	const kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [ns.yaml, r.yaml]\n"
	const namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n"
	write := func(t *testing.T, files map[string]string) string {
		t.Helper()
		dir := t.TempDir()
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dir := write(t, map[string]string{
		"kustomization.yaml": kustomization,
		"ns.yaml":            namespace,
		"r.yaml":             spec(definition(`"1"`, "{kind: object}")),
	})
	set, err := manifest.LoadPaths(dir)
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	if len(set.ToolRegistries) != 1 {
		t.Errorf("loaded %d ToolRegistry objects, want 1", len(set.ToolRegistries))
	}
	cases := map[string]struct {
		paths    func(dir string) []string
		files    map[string]string
		wantText string
	}{
		"a kustomization named explicitly is read and rejects": {
			files:    map[string]string{"kustomization.yaml": kustomization},
			paths:    func(dir string) []string { return []string{filepath.Join(dir, "kustomization.yaml")} },
			wantText: "apiVersion must be stk.toolgate.dev/v1alpha1",
		},
		"another core kind rejects": {
			files:    map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"},
			wantText: "apiVersion must be stk.toolgate.dev/v1alpha1",
		},
		"a Namespace of another apiVersion rejects": {
			files:    map[string]string{"ns.yaml": strings.Replace(namespace, "apiVersion: v1", "apiVersion: v2", 1)},
			wantText: "apiVersion must be stk.toolgate.dev/v1alpha1",
		},
		"another file name kustomize does not read is a manifest": {
			files:    map[string]string{"kustomization-extra.yaml": kustomization},
			wantText: "apiVersion must be stk.toolgate.dev/v1alpha1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := write(t, tc.files)
			paths := []string{dir}
			if tc.paths != nil {
				paths = tc.paths(dir)
			}
			_, err := manifest.LoadPaths(paths...)
			if err == nil || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("LoadPaths = %v, want an error naming %q", err, tc.wantText)
			}
		})
	}
}
