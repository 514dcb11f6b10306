package request_test

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// parseSpecHex parses spec presentation hex ("53 54 4B ...", spaces are
// separators, a trailing table bar is ignored).
func parseSpecHex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "|"))
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("spec hex %q: %v", s, err)
	}
	return b
}

// specTwoFieldObject returns the Section 51.1 octets of the row
// Object {a: UInt64(0), z: "x"}: the line after the row label.
func specTwoFieldObject(t testing.TB) []byte {
	t.Helper()
	lines := testutil.SpecSection(t, `Object {a: UInt64(0), z: "x"} |`, "Object {items:")
	if len(lines) < 2 {
		t.Fatal("Section 51.1 two-field object row not found")
	}
	return parseSpecHex(t, lines[1])
}

// specEmptyRootVector returns the Section 51 99-octet empty-root vector.
func specEmptyRootVector(t testing.TB) []byte {
	t.Helper()
	lines := testutil.SpecSection(t, "Its exact 99 octets are:", "| Segment | Count |")
	return parseSpecHex(t, strings.Join(lines[1:], " "))
}

// paymentsSnapshot publishes primary-registry generation 1 with the sample's
// payments.submit v1, a retired payments.refund v1 and accounts.lookup v1.
func paymentsSnapshot(t testing.TB, mods ...testutil.DefinitionModifier) *registry.Snapshot {
	t.Helper()
	return testutil.Publish(t, testutil.RegistryDraft(paymentsDefinitions(mods...)...))
}

func paymentsDefinitions(mods ...testutil.DefinitionModifier) []registry.DefinitionDraft {
	return []registry.DefinitionDraft{
		testutil.PaymentsDefinition(mods...),
		testutil.Definition("payments-refund-1", "payments.refund", "1", testutil.WithLifecycle("retired")),
		testutil.Definition("accounts-lookup-1", "accounts.lookup", "1"),
	}
}

func paymentsProposal(args string) request.Proposal {
	return request.Proposal{ProposalID: "proposal-1", ToolID: "payments.submit", Version: "1", Arguments: []byte(args)}
}

// bigFieldCount and bigDefinition describe a Schema of 64 optional string
// fields f00..f63, the widest object Section 39 allows, for size tests.
const bigFieldCount = schema.MaxFields

func bigDefinition() registry.DefinitionDraft {
	root := schema.Draft{Kind: "object"}
	for i := range bigFieldCount {
		root.Fields = append(root.Fields, testutil.Field(fmt.Sprintf("f%02d", i), "optional", schema.Draft{Kind: "string"}))
	}
	return testutil.Definition("big-1", "test.big", "1", testutil.WithSchema("big", root))
}

// bigArguments returns a JSON object setting field fNN to a string of
// lens[NN] octets.
func bigArguments(lens []int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range lens {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%q", fmt.Sprintf("f%02d", i), strings.Repeat("x", n))
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// bigProposal returns a proposal for test.big whose canonical request is
// exactly size octets (size must be reachable: at least the request with
// every string empty, at most that plus 64 * 1024).
func bigProposal(t testing.TB, snap *registry.Snapshot, a *assessment.Assessment, size int) request.Proposal {
	t.Helper()
	lens := make([]int, bigFieldCount)
	p := request.Proposal{ProposalID: "proposal-1", ToolID: "test.big", Version: "1", Arguments: bigArguments(lens)}
	r, err := request.New(snap, p, a)
	if err != nil {
		t.Fatalf("request.New with empty strings: %v", err)
	}
	rest := size - len(r.Bytes())
	for i := range lens {
		lens[i] = min(rest, value.MaxStringLen)
		rest -= lens[i]
	}
	if rest != 0 {
		t.Fatalf("size %d is not reachable", size)
	}
	p.Arguments = bigArguments(lens)
	return p
}

func mustName(t testing.TB, s string) ident.Name {
	t.Helper()
	n, err := ident.ParseName(s)
	if err != nil {
		t.Fatalf("ParseName(%q): %v", s, err)
	}
	return n
}

func mustResource(t testing.TB, s string) ident.Resource {
	t.Helper()
	r, err := ident.ParseResource(s)
	if err != nil {
		t.Fatalf("ParseResource(%q): %v", s, err)
	}
	return r
}

// mustValue returns a function that unwraps a value constructor's result,
// failing the test on error: mustValue(t)(value.String("x")).
func mustValue(t testing.TB) func(value.Value, error) value.Value {
	return func(v value.Value, err error) value.Value {
		t.Helper()
		if err != nil {
			t.Fatalf("value: %v", err)
		}
		return v
	}
}

// object builds an object value from name/value pairs already in field-name
// ASCII order.
func object(t testing.TB, kv ...any) value.Value {
	t.Helper()
	var fields []value.Field
	for i := 0; i < len(kv); i += 2 {
		fields = append(fields, value.NewField(mustName(t, kv[i].(string)), kv[i+1].(value.Value)))
	}
	return mustValue(t)(value.Object(fields))
}

// envelope returns the canonical envelope of primary-registry generation 1
// for the given tool, definition, Schema and root.
func envelope(t testing.TB, tool, defID, schemaID string, root value.Value) canon.Envelope {
	t.Helper()
	snapID, err1 := ident.ParseSnapshotID("primary-registry")
	toolID, err2 := ident.ParseToolID(tool)
	def, err3 := ident.ParseDefinitionID(defID)
	sch, err4 := ident.ParseSchemaID(schemaID)
	one, err5 := ident.NewGeneration(1)
	for _, err := range []error{err1, err2, err3, err4, err5} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return canon.Envelope{
		SnapshotID: snapID, SnapshotGeneration: one, ToolID: toolID, ToolVersion: one,
		DefinitionID: def, SchemaID: sch, SchemaVersion: vocab.V1, Root: root,
	}
}
