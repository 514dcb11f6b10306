package schema_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

func TestNewRejects(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 65)
	cases := map[string]struct {
		draft    schema.Draft
		wantErr  error
		wantPath string
	}{
		"string root rejects because v1 roots are objects": {
			draft: str(), wantErr: fault.ErrUnsupported, wantPath: "kind",
		},
		"array root rejects because v1 roots are objects": {
			draft: array(str()), wantErr: fault.ErrUnsupported, wantPath: "kind",
		},
		"unknown root kind token rejects": {
			draft: schema.Draft{Kind: "map"}, wantErr: fault.ErrUnknownToken, wantPath: "kind",
		},
		"empty root kind token rejects": {
			draft: schema.Draft{}, wantErr: fault.ErrUnknownToken, wantPath: "kind",
		},
		"kind tokens are case-sensitive": {
			draft: object(req("a", schema.Draft{Kind: "String"})), wantErr: fault.ErrUnknownToken, wantPath: "fields[0].type.kind",
		},
		"floating point is not a kind": {
			draft: object(req("a", str()), req("b", schema.Draft{Kind: "number"})), wantErr: fault.ErrUnknownToken, wantPath: "fields[1].type.kind",
		},
		"null is not a kind": {
			draft: object(req("a", schema.Draft{Kind: "null"})), wantErr: fault.ErrUnknownToken, wantPath: "fields[0].type.kind",
		},
		"cases on a string reject": {
			draft:   object(req("a", schema.Draft{Kind: "string", Cases: []string{"x"}})),
			wantErr: fault.ErrMalformed, wantPath: "fields[0].type.cases",
		},
		"an explicitly empty cases list on a string rejects": {
			draft:   object(req("a", schema.Draft{Kind: "string", Cases: []string{}})),
			wantErr: fault.ErrMalformed, wantPath: "fields[0].type.cases",
		},
		"items on an object reject": {
			draft:   object(req("a", schema.Draft{Kind: "object", Items: &schema.Draft{Kind: "string"}})),
			wantErr: fault.ErrMalformed, wantPath: "fields[0].type.items",
		},
		"fields on an array reject": {
			draft:   object(req("a", schema.Draft{Kind: "array", Items: &schema.Draft{Kind: "string"}, Fields: []schema.FieldDraft{}})),
			wantErr: fault.ErrMalformed, wantPath: "fields[0].type.fields",
		},
		"cases on the root object reject": {
			draft:   schema.Draft{Kind: "object", Cases: []string{"x"}},
			wantErr: fault.ErrMalformed, wantPath: "cases",
		},
		"enumeration with no cases rejects": {
			draft: object(req("a", enum())), wantErr: fault.ErrMissing, wantPath: "fields[0].type.cases",
		},
		"enumeration with 65 cases rejects": {
			draft: object(req("a", enum(manyCases(65)...))), wantErr: fault.ErrLimitExceeded, wantPath: "fields[0].type.cases",
		},
		"malformed case rejects at its index": {
			draft:   object(req("a", str()), req("b", str()), req("c", enum("a", "b", "c", "d", "e", "Bad"))),
			wantErr: fault.ErrMalformed, wantPath: "fields[2].type.cases[5]",
		},
		"case of 65 octets rejects": {
			draft: object(req("a", enum("x", long))), wantErr: fault.ErrMalformed, wantPath: "fields[0].type.cases[1]",
		},
		"case with a trailing space rejects": {
			draft: object(req("a", enum("usd "))), wantErr: fault.ErrMalformed, wantPath: "fields[0].type.cases[0]",
		},
		"duplicate case rejects at the later index": {
			draft: object(req("a", enum("b", "a", "c", "a"))), wantErr: fault.ErrDuplicate, wantPath: "fields[0].type.cases[3]",
		},
		"array without items rejects": {
			draft: object(req("a", schema.Draft{Kind: "array"})), wantErr: fault.ErrMissing, wantPath: "fields[0].type.items",
		},
		"empty field name rejects": {
			draft: object(req("", str())), wantErr: fault.ErrMalformed, wantPath: "fields[0].name",
		},
		"field name of 65 octets rejects": {
			draft: object(req("a", str()), req(long, str())), wantErr: fault.ErrMalformed, wantPath: "fields[1].name",
		},
		"uppercase field name rejects": {
			draft: object(req("Amount", str())), wantErr: fault.ErrMalformed, wantPath: "fields[0].name",
		},
		"field name with an underscore rejects": {
			draft: object(req("account_id", str())), wantErr: fault.ErrMalformed, wantPath: "fields[0].name",
		},
		"duplicate field name rejects at the later index": {
			draft:   object(req("b", str()), req("a", str()), opt("b", signed())),
			wantErr: fault.ErrDuplicate, wantPath: "fields[2].name",
		},
		"unknown requirement token rejects": {
			draft:   object(schema.FieldDraft{Name: "a", Requirement: "Required", Type: str()}),
			wantErr: fault.ErrUnknownToken, wantPath: "fields[0].requirement",
		},
		"absent requirement rejects rather than defaulting": {
			draft:   object(schema.FieldDraft{Name: "a", Type: str()}),
			wantErr: fault.ErrUnknownToken, wantPath: "fields[0].requirement",
		},
		"65 root fields reject": {
			draft: object(manyFields(65, str())...), wantErr: fault.ErrLimitExceeded, wantPath: "fields",
		},
		"65 nested fields reject": {
			draft:   object(req("a", array(object(manyFields(65, str())...)))),
			wantErr: fault.ErrLimitExceeded, wantPath: "fields[0].type.items.fields",
		},
		"depth 9 rejects at the first node below level 8": {
			draft:   chain(9),
			wantErr: fault.ErrLimitExceeded, wantPath: "fields[0].type.fields[0].type.fields[0].type.fields[0].type.fields[0].type.fields[0].type.fields[0].type.fields[0].type",
		},
		"array items count as a level": {
			draft:   object(req("a", array(array(array(array(array(array(array(str()))))))))),
			wantErr: fault.ErrLimitExceeded, wantPath: "fields[0].type.items.items.items.items.items.items.items",
		},
		"257 nodes reject": {
			draft: withNodes(257), wantErr: fault.ErrLimitExceeded, wantPath: "fields[3].type.fields[62].type",
		},
		"error paths use indices through arrays and objects": {
			draft: object(req("a", str()), req("b", str()), req("c", str()),
				req("d", array(object(req("Bad", str()))))),
			wantErr: fault.ErrMalformed, wantPath: "fields[3].type.items.fields[0].name",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := schema.New(testID, vocab.V1, tc.draft)
			testutil.RequireFault(t, err, tc.wantErr, tc.wantPath)
			if !s.IsZero() {
				t.Error("a rejected draft must return the zero Schema")
			}
		})
	}
}

func TestNewRejectsVersionAndIdentity(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		id       ident.SchemaID
		version  vocab.Version
		wantErr  error
		wantPath string
	}{
		"version 2 is unsupported":  {id: testID, version: 2, wantErr: fault.ErrUnsupported, wantPath: "version"},
		"version 0 is unsupported":  {id: testID, version: 0, wantErr: fault.ErrUnsupported, wantPath: "version"},
		"zero identity rejects":     {version: vocab.V1, wantErr: fault.ErrMissing, wantPath: "id"},
		"identity and v1 construct": {id: testID, version: vocab.V1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := schema.New(tc.id, tc.version, object())
			testutil.RequireFault(t, err, tc.wantErr, tc.wantPath)
			if s.IsZero() != (tc.wantErr != nil) {
				t.Errorf("IsZero = %v with error %v", s.IsZero(), err)
			}
		})
	}
}

func TestNewLimitsAtTheBound(t *testing.T) {
	t.Parallel()
	max64 := strings.Repeat("z", 64)
	cases := map[string]struct {
		draft     schema.Draft
		wantNodes int
		wantDepth int
	}{
		"empty root object is a one-node, one-level schema": {draft: object(), wantNodes: 1, wantDepth: 1},
		"64 root fields":                        {draft: object(manyFields(64, str())...), wantNodes: 65, wantDepth: 2},
		"64 enumeration cases":                  {draft: object(req("a", enum(manyCases(64)...))), wantNodes: 2, wantDepth: 2},
		"one enumeration case":                  {draft: object(req("a", enum("only"))), wantNodes: 2, wantDepth: 2},
		"field name and case of 64 octets":      {draft: object(req(max64, enum(max64))), wantNodes: 2, wantDepth: 2},
		"depth 8 counting the root":             {draft: chain(8), wantNodes: 8, wantDepth: 8},
		"256 nodes counting the root":           {draft: withNodes(256), wantNodes: 256, wantDepth: 3},
		"array items count as nodes and levels": {draft: object(req("a", array(array(str())))), wantNodes: 4, wantDepth: 4},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mustNew(t, tc.draft)
			if s.Nodes() != tc.wantNodes || s.Depth() != tc.wantDepth {
				t.Errorf("Nodes, Depth = %d, %d, want %d, %d", s.Nodes(), s.Depth(), tc.wantNodes, tc.wantDepth)
			}
		})
	}
}

func TestNewRejectsOversizedDraftsWithoutUnboundedWork(t *testing.T) {
	t.Parallel()
	cyclic := schema.Draft{Kind: "array"}
	cyclic.Items = &cyclic
	wide := make([]string, 1_000_000)
	cases := map[string]struct {
		draft    schema.Draft
		wantPath string
	}{
		"a million fields":         {draft: object(manyFields(1_000_000, str())...), wantPath: "fields"},
		"a million cases":          {draft: object(req("a", enum(wide...))), wantPath: "fields[0].type.cases"},
		"a cycle through items":    {draft: object(req("a", cyclic)), wantPath: "fields[0].type" + strings.Repeat(".items", 7)},
		"a million nodes in width": {draft: object(manyFields(64, object(manyFields(64, object(manyFields(64, str())...))...))...), wantPath: "fields[0].type.fields[3].type.fields[58].type"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The path proves where New stopped: at the first bound crossed,
			// before iterating the rest of the draft (or looping forever).
			_, err := schema.New(testID, vocab.V1, tc.draft)
			testutil.RequireFault(t, err, fault.ErrLimitExceeded, tc.wantPath)
		})
	}
}

func TestNewNormalizesOrder(t *testing.T) {
	t.Parallel()
	s := mustNew(t, object(
		req("zeta", enum("gbp", "chf", "usd")),
		opt("alpha", array(object(opt("y", str()), req("x", boolean())))),
		req("mid", resource()),
	))
	want := object(
		opt("alpha", array(object(req("x", boolean()), opt("y", str())))),
		req("mid", resource()),
		req("zeta", enum("chf", "gbp", "usd")),
	)
	if diff := cmp.Diff(want, s.Draft()); diff != "" {
		t.Errorf("Draft() mismatch (-want +got):\n%s", diff)
	}
}

func TestDraftRoundTripGivesAnEqualSchema(t *testing.T) {
	t.Parallel()
	cases := map[string]schema.Draft{
		"rich schema":    richDraft(),
		"empty object":   object(),
		"256 nodes":      withNodes(256),
		"depth 8":        chain(8),
		"nil root field": {Kind: "object"},
	}
	for name, d := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mustNew(t, d)
			again, err := schema.New(s.ID(), s.Version(), s.Draft())
			if err != nil {
				t.Fatalf("New(Draft()): %v", err)
			}
			if !s.Equal(again) || s.Digest() != again.Digest() {
				t.Error("New(s.ID(), s.Version(), s.Draft()) is not Equal to s")
			}
			if diff := cmp.Diff(s.Draft(), again.Draft()); diff != "" {
				t.Errorf("Draft() not stable (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEqualComparesCompleteContent(t *testing.T) {
	t.Parallel()
	base := func() schema.Draft {
		return object(
			req("amount", unsigned()),
			req("currency", enum("chf", "usd")),
			opt("accounts", array(resource())),
		)
	}
	cases := map[string]struct {
		id        ident.SchemaID
		draft     schema.Draft
		wantEqual bool
	}{
		"identical content": {draft: base(), wantEqual: true},
		"fields and cases written in another order": {
			draft:     object(opt("accounts", array(resource())), req("currency", enum("usd", "chf")), req("amount", unsigned())),
			wantEqual: true,
		},
		"another identity with the same content": {id: mustID("other"), draft: base()},
		"a field kind differs": {
			draft: object(req("amount", signed()), req("currency", enum("chf", "usd")), opt("accounts", array(resource()))),
		},
		"a requirement differs": {
			draft: object(opt("amount", unsigned()), req("currency", enum("chf", "usd")), opt("accounts", array(resource()))),
		},
		"a case differs": {
			draft: object(req("amount", unsigned()), req("currency", enum("chf", "eur")), opt("accounts", array(resource()))),
		},
		"a case is added": {
			draft: object(req("amount", unsigned()), req("currency", enum("chf", "eur", "usd")), opt("accounts", array(resource()))),
		},
		"a field name differs": {
			draft: object(req("amount", unsigned()), req("currency", enum("chf", "usd")), opt("account", array(resource()))),
		},
		"an item type differs (resource vs string)": {
			draft: object(req("amount", unsigned()), req("currency", enum("chf", "usd")), opt("accounts", array(str()))),
		},
		"an optional field is added": {
			draft: object(req("amount", unsigned()), req("currency", enum("chf", "usd")), opt("accounts", array(resource())), opt("memo", str())),
		},
	}
	a := mustNew(t, base())
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			id := testID
			if !tc.id.IsZero() {
				id = tc.id
			}
			b, err := schema.New(id, vocab.V1, tc.draft)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := a.Equal(b); got != tc.wantEqual {
				t.Errorf("Equal = %v, want %v", got, tc.wantEqual)
			}
			if got := a.Digest() == b.Digest(); got != tc.wantEqual {
				t.Errorf("digest equality = %v, want %v", got, tc.wantEqual)
			}
		})
	}
}

func TestNewDoesNotRetainTheDraft(t *testing.T) {
	t.Parallel()
	d := object(req("b", enum("y", "x")), req("a", array(str())))
	s := mustNew(t, d)
	before := s.Digest()
	d.Fields[0].Name = "c"
	d.Fields[0].Type.Cases[0] = "z"
	d.Fields[1].Type.Items.Kind = "bool"
	if s.Digest() != before {
		t.Fatal("mutating the draft after New changed the Schema")
	}
	got := s.Draft()
	got.Fields[0].Name = "q"
	got.Fields[1].Type.Cases[0] = "q"
	if s.Digest() != before || s.Draft().Fields[0].Name != "a" || s.Draft().Fields[1].Type.Cases[0] != "x" {
		t.Fatal("mutating Draft() output changed the Schema")
	}
}

func TestSchemaAccessors(t *testing.T) {
	t.Parallel()
	s := mustNew(t, richDraft())
	if s.ID() != testID || s.Version() != vocab.V1 || s.IsZero() || s.Digest().IsZero() {
		t.Errorf("ID, Version, IsZero, Digest = %v, %v, %v, %v", s.ID(), s.Version(), s.IsZero(), s.Digest())
	}
	if !s.HasResources() {
		t.Error("rich schema has resourceID nodes; HasResources = false")
	}
	if mustNew(t, object(req("a", str()), req("b", array(enum("x"))))).HasResources() {
		t.Error("schema without resourceID nodes reports HasResources")
	}
	nested := mustNew(t, object(opt("a", array(object(opt("b", resource()))))))
	if !nested.HasResources() {
		t.Error("a resourceID nested in an array of objects must count")
	}
	var zero schema.Schema
	if !zero.IsZero() || zero.HasResources() || zero.Nodes() != 0 || !zero.Digest().IsZero() {
		t.Error("zero Schema must be empty")
	}
	if diff := cmp.Diff(schema.Draft{}, zero.Draft()); diff != "" {
		t.Errorf("zero Draft() (-want +got):\n%s", diff)
	}
	args, err := zero.Validate(decode(t, `{}`))
	testutil.RequireFault(t, err, fault.ErrMissing, "")
	if !args.IsZero() {
		t.Error("zero Schema must not validate anything")
	}
}

func TestNewErrorsNeverEchoTheDraft(t *testing.T) {
	t.Parallel()
	const secret = "Secret-Value-123"
	drafts := map[string]schema.Draft{
		"as a field name":    object(req(secret, str())),
		"as a case":          object(req("a", enum(secret))),
		"as a kind":          object(req("a", schema.Draft{Kind: secret})),
		"as a requirement":   object(schema.FieldDraft{Name: "a", Requirement: secret, Type: str()}),
		"as a duplicate":     object(req("a", enum("secret-value-123", "secret-value-123"))),
		"as a root kind":     {Kind: secret},
		"as a 65-octet name": object(req(strings.Repeat("secret-value-123", 5), str())),
	}
	for name, d := range drafts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := schema.New(testID, vocab.V1, d)
			if err == nil {
				t.Fatal("draft unexpectedly accepted")
			}
			if strings.Contains(strings.ToLower(err.Error()), "secret-value-123") {
				t.Errorf("error echoes the draft: %v", err)
			}
		})
	}
}

// TestLimitsMatchSection39 ties the exported bounds to the spec's own limit
// table rows, so a spec edit cannot silently diverge from the code.
func TestLimitsMatchSection39(t *testing.T) {
	t.Parallel()
	rows := map[string]string{
		"| Field or enumeration name |": "1–64 restricted ASCII bytes",
		"| Object fields |":             "0–64 fields inclusive",
		"| Enumeration cases |":         "1–64 cases inclusive",
		"| Array elements |":            "0–64 elements inclusive",
		"| String value |":              "0–1,024 printable ASCII bytes",
		"| Schema nesting depth |":      "1–8 levels inclusive",
		"| Inline Schema nodes |":       "1–256 nodes inclusive",
	}
	lines := testutil.SpecLines(t)
	for prefix, want := range rows {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				found = true
				if !strings.Contains(l, want) {
					t.Errorf("spec row %s no longer says %q", prefix, want)
				}
			}
		}
		if !found {
			t.Errorf("spec row %s not found", prefix)
		}
	}
	if ident.MaxTokenLen != 64 || schema.MaxFields != 64 || schema.MaxCases != 64 || schema.MaxElements != 64 ||
		schema.MaxStringLen != 1024 || schema.MaxDepth != 8 || schema.MaxNodes != 256 {
		t.Error("exported limits differ from Section 39")
	}
}
