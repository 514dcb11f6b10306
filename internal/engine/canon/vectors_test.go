package canon_test

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/testutil"
)

// section51Inputs maps each row label of the Section 51.1 value-fragment
// table to the typed input it describes.
var section51Inputs = map[string]func() value.Value{
	"Empty string":        func() value.Value { return str("") },
	"String Az~":          func() value.Value { return str("Az~") },
	"Boolean false":       func() value.Value { return value.Bool(false) },
	"Boolean true":        func() value.Value { return value.Bool(true) },
	"Signed zero":         func() value.Value { return value.Signed(0) },
	"Signed negative one": func() value.Value { return value.Signed(-1) },
	"Signed minimum":      func() value.Value { return value.Signed(math.MinInt64) },
	"Signed maximum":      func() value.Value { return value.Signed(math.MaxInt64) },
	"Unsigned zero":       func() value.Value { return value.Unsigned(0) },
	"Unsigned maximum":    func() value.Value { return value.Unsigned(math.MaxUint64) },
	"Enumeration ready":   func() value.Value { return enum("ready") },
	"Resource acct-1":     func() value.Value { return resource("acct-1") },
	"Empty array":         func() value.Value { return array() },
	"Ordered array [false, true]": func() value.Value {
		return array(value.Bool(false), value.Bool(true))
	},
	"Empty object": func() value.Value { return object() },
	`Object {a: UInt64(0), z: "x"}`: func() value.Value {
		return object(field("a", value.Unsigned(0)), field("z", str("x")))
	},
	"Object {items: [Int64(-1), {}]}": func() value.Value {
		return object(field("items", array(value.Signed(-1), object())))
	},
}

func TestSection51ValueVectors(t *testing.T) {
	t.Parallel()
	rows := specTable(t, valueTableHeader, 4)
	checkRowsHaveCases(t, rows, section51Inputs)
	for _, row := range rows {
		label, octets, count := row[0], row[1], row[2]
		build, ok := section51Inputs[label]
		if !ok {
			continue
		}
		t.Run(label, func(t *testing.T) {
			t.Parallel()
			want := parseHex(t, octets)
			if n := specCount(t, count); n != len(want) {
				t.Fatalf("spec declares %d octets but lists %d", n, len(want))
			}
			got, err := canon.AppendValue(nil, build())
			if err != nil {
				t.Fatalf("AppendValue: %v", err)
			}
			if diff := cmp.Diff(formatHex(want), formatHex(got)); diff != "" {
				t.Errorf("octets (-want +got):\n%s", diff)
			}
			if len(got) != specCount(t, count) {
				t.Errorf("len = %d, want the declared count %s", len(got), count)
			}
			dec, err := decodeValue(want)
			if err != nil {
				t.Fatalf("strict decoder rejects the spec vector: %v", err)
			}
			if diff := cmp.Diff(build(), dec, envelopeCmp); diff != "" {
				t.Errorf("decoded value (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSection51EmptyRootEnvelope(t *testing.T) {
	t.Parallel()
	want := specFixture(t)
	if len(want) != 99 {
		t.Fatalf("spec fixture has %d octets, want 99", len(want))
	}
	env := fixtureEnvelope(t)

	got, err := canon.Encode(env)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if diff := cmp.Diff(formatHex(want), formatHex(got)); diff != "" {
		t.Errorf("octets (-want +got):\n%s", diff)
	}

	dec, err := decodeEnvelope(want)
	if err != nil {
		t.Fatalf("strict decoder rejects the spec fixture: %v", err)
	}
	if diff := cmp.Diff(env, dec, envelopeCmp); diff != "" {
		t.Errorf("decoded envelope (-want +got):\n%s", diff)
	}

	// The segment table partitions the fixture: its counts sum to the
	// stated total and to 99, and every "Tag NN" segment starts with NN.
	rows := specTable(t, segmentTableHeader, 2)
	tagOf := regexp.MustCompile(`^Tag ([0-9A-F]{2}) `)
	offset, total := 0, -1
	for _, row := range rows {
		label, n := row[0], specCount(t, row[1])
		if label == "Total" {
			total = n
			continue
		}
		if m := tagOf.FindStringSubmatch(label); m != nil {
			if offset >= len(got) || formatHex(got[offset:offset+1]) != m[1] {
				t.Errorf("segment %q: octet at offset %d is not tag %s", label, offset, m[1])
			}
		}
		offset += n
	}
	if offset != total || total != 99 || total != len(got) {
		t.Errorf("segment counts sum to %d, table total %d, encoding %d octets; want 99 each", offset, total, len(got))
	}
}

// TestSection47ValueTags checks each row of the Section 47 value tag table
// against the first octet the encoder writes for that kind.
func TestSection47ValueTags(t *testing.T) {
	t.Parallel()
	inputs := map[string]value.Value{
		"String":              str("s"),
		"Boolean false":       value.Bool(false),
		"Boolean true":        value.Bool(true),
		"Signed integer":      value.Signed(-7),
		"Unsigned integer":    value.Unsigned(7),
		"Enumeration":         enum("ready"),
		"Array":               array(),
		"Object":              object(),
		"Resource identifier": resource("acct-1"),
	}
	lines := testutil.SpecSection(t, "| Value | Tag | Content after tag |", "There are no reserved v1 value tags.")
	row := regexp.MustCompile(`^\| ([A-Za-z ]+) \| ([0-9A-F]{2}) \|$`)
	seen := 0
	for _, l := range lines {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		seen++
		v, ok := inputs[m[1]]
		if !ok {
			t.Errorf("spec value tag row %q has no input in this test", m[1])
			continue
		}
		got, err := canon.AppendValue(nil, v)
		if err != nil || formatHex(got[:1]) != m[2] {
			t.Errorf("%s: first octet of % X (err %v), want tag %s", m[1], got, err, m[2])
		}
	}
	if seen != len(inputs) {
		t.Errorf("spec lists %d value tags, test covers %d", seen, len(inputs))
	}
}

// TestSection47Marker checks the exported marker against envelope row 1.
func TestSection47Marker(t *testing.T) {
	t.Parallel()
	lines := testutil.SpecSection(t, "| Order | Tag or marker | Content |", "No field may be omitted")
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, "| 1 | "); ok {
			want := parseHex(t, strings.TrimSuffix(rest, " |"))
			if diff := cmp.Diff(formatHex(want), formatHex([]byte(canon.Marker))); diff != "" {
				t.Errorf("Marker (-want +got):\n%s", diff)
			}
			return
		}
	}
	t.Fatal("envelope row 1 not found in the spec")
}
