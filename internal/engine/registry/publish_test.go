package registry_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// threeDefinitions returns three valid, distinct definitions; tests break
// the one at index 2 so that error paths carry a non-zero index.
func threeDefinitions() []registry.DefinitionDraft {
	return []registry.DefinitionDraft{
		testutil.Definition("accounts-lookup-1", "accounts.lookup", "1"),
		testutil.Definition("payments-refund-1", "payments.refund", "1"),
		testutil.PaymentsDefinition(),
	}
}

func mustToolID(t testing.TB, s string) ident.ToolID {
	t.Helper()
	id, err := ident.ParseToolID(s)
	if err != nil {
		t.Fatalf("ParseToolID: %v", err)
	}
	return id
}

func mustGeneration(t testing.TB, s string) ident.Generation {
	t.Helper()
	g, err := ident.ParseGeneration(s)
	if err != nil {
		t.Fatalf("ParseGeneration: %v", err)
	}
	return g
}

// toolIDOfLength returns a valid-segment Tool Identifier of n octets
// (98 < n <= 131): three 32-octet segments and one of the rest.
func toolIDOfLength(n int) string {
	s := strings.Repeat("a", 32)
	return s + "." + s + "." + s + "." + strings.Repeat("b", n-3*32-3)
}

// TestPublishValidatesEveryDefinitionField proves Section 9 and 39
// publication rules field by field: each case breaks one field of
// definitions[2] and expects the closed code and the exact path.
func TestPublishValidatesEveryDefinitionField(t *testing.T) {
	t.Parallel()
	seventeen := make([]string, 17)
	for i := range seventeen {
		seventeen[i] = "data.read"
	}
	cases := map[string]struct {
		modify   func(*registry.DefinitionDraft)
		wantErr  error
		wantPath string
	}{
		"a definition identity is required": {
			modify:   func(d *registry.DefinitionDraft) { d.ID = "" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].id",
		},
		"a definition identity is lowercase with no underscore": {
			modify:   func(d *registry.DefinitionDraft) { d.ID = "Payments_Submit" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].id",
		},
		"a definition identity is at most 64 octets": {
			modify:   func(d *registry.DefinitionDraft) { d.ID = strings.Repeat("a", 65) },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].id",
		},
		"a definition identity of exactly 64 octets is accepted": {
			modify: func(d *registry.DefinitionDraft) { d.ID = strings.Repeat("a", 64) },
		},
		"a tool identifier has at least two segments": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = "payments" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier is not case folded": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = "Payments.Submit" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier is not trimmed": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = " payments.submit" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier has at most eight segments": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = "a.b.c.d.e.f.g.h.i" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier segment is at most 32 octets": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = "payments." + strings.Repeat("s", 33) },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier segment does not end with a hyphen": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = "payments-.submit" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier has no empty segment": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = "payments..submit" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier is at most 128 octets": {
			modify:   func(d *registry.DefinitionDraft) { d.ToolID = toolIDOfLength(129) },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].toolID",
		},
		"a tool identifier of exactly 128 octets is accepted": {
			modify: func(d *registry.DefinitionDraft) { d.ToolID = toolIDOfLength(128) },
		},
		"a tool identifier of eight segments is accepted": {
			modify: func(d *registry.DefinitionDraft) { d.ToolID = "a.b.c.d.e.f.g.h" },
		},
		"a tool version is positive": {
			modify:   func(d *registry.DefinitionDraft) { d.Version = "0" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].version",
		},
		"a tool version has no leading zero": {
			modify:   func(d *registry.DefinitionDraft) { d.Version = "01" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].version",
		},
		"a tool version is not a v-prefixed label": {
			modify:   func(d *registry.DefinitionDraft) { d.Version = "v1" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].version",
		},
		"a tool version fits an unsigned 64-bit generation": {
			modify:   func(d *registry.DefinitionDraft) { d.Version = "18446744073709551616" },
			wantErr:  fault.ErrOutOfRange,
			wantPath: "definitions[2].version",
		},
		"the largest unsigned 64-bit tool version is accepted": {
			modify: func(d *registry.DefinitionDraft) { d.Version = "18446744073709551615" },
		},
		"a lifecycle is an exact Section 48 token": {
			modify:   func(d *registry.DefinitionDraft) { d.Lifecycle = "Active" },
			wantErr:  fault.ErrUnknownToken,
			wantPath: "definitions[2].lifecycle",
		},
		"a risk is required": {
			modify:   func(d *registry.DefinitionDraft) { d.Risk = "" },
			wantErr:  fault.ErrUnknownToken,
			wantPath: "definitions[2].risk",
		},
		"a side effect is an exact Section 48 token": {
			modify:   func(d *registry.DefinitionDraft) { d.SideEffect = "write" },
			wantErr:  fault.ErrUnknownToken,
			wantPath: "definitions[2].sideEffect",
		},
		"a reversibility is an exact Section 48 token": {
			modify:   func(d *registry.DefinitionDraft) { d.Reversibility = "undoable" },
			wantErr:  fault.ErrUnknownToken,
			wantPath: "definitions[2].reversibility",
		},
		"zero capabilities are not accepted": {
			modify:   func(d *registry.DefinitionDraft) { d.Capabilities = nil },
			wantErr:  fault.ErrMissing,
			wantPath: "definitions[2].capabilities",
		},
		"capabilities are unique": {
			modify:   func(d *registry.DefinitionDraft) { d.Capabilities = []string{"data.read", "data.write", "data.read"} },
			wantErr:  fault.ErrDuplicate,
			wantPath: "definitions[2].capabilities[2]",
		},
		"seventeen capabilities exceed the limit of sixteen": {
			modify:   func(d *registry.DefinitionDraft) { d.Capabilities = seventeen },
			wantErr:  fault.ErrLimitExceeded,
			wantPath: "definitions[2].capabilities",
		},
		"an unknown capability token rejects": {
			modify:   func(d *registry.DefinitionDraft) { d.Capabilities = []string{"data.read", "data.admin"} },
			wantErr:  fault.ErrUnknownToken,
			wantPath: "definitions[2].capabilities[1]",
		},
		"every Section 48 capability at once is accepted": {
			modify: func(d *registry.DefinitionDraft) { d.Capabilities = testutil.Capabilities(5) },
		},
		"a title is required": {
			modify:   func(d *registry.DefinitionDraft) { d.Title = "" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].title",
		},
		"a title does not start with a space": {
			modify:   func(d *registry.DefinitionDraft) { d.Title = " Submit" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].title",
		},
		"a title is printable ASCII": {
			modify:   func(d *registry.DefinitionDraft) { d.Title = "Submit\ta payment" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].title",
		},
		"a title is at most 80 octets": {
			modify:   func(d *registry.DefinitionDraft) { d.Title = strings.Repeat("t", 81) },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].title",
		},
		"a title of exactly 80 octets is accepted": {
			modify: func(d *registry.DefinitionDraft) { d.Title = strings.Repeat("t", 80) },
		},
		"a summary is required": {
			modify:   func(d *registry.DefinitionDraft) { d.Summary = "" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].summary",
		},
		"a summary does not end with a space": {
			modify:   func(d *registry.DefinitionDraft) { d.Summary = "Submits. " },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].summary",
		},
		"a summary is at most 240 octets": {
			modify:   func(d *registry.DefinitionDraft) { d.Summary = strings.Repeat("s", 241) },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].summary",
		},
		"a summary of exactly 240 octets is accepted": {
			modify: func(d *registry.DefinitionDraft) { d.Summary = strings.Repeat("s", 240) },
		},
		"a present docRef follows its grammar": {
			modify:   func(d *registry.DefinitionDraft) { d.DocRef = "Payments Submit" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].docRef",
		},
		"a present docRef does not start with a dot": {
			modify:   func(d *registry.DefinitionDraft) { d.DocRef = ".payments" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].docRef",
		},
		"a present docRef is at most 64 octets": {
			modify:   func(d *registry.DefinitionDraft) { d.DocRef = strings.Repeat("d", 65) },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].docRef",
		},
		"a schema identity is required": {
			modify:   func(d *registry.DefinitionDraft) { d.Schema.ID = "" },
			wantErr:  fault.ErrMalformed,
			wantPath: "definitions[2].schema.id",
		},
		"a schema version is exactly v1": {
			modify:   func(d *registry.DefinitionDraft) { d.Schema.Version = "v2" },
			wantErr:  fault.ErrUnsupported,
			wantPath: "definitions[2].schema.version",
		},
		"a schema root is an object": {
			modify:   func(d *registry.DefinitionDraft) { d.Schema.Root = schema.Draft{Kind: "string"} },
			wantErr:  fault.ErrUnsupported,
			wantPath: "definitions[2].schema.root.kind",
		},
		"a schema root kind is a Section 48 token": {
			modify:   func(d *registry.DefinitionDraft) { d.Schema.Root = schema.Draft{Kind: "map"} },
			wantErr:  fault.ErrUnknownToken,
			wantPath: "definitions[2].schema.root.kind",
		},
		"schema field names are unique": {
			modify: func(d *registry.DefinitionDraft) {
				d.Schema.Root.Fields = append(d.Schema.Root.Fields, testutil.Field("amount", "optional", schema.Draft{Kind: "bool"}))
			},
			wantErr:  fault.ErrDuplicate,
			wantPath: "definitions[2].schema.root.fields[8].name",
		},
		"a schema field requirement is required or optional": {
			modify:   func(d *registry.DefinitionDraft) { d.Schema.Root.Fields[3].Requirement = "recommended" },
			wantErr:  fault.ErrUnknownToken,
			wantPath: "definitions[2].schema.root.fields[3].requirement",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defs := threeDefinitions()
			tc.modify(&defs[2])
			snap, err := registry.Publish(testutil.RegistryDraft(defs...))
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if tc.wantErr != nil && snap != nil {
				t.Errorf("Publish returned a snapshot with an error; publication is all-or-nothing")
			}
			if tc.wantErr == nil && (snap == nil || snap.Len() != 3) {
				t.Errorf("Publish = %v, want a snapshot of 3 definitions", snap)
			}
		})
	}
}

func TestPublishValidatesSnapshotIdentityAndGeneration(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		id, generation string
		wantErr        error
		wantPath       string
	}{
		"a snapshot identity is required":        {id: "", generation: "1", wantErr: fault.ErrMalformed, wantPath: "id"},
		"a snapshot identity is exact lowercase": {id: "Primary-Registry", generation: "1", wantErr: fault.ErrMalformed, wantPath: "id"},
		"a snapshot generation is positive":      {id: "primary-registry", generation: "0", wantErr: fault.ErrMalformed, wantPath: "generation"},
		"a snapshot generation is canonical decimal text": {
			id: "primary-registry", generation: "+1", wantErr: fault.ErrMalformed, wantPath: "generation",
		},
		"a snapshot generation is required": {id: "primary-registry", generation: "", wantErr: fault.ErrMalformed, wantPath: "generation"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			snap, err := registry.Publish(registry.Draft{ID: tc.id, Generation: tc.generation, Definitions: threeDefinitions()})
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if snap != nil {
				t.Errorf("Publish returned a snapshot with an error")
			}
		})
	}
}

// TestPublishDefinitionCountLimit proves the Section 39 row "Definitions per
// Registry Snapshot": 0–1,024 inclusive, zero accepted, 1,025 rejected
// without a partial Snapshot.
func TestPublishDefinitionCountLimit(t *testing.T) {
	t.Parallel()
	many := func(n int) []registry.DefinitionDraft {
		defs := make([]registry.DefinitionDraft, n)
		for i := range defs {
			defs[i] = testutil.Definition(fmt.Sprintf("def-%04d", i), fmt.Sprintf("tool.t%04d", i), "1")
		}
		return defs
	}
	cases := map[string]struct {
		n        int
		wantErr  error
		wantPath string
	}{
		"zero definitions are accepted":                    {n: 0},
		"exactly 1024 definitions are accepted":            {n: registry.MaxDefinitions},
		"1025 definitions exceed the limit and all reject": {n: registry.MaxDefinitions + 1, wantErr: fault.ErrLimitExceeded, wantPath: "definitions"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			snap, err := registry.Publish(testutil.RegistryDraft(many(tc.n)...))
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			switch {
			case tc.wantErr != nil && snap != nil:
				t.Errorf("Publish returned a partial snapshot of %d definitions", snap.Len())
			case tc.wantErr == nil && (snap == nil || snap.Len() != tc.n):
				t.Errorf("Publish = %v, want %d definitions", snap, tc.n)
			}
		})
	}
}

// TestEmptySnapshotLookupFailsClosed: a zero-definition snapshot publishes,
// and every lookup then fails closed with NotFound (Section 39).
func TestEmptySnapshotLookupFailsClosed(t *testing.T) {
	t.Parallel()
	snap := testutil.Publish(t, testutil.RegistryDraft())
	for _, tool := range []string{"payments.submit", "accounts.lookup", "a.b"} {
		for _, v := range []string{"1", "2", "18446744073709551615"} {
			res, err := snap.Lookup(mustToolID(t, tool), mustGeneration(t, v))
			testutil.CheckFault(t, err, fault.ErrNotFound, "")
			if !res.IsZero() {
				t.Errorf("Lookup(%s, %s) returned a resolution from an empty snapshot", tool, v)
			}
		}
	}
}

// TestCapabilitiesAreASortedCopy: capabilities are accepted in any order and
// returned in Section 48 ASCII order; the returned slice is a copy.
func TestCapabilitiesAreASortedCopy(t *testing.T) {
	t.Parallel()
	snap := testutil.Publish(t, testutil.RegistryDraft(testutil.Definition("d-1", "a.b", "1",
		func(d *registry.DefinitionDraft) {
			d.Capabilities = []string{"resource.delete", "financial.transfer", "communication.external", "data.read"}
		})))
	def := snap.Definition(0)
	want := []vocab.Capability{vocab.CommunicationExternal, vocab.DataRead, vocab.FinancialTransfer, vocab.ResourceDelete}
	got := def.Capabilities()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Capabilities (-want +got):\n%s", diff)
	}
	got[0] = vocab.DataWrite
	if diff := cmp.Diff(want, def.Capabilities()); diff != "" {
		t.Errorf("mutating the returned slice changed the definition (-want +got):\n%s", diff)
	}
}

// TestDocRefEmptyInTheDraftMeansAbsent documents that a DefinitionDraft
// cannot express a present-but-empty docRef: "" is absence, which the
// definition reports as a zero DocRef and which is different content from
// any present docRef.
func TestDocRefEmptyInTheDraftMeansAbsent(t *testing.T) {
	t.Parallel()
	absent := testutil.Publish(t, testutil.RegistryDraft(testutil.Definition("d-1", "a.b", "1"))).Definition(0)
	present := testutil.Publish(t, testutil.RegistryDraft(testutil.Definition("d-1", "a.b", "1",
		func(d *registry.DefinitionDraft) { d.DocRef = "a.b-v1" }))).Definition(0)

	if !absent.DocRef().IsZero() || absent.DocRef().String() != "" {
		t.Errorf("DocRef of an empty draft docRef = %q, want absent", absent.DocRef())
	}
	if present.DocRef().IsZero() || present.DocRef().String() != "a.b-v1" {
		t.Errorf("DocRef = %q, want present a.b-v1", present.DocRef())
	}
	if absent.Equal(present) {
		t.Error("an absent and a present docRef compare equal")
	}
}

func TestPublishRejectsDuplicateAndAmbiguousDefinitions(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		defs     []registry.DefinitionDraft
		wantErr  error
		wantPath string
	}{
		"two definitions with one identity reject": {
			defs: []registry.DefinitionDraft{
				testutil.Definition("shared-id", "a.b", "1"),
				testutil.Definition("shared-id", "c.d", "1"),
			},
			wantErr:  fault.ErrDuplicate,
			wantPath: "definitions[1].id",
		},
		"one tool identifier and version with two definition identities is an ambiguous resolution": {
			defs: []registry.DefinitionDraft{
				testutil.Definition("a-b-first", "a.b", "7"),
				testutil.Definition("a-b-second", "a.b", "7"),
			},
			wantErr:  fault.ErrDuplicate,
			wantPath: "definitions[1]",
		},
		"an ambiguous resolution rejects whatever the input order": {
			defs: []registry.DefinitionDraft{
				testutil.Definition("z-def", "a.b", "7"),
				testutil.Definition("other", "x.y", "1"),
				testutil.Definition("a-def", "a.b", "7"),
			},
			wantErr:  fault.ErrDuplicate,
			wantPath: "definitions[0]",
		},
		"one tool identifier at two versions is not ambiguous": {
			defs: []registry.DefinitionDraft{
				testutil.Definition("a-b-1", "a.b", "1"),
				testutil.Definition("a-b-2", "a.b", "2"),
			},
		},
		"two tool identifiers at one version are not ambiguous": {
			defs: []registry.DefinitionDraft{
				testutil.Definition("a-b-1", "a.b", "1"),
				testutil.Definition("a-c-1", "a.c", "1"),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			snap, err := registry.Publish(testutil.RegistryDraft(tc.defs...))
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if tc.wantErr != nil && snap != nil {
				t.Error("Publish returned a snapshot with an error")
			}
		})
	}
}

// TestPublishIsAllOrNothing: one bad definition among good ones yields no
// snapshot at all (Section 9: never a partial Snapshot).
func TestPublishIsAllOrNothing(t *testing.T) {
	t.Parallel()
	for bad := range 5 {
		t.Run(fmt.Sprintf("bad definition at index %d", bad), func(t *testing.T) {
			t.Parallel()
			defs := make([]registry.DefinitionDraft, 5)
			for i := range defs {
				defs[i] = testutil.Definition(fmt.Sprintf("def-%d", i), fmt.Sprintf("tool.t%d", i), "1")
			}
			defs[bad].Capabilities = nil
			snap, err := registry.Publish(testutil.RegistryDraft(defs...))
			testutil.CheckFault(t, err, fault.ErrMissing, fmt.Sprintf("definitions[%d].capabilities", bad))
			if snap != nil {
				t.Errorf("Publish returned a snapshot of %d definitions", snap.Len())
			}
		})
	}
}

// TestPublishErrorsNeverEchoInvalidValues proves Section 38 for publication:
// the rejection text names the field and the rule, never the rejected value.
func TestPublishErrorsNeverEchoInvalidValues(t *testing.T) {
	t.Parallel()
	const secret = "secret-value-123"
	bad := map[string]func(*registry.DefinitionDraft){
		"id":             func(d *registry.DefinitionDraft) { d.ID = "Secret-Value-123" },
		"toolID":         func(d *registry.DefinitionDraft) { d.ToolID = secret },
		"version":        func(d *registry.DefinitionDraft) { d.Version = secret },
		"lifecycle":      func(d *registry.DefinitionDraft) { d.Lifecycle = secret },
		"risk":           func(d *registry.DefinitionDraft) { d.Risk = secret },
		"sideEffect":     func(d *registry.DefinitionDraft) { d.SideEffect = secret },
		"reversibility":  func(d *registry.DefinitionDraft) { d.Reversibility = secret },
		"capability":     func(d *registry.DefinitionDraft) { d.Capabilities = []string{secret} },
		"title":          func(d *registry.DefinitionDraft) { d.Title = secret + "\x00" },
		"summary":        func(d *registry.DefinitionDraft) { d.Summary = " " + secret },
		"docRef":         func(d *registry.DefinitionDraft) { d.DocRef = secret + "!" },
		"schema id":      func(d *registry.DefinitionDraft) { d.Schema.ID = secret + "_" },
		"schema version": func(d *registry.DefinitionDraft) { d.Schema.Version = secret },
		"root kind":      func(d *registry.DefinitionDraft) { d.Schema.Root.Kind = secret },
		"field name": func(d *registry.DefinitionDraft) {
			d.Schema.Root.Fields[0].Name = "Secret-Value-123"
		},
		"field requirement": func(d *registry.DefinitionDraft) { d.Schema.Root.Fields[0].Requirement = secret },
		"enumeration case": func(d *registry.DefinitionDraft) {
			d.Schema.Root.Fields[1].Type.Cases = []string{"Secret-Value-123"}
		},
	}
	for name, modify := range bad {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			defs := threeDefinitions()
			modify(&defs[2])
			_, err := registry.Publish(testutil.RegistryDraft(defs...))
			if err == nil {
				t.Fatal("Publish accepted an invalid draft")
			}
			testutil.CheckNoEcho(t, err, secret)
		})
	}
}
