package canon_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// hexRuns finds the runs of hexadecimal octets in a spec construction cell:
// "Complete vector with first octet 52 instead of 53" gives [52] and [53].
var hexRuns = regexp.MustCompile(`\b[0-9A-F]{2}(?: [0-9A-F]{2})*\b`)

// invalidState is one row of the Section 51 invalid-state table, in two
// parts. The encoder never produces the state. The test decoder rejects the
// prohibited octets for the reason the spec requires.
type invalidState struct {
	// prohibited builds the prohibited octets from the spec's cell. runs
	// holds the hexadecimal runs of that cell, fixture the 99-octet vector.
	// fragment says the octets are a standalone value, not a request.
	prohibited func(t *testing.T, runs [][]byte, fixture []byte) []byte
	fragment   bool
	wantErr    error
	// encoderRefuses shows the encoder does not produce the state.
	encoderRefuses func(t *testing.T)
}

// withOctet returns a copy of b with b[i] changed from old to repl; the
// check keeps the test honest about which octet the spec means.
func withOctet(t *testing.T, b []byte, i int, old, repl byte) []byte {
	t.Helper()
	if b[i] != old {
		t.Fatalf("octet %d is %02X, the spec construction expects %02X", i, b[i], old)
	}
	out := slices.Clone(b)
	out[i] = repl
	return out
}

func onlyRun(t *testing.T, runs [][]byte) []byte {
	t.Helper()
	if len(runs) != 1 {
		t.Fatalf("cell has %d hexadecimal runs, want 1", len(runs))
	}
	return runs[0]
}

// encodesTo asserts that v encodes to the given octets.
func encodesTo(t *testing.T, v value.Value, want []byte) {
	t.Helper()
	got, err := canon.AppendValue(nil, v)
	if err != nil {
		t.Fatalf("AppendValue: %v", err)
	}
	if diff := cmp.Diff(formatHex(want), formatHex(got)); diff != "" {
		t.Errorf("octets (-want +got):\n%s", diff)
	}
}

func encodeFixture(t *testing.T) []byte {
	t.Helper()
	b, err := canon.Encode(fixtureEnvelope(t))
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b
}

var invalidStates = map[string]invalidState{
	"Unknown marker": {
		prohibited: func(t *testing.T, runs [][]byte, fixture []byte) []byte {
			return withOctet(t, fixture, 0, runs[1][0], runs[0][0])
		},
		wantErr: errMarker,
		encoderRefuses: func(t *testing.T) {
			if got := encodeFixture(t); string(got[:7]) != canon.Marker || canon.Marker != "STKCRQ\x00" {
				t.Errorf("request starts % X, want the marker", got[:7])
			}
		},
	},
	"Unknown canonicalization version": {
		prohibited: func(t *testing.T, runs [][]byte, fixture []byte) []byte {
			return slices.Concat(fixture[:7], onlyRun(t, runs), fixture[9:])
		},
		wantErr:        errVersion,
		encoderRefuses: versionIsV1,
	},
	"Unknown or misplaced envelope field tag": {
		prohibited: func(t *testing.T, runs [][]byte, fixture []byte) []byte {
			return withOctet(t, fixture, 9, runs[1][0], runs[0][0])
		},
		wantErr: errFieldTag,
		encoderRefuses: func(t *testing.T) {
			// Rows 01..08 sit at fixed offsets in the fixture encoding.
			got := encodeFixture(t)
			for i, off := range []int{9, 28, 37, 55, 64, 84, 92, 95} {
				if got[off] != byte(0x01+i) {
					t.Errorf("row %d: octet at %d is %02X, want %02X", i+1, off, got[off], 0x01+i)
				}
			}
		},
	},
	"Unknown value tag": {
		prohibited: func(t *testing.T, runs [][]byte, _ []byte) []byte { return onlyRun(t, runs) },
		fragment:   true,
		wantErr:    errValueTag,
		encoderRefuses: func(t *testing.T) {
			// Every Section 51.1 input starts with a tag in 10..18.
			for _, label := range slices.Sorted(maps.Keys(section51Inputs)) {
				got, err := canon.AppendValue(nil, section51Inputs[label]())
				if err != nil || got[0] < 0x10 || got[0] > 0x18 {
					t.Errorf("%s: tag %02X, err %v", label, got[0], err)
				}
			}
		},
	},
	"Truncated string": {
		prohibited: func(t *testing.T, runs [][]byte, _ []byte) []byte { return onlyRun(t, runs) },
		fragment:   true,
		wantErr:    errTruncated,
		encoderRefuses: func(t *testing.T) {
			encodesTo(t, str("AB"), []byte{0x10, 0, 0, 0, 2, 'A', 'B'})
		},
	},
	"Incorrect array count": {
		prohibited: func(t *testing.T, runs [][]byte, _ []byte) []byte { return onlyRun(t, runs) },
		fragment:   true,
		wantErr:    errTruncated,
		encoderRefuses: func(t *testing.T) {
			encodesTo(t, array(value.Bool(false)), []byte{0x16, 0, 0, 0, 1, 0x11})
		},
	},
	"Invalid Boolean payload": {
		prohibited: func(t *testing.T, runs [][]byte, _ []byte) []byte { return onlyRun(t, runs) },
		fragment:   true,
		wantErr:    errTrailing,
		encoderRefuses: func(t *testing.T) {
			encodesTo(t, value.Bool(false), []byte{0x11})
			encodesTo(t, value.Bool(true), []byte{0x12})
		},
	},
	"Non-network byte order": {
		prohibited: func(t *testing.T, runs [][]byte, fixture []byte) []byte {
			return slices.Concat(fixture[:7], onlyRun(t, runs), fixture[9:])
		},
		wantErr:        errVersion,
		encoderRefuses: versionIsV1,
	},
	"Reordered object fields": {
		// Section 51.1 object {a, z}: header 17 00 02, then field a
		// (3 + 9 octets), then field z (3 + 6 octets). Swap the fields.
		prohibited: func(t *testing.T, _ [][]byte, _ []byte) []byte {
			az := specValueVectors(t)[`Object {a: UInt64(0), z: "x"}`]
			return slices.Concat(az[:3], az[15:], az[3:15])
		},
		fragment: true,
		wantErr:  errFieldOrder,
		encoderRefuses: func(t *testing.T) {
			za := []value.Field{field("z", str("x")), field("a", value.Unsigned(0))}
			if _, err := value.Object(za); !errors.Is(err, fault.ErrDisordered) {
				t.Errorf("value.Object(z, a) = %v, want a Disordered rejection", err)
			}
			slices.Reverse(za)
			encodesTo(t, object(za...), specValueVectors(t)[`Object {a: UInt64(0), z: "x"}`])
		},
	},
	"Oversized output": {
		// Widen the last string of a 65,536-octet request by one octet: a
		// well-formed request of 65,537 octets.
		prohibited: func(t *testing.T, _ [][]byte, _ []byte) []byte {
			b, err := canon.Encode(sizedEnvelope(t, canon.MaxSize))
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			const lastLen = 285 // the remainder string of sizedRoot(65,536)
			at := len(b) - lastLen - 4
			if binary.BigEndian.Uint32(b[at:]) != lastLen {
				t.Fatalf("no %d-octet string at the end of the request", lastLen)
			}
			binary.BigEndian.PutUint32(b[at:], lastLen+1)
			return append(b, 'x')
		},
		wantErr: errTooLarge,
		encoderRefuses: func(t *testing.T) {
			got, err := canon.Encode(sizedEnvelope(t, canon.MaxSize+1))
			if !errors.Is(err, fault.ErrLimitExceeded) || got != nil {
				t.Errorf("Encode(65,537 octets) = %d octets, %v; want nil, LimitExceeded", len(got), err)
			}
		},
	},
	"Trailing bytes": {
		prohibited: func(t *testing.T, runs [][]byte, fixture []byte) []byte {
			return slices.Concat(fixture, runs[len(runs)-1])
		},
		wantErr: errTrailing,
		encoderRefuses: func(t *testing.T) {
			if got := encodeFixture(t); len(got) != 99 {
				t.Errorf("fixture encodes to %d octets, want exactly 99", len(got))
			}
		},
	},
	"Null": {
		// No octet means null. The nearest attempt is a tag outside
		// 10..18, such as 00.
		prohibited: func(*testing.T, [][]byte, []byte) []byte { return []byte{0x00} },
		fragment:   true,
		wantErr:    errValueTag,
		encoderRefuses: func(t *testing.T) {
			env := fixtureEnvelope(t)
			env.Root = value.Value{}
			if got, err := canon.Encode(env); !errors.Is(err, fault.ErrMissing) || got != nil {
				t.Errorf("Encode(null root) = % X, %v; want nil, Missing", got, err)
			}
			if got, err := canon.AppendValue([]byte{1}, value.Value{}); !errors.Is(err, fault.ErrMissing) || got != nil {
				t.Errorf("AppendValue(null) = % X, %v; want nil, Missing", got, err)
			}
			if _, err := value.Array([]value.Value{{}}); err == nil {
				t.Error("value.Array accepted a null element")
			}
			if _, err := value.Object([]value.Field{value.NewField(must(ident.ParseName("a")), value.Value{})}); err == nil {
				t.Error("value.Object accepted a null field value")
			}
		},
	},
}

func versionIsV1(t *testing.T) {
	t.Helper()
	if got := encodeFixture(t); got[7] != 0x00 || got[8] != 0x01 {
		t.Errorf("version octets % X, want 00 01", got[7:9])
	}
	env := fixtureEnvelope(t)
	for _, v := range []vocab.Version{0, 2, 0x0100} {
		env.SchemaVersion = v
		if _, err := canon.Encode(env); !errors.Is(err, fault.ErrUnsupported) {
			t.Errorf("schema version %d: err %v, want Unsupported", v, err)
		}
	}
}

func TestSection51InvalidStates(t *testing.T) {
	t.Parallel()
	fixture := specFixture(t)
	rows := specTable(t, invalidTableHeader, 3)
	checkRowsHaveCases(t, rows, invalidStates)
	for _, row := range rows {
		label, construction := row[0], row[1]
		tc, ok := invalidStates[label]
		if !ok {
			continue
		}
		t.Run(label, func(t *testing.T) {
			t.Parallel()
			var runs [][]byte
			for _, r := range hexRuns.FindAllString(construction, -1) {
				runs = append(runs, parseHex(t, r))
			}
			input := tc.prohibited(t, runs, fixture)
			var err error
			if tc.fragment {
				_, err = decodeValue(input)
			} else {
				_, err = decodeEnvelope(input)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("decode(% X) = %v, want %v", input, err, tc.wantErr)
			}
			tc.encoderRefuses(t)
		})
	}
}

// TestDecoderRejectsNonCanonicalInput checks that the test decoder, the
// oracle of the other tests, is strict beyond the Section 51 rows. It
// rejects misplaced rows and every content rule of Sections 47 and 49.
func TestDecoderRejectsNonCanonicalInput(t *testing.T) {
	t.Parallel()
	fixture := specFixture(t)
	fragment := func(b ...[]byte) []byte { return slices.Concat(b...) }
	cases := map[string]struct {
		input    []byte
		fragment bool
		wantErr  error
	}{
		"generation row before identity row": {
			input:   slices.Concat(fixture[:9], fixture[28:37], fixture[9:28], fixture[37:]),
			wantErr: errFieldTag,
		},
		"schema version row repeated": {
			input:   slices.Concat(fixture[:95], fixture[92:95], fixture[95:]),
			wantErr: errFieldTag,
		},
		"root row omitted":     {input: fixture[:95], wantErr: errTruncated},
		"marker cut short":     {input: fixture[:2], wantErr: errTruncated},
		"schema version 00 02": {input: withOctet(t, fixture, 94, 0x01, 0x02), wantErr: errSchemaVersion},
		"string root":          {input: slices.Concat(fixture[:96], []byte{0x10, 0, 0, 0, 0}), wantErr: errRoot},
		"zero snapshot generation": {
			input:   slices.Concat(fixture[:29], make([]byte, 8), fixture[37:]),
			wantErr: errContent,
		},
		"uppercase snapshot identity": {input: withOctet(t, fixture, 12, 'p', 'P'), wantErr: errContent},
		"request over MaxSize":        {input: make([]byte, canon.MaxSize+1), wantErr: errTooLarge},
		"string with a control octet": {
			input: []byte{0x10, 0, 0, 0, 1, 0x7F}, fragment: true, wantErr: errContent,
		},
		"string of 1,025 octets": {
			input:    fragment([]byte{0x10, 0, 0, 0x04, 0x01}, bytes.Repeat([]byte{'a'}, 1025)),
			fragment: true, wantErr: errContent,
		},
		"uppercase enumeration case": {input: []byte{0x15, 0, 0, 0, 1, 'A'}, fragment: true, wantErr: errContent},
		"empty Resource identifier":  {input: []byte{0x18, 0, 0, 0, 0}, fragment: true, wantErr: errContent},
		"repeated field name": {
			input:    []byte{0x17, 0, 2, 0, 1, 'a', 0x11, 0, 1, 'a', 0x12},
			fragment: true, wantErr: errFieldOrder,
		},
		"array of 65 elements": {
			input:    fragment([]byte{0x16, 0, 0, 0, 65}, bytes.Repeat([]byte{0x11}, 65)),
			fragment: true, wantErr: errContent,
		},
		"object of 65 fields": {
			input:    fragment([]byte{0x17, 0, 65}, objectFields(65)),
			fragment: true, wantErr: errContent,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var err error
			if tc.fragment {
				_, err = decodeValue(tc.input)
			} else {
				_, err = decodeEnvelope(tc.input)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("decode = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// objectFields returns n fields "f000", "f001", ... with value false.
func objectFields(n int) []byte {
	var b []byte
	for i := range n {
		b = append(b, 0, 4, 'f', '0'+byte(i/100), '0'+byte(i/10%10), '0'+byte(i%10), 0x11)
	}
	return b
}
