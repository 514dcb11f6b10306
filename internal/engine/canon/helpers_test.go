package canon_test

import (
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// Section 51 anchors in the vendored spec text.
const (
	valueTableHeader   = "| Typed input | Exact hexadecimal octets | Count | Segments |"
	segmentTableHeader = "| Segment | Count |"
	invalidTableHeader = "| Invalid state | Prohibited hexadecimal or construction | Required result |"
	vectorIntro        = "Its exact 99 octets are:"
)

// section51 returns the lines of spec Section 51.
func section51(t testing.TB) []string {
	t.Helper()
	return testutil.SpecSection(t,
		"This section is normative. Spaces in hexadecimal are presentation separators",
		"All positive hexadecimal values in this section are mechanically reproducible")
}

// specTable returns the rows of the spec table that starts at header. The
// spec text wraps rows over several lines, and the wraps do not follow cell
// boundaries. So the table's lines are joined, split on '|', and regrouped
// into rows of width cells. The table ends at the first line with no '|'.
func specTable(t testing.TB, header string, width int) [][]string {
	t.Helper()
	lines := section51(t)
	start := -1
	for i, l := range lines {
		if l == header {
			start = i
			break
		}
	}
	if start < 0 || start+1 >= len(lines) || !strings.HasPrefix(lines[start+1], "|---") {
		t.Fatalf("spec table %q not found", header)
	}
	var body []string
	for _, l := range lines[start+2:] {
		if !strings.Contains(l, "|") {
			break
		}
		body = append(body, l)
	}
	var cells []string
	for c := range strings.SplitSeq(strings.Join(body, " "), "|") {
		if c = strings.TrimSpace(c); c != "" {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 || len(cells)%width != 0 {
		t.Fatalf("spec table %q: %d cells do not form rows of %d", header, len(cells), width)
	}
	var rows [][]string
	for i := 0; i < len(cells); i += width {
		rows = append(rows, cells[i:i+width])
	}
	return rows
}

// specCount parses a decimal count cell such as "24".
func specCount(t testing.TB, cell string) int {
	t.Helper()
	n, err := strconv.Atoi(cell)
	if err != nil {
		t.Fatalf("spec count %q: %v", cell, err)
	}
	return n
}

// parseHex parses space-separated two-digit hexadecimal octets, the spec's
// presentation form.
func parseHex(t testing.TB, text string) []byte {
	t.Helper()
	var out []byte
	for f := range strings.FieldsSeq(text) {
		b, err := hex.DecodeString(f)
		if err != nil || len(f) != 2 {
			t.Fatalf("spec hex %q: octet %q is not two hexadecimal digits", text, f)
		}
		out = append(out, b...)
	}
	return out
}

// formatHex renders octets the way the spec prints them, so diffs read
// against the spec text.
func formatHex(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%02X", c)
	}
	return sb.String()
}

// specValueVectors returns the Section 51.1 value-fragment table: label to
// exact octets. It checks each declared count against the octets.
func specValueVectors(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, row := range specTable(t, valueTableHeader, 4) {
		b := parseHex(t, row[1])
		if n := specCount(t, row[2]); n != len(b) {
			t.Fatalf("spec row %q declares %d octets but lists %d", row[0], n, len(b))
		}
		out[row[0]] = b
	}
	return out
}

// specFixture returns the 99 octets listed after "Its exact 99 octets are:".
func specFixture(t testing.TB) []byte {
	t.Helper()
	lines := testutil.SpecSection(t, vectorIntro, segmentTableHeader)
	return parseHex(t, strings.Join(lines[1:], " "))
}

// fixtureEnvelope is the accepted empty-root-object fixture of Section 51.
func fixtureEnvelope(t testing.TB) canon.Envelope {
	t.Helper()
	return canon.Envelope{
		SnapshotID:         must(ident.ParseSnapshotID("primary-registry")),
		SnapshotGeneration: must(ident.NewGeneration(1)),
		ToolID:             must(ident.ParseToolID("payments.submit")),
		ToolVersion:        must(ident.NewGeneration(1)),
		DefinitionID:       must(ident.ParseDefinitionID("payments-submit-1")),
		SchemaID:           must(ident.ParseSchemaID("empty")),
		SchemaVersion:      vocab.V1,
		Root:               must(value.Object(nil)),
	}
}

// fixtureOverhead is the number of octets of the fixture before its root
// value: 99 minus the three octets of the empty object.
const fixtureOverhead = 96

// must unwraps a constructor result in test set-up, where an error means
// the test itself is wrong.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("test set-up: %v", err))
	}
	return v
}

func str(s string) value.Value            { return must(value.String(s)) }
func resource(s string) value.Value       { return must(value.Resource(must(ident.ParseResource(s)))) }
func enum(s string) value.Value           { return must(value.Enum(must(ident.ParseName(s)))) }
func array(vs ...value.Value) value.Value { return must(value.Array(vs)) }

func field(name string, v value.Value) value.Field {
	return value.NewField(must(ident.ParseName(name)), v)
}

func object(fs ...value.Field) value.Value { return must(value.Object(fs)) }

// envelopeCmp compares envelopes whose types hide their fields.
var envelopeCmp = cmp.Options{
	cmp.Comparer(value.Value.Equal),
	cmp.Comparer(func(a, b ident.SnapshotID) bool { return a == b }),
	cmp.Comparer(func(a, b ident.DefinitionID) bool { return a == b }),
	cmp.Comparer(func(a, b ident.SchemaID) bool { return a == b }),
	cmp.Comparer(func(a, b ident.ToolID) bool { return a == b }),
	cmp.Comparer(func(a, b ident.Generation) bool { return a == b }),
}

// sizedRoot returns a root object whose complete request, with the fixture's
// identities, is exactly total octets. It has 64 string fields of
// 10 + len(text) octets each. The first 63 strings fill greedily up to
// 1,024 octets, and the last takes the remainder. Near the bound, the last
// string's payload is the append that crosses it.
func sizedRoot(t testing.TB, total int) value.Value {
	t.Helper()
	const fields = value.MaxFields
	budget := total - fixtureOverhead - 3 - fields*10 // object header and per-field overhead
	if budget < 0 || budget > fields*value.MaxStringLen {
		t.Fatalf("sizedRoot: %d octets cannot be built", total)
	}
	fs := make([]value.Field, 0, fields)
	for i := range fields {
		n := min(budget, value.MaxStringLen)
		if i == fields-1 {
			n = budget
		}
		budget -= n
		fs = append(fs, field(fmt.Sprintf("f%02d", i), str(strings.Repeat("x", n))))
	}
	return object(fs...)
}

// sizedEnvelope returns the fixture with a sizedRoot of total octets.
func sizedEnvelope(t testing.TB, total int) canon.Envelope {
	t.Helper()
	env := fixtureEnvelope(t)
	env.Root = sizedRoot(t, total)
	return env
}

// checkRowsHaveCases reports each spec table row whose label (first cell)
// has no case in cases, and each case that is not a row's label.
func checkRowsHaveCases[C any](t *testing.T, rows [][]string, cases map[string]C) {
	t.Helper()
	inSpec := map[string]bool{}
	for _, row := range rows {
		inSpec[row[0]] = true
		if _, ok := cases[row[0]]; !ok {
			t.Errorf("spec row %q has no case in this test", row[0])
		}
	}
	for _, label := range slices.Sorted(maps.Keys(cases)) {
		if !inSpec[label] {
			t.Errorf("case %q is not a row of the spec table", label)
		}
	}
}
