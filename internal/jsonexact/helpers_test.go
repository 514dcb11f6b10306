package jsonexact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

// allCodes is the closed Code set; a test fails if a new code is added
// without being listed here (see TestCodeStringTokens).
var allCodes = []jsonexact.Code{
	jsonexact.CodeSyntax,
	jsonexact.CodeDuplicateKey,
	jsonexact.CodeFraction,
	jsonexact.CodeExponent,
	jsonexact.CodeNull,
	jsonexact.CodeOutOfRange,
	jsonexact.CodeNegativeZero,
	jsonexact.CodeInvalidUTF8,
	jsonexact.CodeInvalidEscape,
	jsonexact.CodeTrailingData,
	jsonexact.CodeTooDeep,
	jsonexact.CodeTooLarge,
	jsonexact.CodeEmpty,
	jsonexact.CodeWrongKind,
}

func knownCode(c jsonexact.Code) bool {
	for _, k := range allCodes {
		if c == k {
			return true
		}
	}
	return false
}

// node is a plain, cmp-friendly mirror of a Value built only through the
// public accessors.
type node struct {
	Kind    string
	Text    string   `json:",omitempty"`
	Lit     string   `json:",omitempty"`
	Bool    bool     `json:",omitempty"`
	Members []member `json:",omitempty"`
	Elems   []node   `json:",omitempty"`
}

type member struct {
	Name  string
	Value node
}

func describe(v jsonexact.Value) node {
	n := node{Kind: v.Kind().String()}
	switch v.Kind() {
	case jsonexact.String:
		n.Text = v.Text()
	case jsonexact.Integer:
		n.Lit = v.Literal()
	case jsonexact.Bool:
		n.Bool = v.Bool()
	case jsonexact.Object:
		for _, m := range v.Members() {
			n.Members = append(n.Members, member{Name: m.Name, Value: describe(m.Value)})
		}
	case jsonexact.Array:
		for _, e := range v.Elems() {
			n.Elems = append(n.Elems, describe(e))
		}
	}
	return n
}

// Shorthands for expected trees.
func str(s string) node   { return node{Kind: "string", Text: s} }
func num(l string) node   { return node{Kind: "integer", Lit: l} }
func boolean(b bool) node { return node{Kind: "bool", Bool: b} }
func arr(e ...node) node  { return node{Kind: "array", Elems: e} }
func obj(kv ...any) node {
	n := node{Kind: "object"}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Members = append(n.Members, member{Name: kv[i].(string), Value: kv[i+1].(node)})
	}
	return n
}

// toAny converts a Value into the shape encoding/json produces with
// UseNumber, for the differential test.
func toAny(v jsonexact.Value) any {
	switch v.Kind() {
	case jsonexact.Object:
		m := map[string]any{}
		for _, mem := range v.Members() {
			m[mem.Name] = toAny(mem.Value)
		}
		return m
	case jsonexact.Array:
		s := []any{}
		for _, e := range v.Elems() {
			s = append(s, toAny(e))
		}
		return s
	case jsonexact.String:
		return v.Text()
	case jsonexact.Bool:
		return v.Bool()
	case jsonexact.Integer:
		return json.Number(v.Literal())
	}
	return nil
}

// mustDecode decodes with default limits and fails the test on error.
func mustDecode(t testing.TB, s string) jsonexact.Value {
	t.Helper()
	v, err := jsonexact.Decode([]byte(s), jsonexact.Limits{})
	if err != nil {
		t.Fatalf("Decode(%q) error: %v", s, err)
	}
	return v
}

// asError extracts the *Error from err, failing the test if there is none.
func asError(t testing.TB, err error) *jsonexact.Error {
	t.Helper()
	var e *jsonexact.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *jsonexact.Error", err, err)
	}
	return e
}

func nested(open, close string, depth int) string {
	return strings.Repeat(open, depth) + strings.Repeat(close, depth)
}

// bigObject returns an object with n distinct members "k0".."k<n-1>" and,
// if dupAt >= 0, a final member repeating the name "k<dupAt>".
func bigObject(n, dupAt int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	if dupAt >= 0 {
		b.WriteString(`,"k` + strconv.Itoa(dupAt) + `":0`)
	}
	b.WriteByte('}')
	return b.String()
}

// checkSameMeaning compares v with what encoding/json (UseNumber) makes of
// input. Both are re-marshalled (sorted keys, exact json.Number) and the
// texts compared: cmp.Diff is exponential on deeply nested slices. Only
// valid for inputs Decode accepted, which have no duplicate names.
func checkSameMeaning(t testing.TB, input string, v jsonexact.Value) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(input)))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json Decode error: %v", err)
	}
	wantText, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("json.Marshal(encoding/json result) error: %v", err)
	}
	gotText, err := json.Marshal(toAny(v))
	if err != nil {
		t.Fatalf("json.Marshal(Decode result) error: %v", err)
	}
	if diff := cmp.Diff(string(wantText), string(gotText)); diff != "" {
		t.Errorf("meaning differs from encoding/json (-want +got):\n%s", diff)
	}
}
