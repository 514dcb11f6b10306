package jsonexact_test

import (
	"errors"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

// DecodeAny keeps null and every well-formed number as its exact token, and
// rejects everything else exactly as Decode does.
func TestDecodeAnyKeepsNullAndEveryNumberExactly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		kind jsonexact.Kind
		lit  string
	}{
		{"null", jsonexact.Null, ""},
		{"1.50", jsonexact.Number, "1.50"},
		{"-0", jsonexact.Number, "-0"},
		{"1E+2", jsonexact.Number, "1E+2"},
		{"18446744073709551616", jsonexact.Number, "18446744073709551616"},
		{"-9223372036854775809", jsonexact.Number, "-9223372036854775809"},
		{"42", jsonexact.Integer, "42"},
	} {
		v, err := jsonexact.DecodeAny([]byte(tc.in), jsonexact.Limits{})
		if err != nil {
			t.Fatalf("DecodeAny(%s): %v", tc.in, err)
		}
		if v.Kind() != tc.kind || v.Literal() != tc.lit {
			t.Errorf("DecodeAny(%s) = %v %q, want %v %q", tc.in, v.Kind(), v.Literal(), tc.kind, tc.lit)
		}
		if got := string(v.AppendJSON(nil)); got != tc.in {
			t.Errorf("AppendJSON(DecodeAny(%s)) = %s", tc.in, got)
		}
		if _, err := jsonexact.Decode([]byte(tc.in), jsonexact.Limits{}); err == nil && tc.kind != jsonexact.Integer {
			t.Errorf("Decode(%s) accepted what only DecodeAny may", tc.in)
		}
	}
	v, err := jsonexact.DecodeAny([]byte(`{"a":[null,2.5e-3]}`), jsonexact.Limits{})
	if err != nil || v.MemberAt(0).Value.ElemAt(1).Literal() != "2.5e-3" || v.MemberAt(0).Value.ElemAt(0).Kind() != jsonexact.Null {
		t.Errorf("nested: %v %v", v, err)
	}
	for _, tc := range []struct {
		in   string
		want error
	}{
		{`{"a":1,"a":2}`, jsonexact.ErrDuplicateKey},
		{`01`, jsonexact.ErrSyntax},
		{`1.`, jsonexact.ErrSyntax},
		{`"\ud800"`, jsonexact.ErrInvalidEscape},
		{`nul`, jsonexact.ErrSyntax},
		{`null x`, jsonexact.ErrTrailingData},
	} {
		if _, err := jsonexact.DecodeAny([]byte(tc.in), jsonexact.Limits{}); !errors.Is(err, tc.want) {
			t.Errorf("DecodeAny(%s) = %v, want %v", tc.in, err, tc.want)
		}
	}
}
