package agentsafe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected outputs below are written from the JavaScript rules (JSON.parse,
// Object.keys().sort(), JSON.stringify) and agree with Node.js.
func TestCanonicalFollowsJavaScript(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want string
	}{
		"integer-like keys come first in numeric order, then the rest sorted": {
			in:   `{"b":1,"a":2,"10":0,"2":0}`,
			want: `{"2":0,"10":0,"a":2,"b":1}`,
		},
		"only canonical integers below 2^32-1 are array indices": {
			in:   `{"01":1,"1":2,"-1":3,"4294967295":4,"4294967294":5,"1.0":6,"a":7,"0":8}`,
			want: `{"0":8,"1":2,"4294967294":5,"-1":3,"01":1,"1.0":6,"4294967295":4,"a":7}`,
		},
		"keys sort by UTF-16 code units, so an astral key precedes U+FFFF": {
			in:   `{"\uffff":1,"\ud83d\ude00":2,"\ue000":3,"z":4}`,
			want: "{\"z\":4,\"\U0001F600\":2,\"\ue000\":3,\"\uffff\":1}",
		},
		"sorting is case-sensitive code-unit order (upstream README example)": {
			in:   `{"Éclair":4,"zé":1,"za":2,"Z":3}`,
			want: `{"Z":3,"za":2,"zé":1,"Éclair":4}`,
		},
		"composed and decomposed keys stay distinct and unnormalized": {
			in:   `{"caf\u00e9":1,"cafe\u0301":2}`,
			want: "{\"cafe\u0301\":2,\"caf\u00e9\":1}",
		},
		"nested objects sort at every level and arrays keep their order": {
			in:   `{"z":[{"y":1,"x":2},[3,1,2]],"a":{"c":{"e":0,"d":0}}}`,
			want: `{"a":{"c":{"d":0,"e":0}},"z":[{"x":2,"y":1},[3,1,2]]}`,
		},
		"insignificant whitespace disappears": {
			in:   " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n",
			want: `{"a":[1,2],"b":{}}`,
		},
		"1e21 prints in exponent form":                         {in: `[1e21,1E21,-1e+21]`, want: `[1e+21,1e+21,-1e+21]`},
		"integers below 1e21 print in full":                    {in: `[1e20,123456789012345678901]`, want: `[100000000000000000000,123456789012345680000]`},
		"negative zero prints as 0":                            {in: `[-0,-0.0,-0e5,0e0]`, want: `[0,0,0,0]`},
		"1e-7 is the first exponent-form fraction":             {in: `[0.0000001,0.000001,1.5e-7,0.00001234]`, want: `[1e-7,0.000001,1.5e-7,0.00001234]`},
		"2^53+1 rounds to 2^53 as in JavaScript":               {in: `[9007199254740993,9007199254740995,18446744073709551616]`, want: `[9007199254740992,9007199254740996,18446744073709552000]`},
		"fractions print with shortest round-trip digits":      {in: `[1.0,2.50,-1.50E+2,0.1,0.30000000000000004]`, want: `[1,2.5,-150,0.1,0.30000000000000004]`},
		"extremes of the double range":                         {in: `[5e-324,1.7976931348623157e308,2.2250738585072014e-308]`, want: `[5e-324,1.7976931348623157e+308,2.2250738585072014e-308]`},
		"underflow rounds to zero":                             {in: `[1e-400,-1e-400,2.4703282292062328e-324]`, want: `[0,0,5e-324]`},
		"html characters and line separators are not escaped":  {in: `"\u2028<>&\u2029/\/"`, want: "\"\u2028<>&\u2029//\""},
		"short escapes for the usual controls":                 {in: `"\b\f\n\r\t\"\\"`, want: `"\b\f\n\r\t\"\\"`},
		"other controls escape as lowercase u00xx":             {in: `"\u0000\u001F\u000b\u007f"`, want: "\"\\u0000\\u001f\\u000b\x7f\""},
		"non-ASCII is emitted verbatim as UTF-8":               {in: `"\u00e9\u4E2D🚀"`, want: "\"é中🚀\""},
		"a lone lead surrogate survives as a lowercase escape": {in: `"\uD800"`, want: `"\ud800"`},
		"a lone trail and a reversed pair stay escaped":        {in: `"\udc00\ud800x"`, want: `"\udc00\ud800x"`},
		"an escaped surrogate pair becomes the character":      {in: `"\ud83d\uDE00"`, want: "\"\U0001F600\""},
		"a lead surrogate followed by a raw astral character":  {in: "\"\\ud83d\U0001F600\"", want: "\"\\ud83d\U0001F600\""},
		"top-level scalars are canonical JSON too":             {in: ` "x" `, want: `"x"`},
		"literals": {in: `[null,true,false,{},[]]`, want: `[null,true,false,{},[]]`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			canon, digest, err := CanonicalDigest([]byte(tc.in))
			if err != nil {
				t.Fatalf("CanonicalDigest: %v", err)
			}
			if diff := cmp.Diff(tc.want, string(canon)); diff != "" {
				t.Errorf("canonical (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(Digest([]byte(tc.want)), digest); diff != "" {
				t.Errorf("digest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDigestIsPrefixedLowercaseSHA256(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want string
	}{
		"empty object": {in: `{}`, want: "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
		"empty input":  {in: ``, want: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Digest([]byte(tc.in))); diff != "" {
				t.Errorf("Digest (-want +got):\n%s", diff)
			}
		})
	}
}

// A binding built in Go must hash exactly like the same binding as text.
func TestProgrammaticValueMatchesParsedText(t *testing.T) {
	t.Parallel()
	built := Object(
		Member{"target", Object(Member{"system", String("payments")}, Member{"operation", String("refund")})},
		Member{"actor", Object(Member{"id", String("agent-7")}, Member{"type", String("AI_AGENT")})},
		Member{"tenant", String("t-1")},
		Member{"expiry", String("2026-09-16T10:01:00.000Z")},
		Member{"parameters", Object(
			Member{"amountMinor", Number(35000)},
			Member{"rate", Number(1.5)},
			Member{"zero", Number(negZero())},
			Member{"big", Number(1e21)},
			Member{"lone", StringUTF16([]uint16{0xd800, 'x'})},
			Member{"10", Bool(true)},
			Member{"2", Null()},
			Member{"items", Array(String("a"), Number(-1), Array())},
		)},
	)
	text := `{"actor":{"type":"AI_AGENT","id":"agent-7"},"tenant":"t-1","expiry":"2026-09-16T10:01:00.000Z",
	"parameters":{"items":["a",-1,[]],"2":null,"10":true,"lone":"\ud800x","big":1e21,"zero":-0,"rate":1.5,"amountMinor":35000},
	"target":{"operation":"refund","system":"payments"}}`
	want := `{"actor":{"id":"agent-7","type":"AI_AGENT"},"expiry":"2026-09-16T10:01:00.000Z",` +
		`"parameters":{"2":null,"10":true,"amountMinor":35000,"big":1e+21,"items":["a",-1,[]],"lone":"\ud800x","rate":1.5,"zero":0},` +
		`"target":{"operation":"refund","system":"payments"},"tenant":"t-1"}`

	got, err := Canonical(built)
	if err != nil {
		t.Fatalf("Canonical(built): %v", err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("built (-want +got):\n%s", diff)
	}
	fromText, _, err := CanonicalDigest([]byte(text))
	if err != nil {
		t.Fatalf("CanonicalDigest(text): %v", err)
	}
	if diff := cmp.Diff(want, string(fromText)); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

func TestConstructorsCopyTheirArguments(t *testing.T) {
	t.Parallel()
	elems := []Value{Number(1), Number(2)}
	units := []uint16{'a'}
	arr, str := Array(elems...), StringUTF16(units)
	elems[0], units[0] = Number(9), 'z'
	got, err := Canonical(Array(arr, str))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`[[1,2],"a"]`, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}
