package jsonexact_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

func TestIntegerAccessors(t *testing.T) {
	t.Parallel()
	const (
		none  = jsonexact.Code(0)
		rng   = jsonexact.CodeOutOfRange
		wrong = jsonexact.CodeWrongKind
	)
	tests := map[string]struct {
		input          string
		wantLiteral    string
		wantInt64      int64
		wantInt64Code  jsonexact.Code
		wantUint64     uint64
		wantUint64Code jsonexact.Code
	}{
		"zero fits both domains":              {input: `0`, wantLiteral: "0"},
		"minus one is signed only":            {input: `-1`, wantLiteral: "-1", wantInt64: -1, wantUint64Code: rng},
		"int64 minimum":                       {input: `-9223372036854775808`, wantLiteral: "-9223372036854775808", wantInt64: math.MinInt64, wantUint64Code: rng},
		"int64 maximum fits both":             {input: `9223372036854775807`, wantLiteral: "9223372036854775807", wantInt64: math.MaxInt64, wantUint64: math.MaxInt64},
		"2^63 is unsigned only":               {input: `9223372036854775808`, wantLiteral: "9223372036854775808", wantInt64Code: rng, wantUint64: 1 << 63},
		"uint64 maximum is unsigned only":     {input: `18446744073709551615`, wantLiteral: "18446744073709551615", wantInt64Code: rng, wantUint64: math.MaxUint64},
		"2^53+1 is exact, not float-rounded":  {input: `9007199254740993`, wantLiteral: "9007199254740993", wantInt64: 9007199254740993, wantUint64: 9007199254740993},
		"string holding digits is wrong kind": {input: `"12"`, wantInt64Code: wrong, wantUint64Code: wrong},
		"bool is wrong kind":                  {input: `true`, wantInt64Code: wrong, wantUint64Code: wrong},
		"array is wrong kind":                 {input: `[1]`, wantInt64Code: wrong, wantUint64Code: wrong},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := mustDecode(t, tc.input)
			if diff := cmp.Diff(tc.wantLiteral, v.Literal()); diff != "" {
				t.Errorf("Literal() mismatch (-want +got):\n%s", diff)
			}
			gotI, err := v.Int64()
			if diff := cmp.Diff(tc.wantInt64, gotI); diff != "" {
				t.Errorf("Int64() value mismatch (-want +got):\n%s", diff)
			}
			checkCode(t, "Int64()", tc.wantInt64Code, err)
			gotU, err := v.Uint64()
			if diff := cmp.Diff(tc.wantUint64, gotU); diff != "" {
				t.Errorf("Uint64() value mismatch (-want +got):\n%s", diff)
			}
			checkCode(t, "Uint64()", tc.wantUint64Code, err)
		})
	}
}

func checkCode(t *testing.T, call string, want jsonexact.Code, err error) {
	t.Helper()
	if want == 0 {
		if err != nil {
			t.Errorf("%s error: %v, want nil", call, err)
		}
		return
	}
	if diff := cmp.Diff(&jsonexact.Error{Code: want, Offset: -1}, asError(t, err)); diff != "" {
		t.Errorf("%s error mismatch (-want +got):\n%s", call, diff)
	}
}

func TestScalarAccessorsOnOtherKinds(t *testing.T) {
	t.Parallel()
	type view struct {
		Kind    string
		Text    string
		Bool    bool
		Literal string
		Len     int
		Members []jsonexact.Member
		Elems   []jsonexact.Value
	}
	tests := map[string]struct {
		input string
		want  view
	}{
		"integer has only a literal":  {input: `7`, want: view{Kind: "integer", Literal: "7"}},
		"string has only text":        {input: `"7"`, want: view{Kind: "string", Text: "7"}},
		"true has only bool":          {input: `true`, want: view{Kind: "bool", Bool: true}},
		"empty object has no members": {input: `{}`, want: view{Kind: "object", Members: []jsonexact.Member{}}},
		"empty array has no elements": {input: `[]`, want: view{Kind: "array", Elems: []jsonexact.Value{}}},
		"array length":                {input: `[1,2,3]`, want: view{Kind: "array", Len: 3}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := mustDecode(t, tc.input)
			got := view{Kind: v.Kind().String(), Text: v.Text(), Bool: v.Bool(), Literal: v.Literal(),
				Len: v.Len(), Members: v.Members(), Elems: v.Elems()}
			if tc.want.Len > 0 {
				got.Elems = nil // element contents are covered elsewhere
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(jsonexact.Value.Equal)); diff != "" {
				t.Errorf("accessors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestZeroValue(t *testing.T) {
	t.Parallel()
	var v jsonexact.Value
	got := []any{v.Kind(), v.Text(), v.Bool(), v.Literal(), v.Len(), v.Members() == nil, v.Elems() == nil, string(v.AppendJSON(nil))}
	want := []any{jsonexact.Kind(0), "", false, "", 0, true, true, "null"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("zero Value accessors mismatch (-want +got):\n%s", diff)
	}
	if _, err := v.Int64(); !errors.Is(err, jsonexact.ErrWrongKind) {
		t.Errorf("zero Value Int64() error = %v, want wrongKind", err)
	}
	if _, err := jsonexact.Decode(v.AppendJSON(nil), jsonexact.Limits{}); !errors.Is(err, jsonexact.ErrNull) {
		t.Errorf("Decode(zero AppendJSON) error = %v, want null", err)
	}
}

func TestAccessorsReturnCopies(t *testing.T) {
	t.Parallel()
	v := mustDecode(t, `{"a":[1,2],"b":"x"}`)
	ms := v.Members()
	ms[0].Name = "z"
	ms[1].Value = jsonexact.Value{}
	es := ms[0].Value.Elems()
	es[0] = jsonexact.Value{}
	want := obj("a", arr(num("1"), num("2")), "b", str("x"))
	if diff := cmp.Diff(want, describe(v)); diff != "" {
		t.Errorf("value changed through returned slices (-want +got):\n%s", diff)
	}
}

func TestEqual(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b string
		want bool
	}{
		"identical objects":                    {a: `{"a":[1,"x",true],"b":{}}`, b: `{"a":[1,"x",true],"b":{}}`, want: true},
		"whitespace is insignificant":          {a: `{"a":[1, 2]}`, b: "{ \"a\" :\n[1,2] }", want: true},
		"escaped and raw text are equal":       {a: `"\u00e9\/"`, b: `"é/"`, want: true},
		"member order is significant":          {a: `{"a":1,"b":2}`, b: `{"b":2,"a":1}`, want: false},
		"member names differ":                  {a: `{"a":1}`, b: `{"b":1}`, want: false},
		"element order is significant":         {a: `[1,2]`, b: `[2,1]`, want: false},
		"different lengths":                    {a: `[1,2]`, b: `[1,2,3]`, want: false},
		"integer and digit string differ":      {a: `1`, b: `"1"`, want: false},
		"true and false differ":                {a: `true`, b: `false`, want: false},
		"empty object and empty array differ":  {a: `{}`, b: `[]`, want: false},
		"deep difference is found":             {a: `[[[{"a":[1]}]]]`, b: `[[[{"a":[2]}]]]`, want: false},
		"difference after equal nested prefix": {a: `[[1],[2]]`, b: `[[1],[3]]`, want: false},
		"large integers compare exactly":       {a: `18446744073709551615`, b: `18446744073709551614`, want: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, b := mustDecode(t, tc.a), mustDecode(t, tc.b)
			if got := a.Equal(b); got != tc.want {
				t.Errorf("a.Equal(b) = %v, want %v", got, tc.want)
			}
			if got := b.Equal(a); got != tc.want {
				t.Errorf("b.Equal(a) = %v, want %v", got, tc.want)
			}
		})
	}
	if !(jsonexact.Value{}).Equal(jsonexact.Value{}) {
		t.Errorf("zero.Equal(zero) = false, want true")
	}
}

func TestKindString(t *testing.T) {
	t.Parallel()
	got := []string{}
	for k := jsonexact.Kind(0); k <= jsonexact.Number+1; k++ {
		got = append(got, k.String())
	}
	want := []string{"Kind(0)", "object", "array", "string", "bool", "integer", "null", "number", "Kind(8)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kind.String() mismatch (-want +got):\n%s", diff)
	}
}

func TestCodeStringTokens(t *testing.T) {
	t.Parallel()
	got := []string{jsonexact.Code(0).String()}
	for _, c := range allCodes {
		got = append(got, c.String())
	}
	got = append(got, (allCodes[len(allCodes)-1] + 1).String())
	want := []string{"Code(0)", "syntax", "duplicateKey", "fraction", "exponent", "null", "outOfRange",
		"negativeZero", "invalidUTF8", "invalidEscape", "trailingData", "tooDeep", "tooLarge", "empty",
		"wrongKind", "Code(15)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Code.String() mismatch (-want +got):\n%s", diff)
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  *jsonexact.Error
		want string
	}{
		"positioned error":     {err: &jsonexact.Error{Code: jsonexact.CodeDuplicateKey, Offset: 7}, want: "jsonexact: duplicate object member name at byte 7"},
		"offset zero is shown": {err: &jsonexact.Error{Code: jsonexact.CodeEmpty}, want: "jsonexact: empty input at byte 0"},
		"accessor error":       {err: &jsonexact.Error{Code: jsonexact.CodeWrongKind, Offset: -1}, want: "jsonexact: value is not of the requested kind"},
		"sentinel":             {err: jsonexact.ErrTooDeep, want: "jsonexact: nesting exceeds the depth limit"},
		"unknown code":         {err: &jsonexact.Error{Code: 99, Offset: 1}, want: "jsonexact: unknown error Code(99) at byte 1"},
		"nil error":            {err: nil, want: "jsonexact: <nil>"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("Error() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorsIsMatchesByCode(t *testing.T) {
	t.Parallel()
	sentinels := []*jsonexact.Error{
		jsonexact.ErrSyntax, jsonexact.ErrDuplicateKey, jsonexact.ErrFraction, jsonexact.ErrExponent,
		jsonexact.ErrNull, jsonexact.ErrOutOfRange, jsonexact.ErrNegativeZero, jsonexact.ErrInvalidUTF8,
		jsonexact.ErrInvalidEscape, jsonexact.ErrTrailingData, jsonexact.ErrTooDeep, jsonexact.ErrTooLarge,
		jsonexact.ErrEmpty, jsonexact.ErrWrongKind,
	}
	if len(sentinels) != len(allCodes) {
		t.Fatalf("%d sentinels for %d codes", len(sentinels), len(allCodes))
	}
	for i, s := range sentinels {
		if s.Code != allCodes[i] {
			t.Errorf("sentinel %d has code %v, want %v", i, s.Code, allCodes[i])
		}
		for j, c := range allCodes {
			err := error(&jsonexact.Error{Code: c, Offset: 42})
			if got, want := errors.Is(err, s), i == j; got != want {
				t.Errorf("errors.Is(%v error, %v sentinel) = %v, want %v", c, s.Code, got, want)
			}
		}
	}
	if errors.Is(&jsonexact.Error{Code: jsonexact.CodeSyntax}, errors.New("syntax")) {
		t.Errorf("errors.Is matched a foreign error")
	}
}

// TestErrorsNeverQuoteInput guards the logging-safety promise: rejected
// names, values and raw bytes must not leak into error text.
func TestErrorsNeverQuoteInput(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		input     string
		forbidden string
	}{
		"duplicate secret key":       {input: `{"secretkey":1,"secretkey":2}`, forbidden: "secretkey"},
		"out of range literal":       {input: `12345678901234567890123`, forbidden: "123456"},
		"fraction literal":           {input: `{"k":3.14159}`, forbidden: "14159"},
		"bad escape in secret value": {input: `{"k":"secretvalue\q"}`, forbidden: "secret"},
		"control char in secret":     {input: "{\"k\":\"secretvalue\x01\"}", forbidden: "secret"},
		"null under secret name":     {input: `{"secretname":null}`, forbidden: "secret"},
		"trailing secret":            {input: `1 secret`, forbidden: "secret"},
		"bad bytes":                  {input: "\"secret\xff\"", forbidden: "secret"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := jsonexact.Decode([]byte(tc.input), jsonexact.Limits{})
			if err == nil {
				t.Fatalf("Decode() succeeded, want error")
			}
			if msg := err.Error(); strings.Contains(msg, tc.forbidden) {
				t.Errorf("Error() = %q contains input text %q", msg, tc.forbidden)
			}
		})
	}
}

// TestIndexAccessors: MemberAt and ElemAt read exactly what Members and
// Elems copy, and refuse any other kind.
func TestIndexAccessors(t *testing.T) {
	t.Parallel()
	v, err := jsonexact.Decode([]byte(`{"a":[1,"x",true],"b":{"c":"y"}}`), jsonexact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	members := v.Members()
	for i := range v.Len() {
		if got := v.MemberAt(i); got.Name != members[i].Name || got.Value.Kind() != members[i].Value.Kind() {
			t.Errorf("MemberAt(%d) = %q, want %q", i, got.Name, members[i].Name)
		}
	}
	arr := v.MemberAt(0).Value
	elems := arr.Elems()
	for i := range arr.Len() {
		if got := arr.ElemAt(i); got.Kind() != elems[i].Kind() {
			t.Errorf("ElemAt(%d) kind %v, want %v", i, got.Kind(), elems[i].Kind())
		}
	}
	for name, f := range map[string]func(){
		"MemberAt of an array": func() { arr.MemberAt(0) },
		"ElemAt of an object":  func() { v.ElemAt(0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s does not panic", name)
				}
			}()
			f()
		}()
	}
}
