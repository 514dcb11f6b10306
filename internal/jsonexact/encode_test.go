package jsonexact_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

func TestAppendJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		input string
		want  string
	}{
		"compact object in occurrence order": {input: ` { "b" : 1 , "a" : [ true , false ] } `, want: `{"b":1,"a":[true,false]}`},
		"nested empty containers":            {input: `[{},[],{"":[]}]`, want: `[{},[],{"":[]}]`},
		"integer literals kept exactly":      {input: `[18446744073709551615,-9223372036854775808,0]`, want: `[18446744073709551615,-9223372036854775808,0]`},
		"quote and backslash escaped":        {input: `"a\"b\\c"`, want: `"a\"b\\c"`},
		"solidus written raw":                {input: `"\/"`, want: `"/"`},
		"short control escapes":              {input: `"\b\f\n\r\t"`, want: `"\b\f\n\r\t"`},
		"other controls as unicode escapes":  {input: `"\u0000\u0001\u001f\u001F"`, want: `"\u0000\u0001\u001f\u001f"`},
		"non-ASCII written raw":              {input: `"\u00e9\ud83d\ude00"`, want: `"é😀"`},
		"DEL and line separator written raw": {input: `"\u007f\u2028"`, want: "\"\x7f\u2028\""},
		"member names escaped too":           {input: `{"a\"\n":1}`, want: `{"a\"\n":1}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := mustDecode(t, tc.input)
			got := v.AppendJSON([]byte("prefix:"))
			if diff := cmp.Diff("prefix:"+tc.want, string(got)); diff != "" {
				t.Errorf("AppendJSON() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// differentialInputs are every table input plus a few extra shapes.
func differentialInputs() map[string]string {
	in := map[string]string{
		"mixed document":        `{"a":[1,{"b":"c\u0041"}],"d":"\t"}`,
		"unicode member names":  `{"é":1,"\u00e8":2}`,
		"duplicate in deep one": `[[[{"x":1,"y":{"z":1,"z":2}}]]]`,
		"float for json only":   `{"n":1.25}`,
		"null for json only":    `[null]`,
		"lone surrogate json":   `"\udc00"`,
	}
	for name, tc := range acceptCases() {
		if tc.lim == (jsonexact.Limits{}) {
			in["accept: "+name] = tc.input
		}
	}
	for name, tc := range rejectCases() {
		if tc.lim == (jsonexact.Limits{}) {
			in["reject: "+name] = tc.input
		}
	}
	return in
}

// TestDifferentialAgainstEncodingJSON checks that Decode accepts a subset
// of what encoding/json accepts, that accepted inputs mean the same thing
// to both, and that AppendJSON round-trips.
func TestDifferentialAgainstEncodingJSON(t *testing.T) {
	t.Parallel()
	for name, input := range differentialInputs() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := jsonexact.Decode([]byte(input), jsonexact.Limits{})
			if err != nil {
				return
			}
			if !json.Valid([]byte(input)) {
				t.Fatalf("Decode accepted input that json.Valid rejects")
			}
			checkSameMeaning(t, input, v)
			out := v.AppendJSON(nil)
			if !json.Valid(out) {
				t.Fatalf("AppendJSON output is not valid JSON")
			}
			w, err := jsonexact.Decode(out, jsonexact.Limits{})
			if err != nil {
				t.Fatalf("Decode(AppendJSON) error: %v", err)
			}
			if !v.Equal(w) {
				t.Errorf("Decode(AppendJSON(v)) is not Equal to v")
			}
		})
	}
}
