package schema_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// Draft builders keep tables short and readable.

func str() schema.Draft      { return schema.Draft{Kind: "string"} }
func resource() schema.Draft { return schema.Draft{Kind: "resourceID"} }
func boolean() schema.Draft  { return schema.Draft{Kind: "bool"} }
func signed() schema.Draft   { return schema.Draft{Kind: "signedInteger"} }
func unsigned() schema.Draft { return schema.Draft{Kind: "unsignedInteger"} }

func enum(cases ...string) schema.Draft {
	return schema.Draft{Kind: "enumeration", Cases: cases}
}

func array(items schema.Draft) schema.Draft {
	return schema.Draft{Kind: "array", Items: &items}
}

func object(fields ...schema.FieldDraft) schema.Draft {
	if fields == nil {
		fields = []schema.FieldDraft{}
	}
	return schema.Draft{Kind: "object", Fields: fields}
}

func req(name string, t schema.Draft) schema.FieldDraft {
	return schema.FieldDraft{Name: name, Requirement: "required", Type: t}
}

func opt(name string, t schema.Draft) schema.FieldDraft {
	return schema.FieldDraft{Name: name, Requirement: "optional", Type: t}
}

// fname returns a distinct valid field name for index i ("f000".."f999").
func fname(i int) string { return fmt.Sprintf("f%03d", i) }

// manyFields returns n optional fields of type t named fname(0..n-1).
func manyFields(n int, t schema.Draft) []schema.FieldDraft {
	fs := make([]schema.FieldDraft, n)
	for i := range fs {
		fs[i] = opt(fname(i), t)
	}
	return fs
}

// manyCases returns n distinct valid cases.
func manyCases(n int) []string {
	cs := make([]string, n)
	for i := range cs {
		cs[i] = fmt.Sprintf("c%03d", i)
	}
	return cs
}

// chain returns a schema of exactly levels levels: nested objects, each with
// one required field "n", ending in a string leaf.
func chain(levels int) schema.Draft {
	d := str()
	for range levels - 1 {
		d = object(req("n", d))
	}
	return d
}

// withNodes returns a root object of exactly n nodes (n >= 2): the root,
// 63 fields and the remaining nodes as string fields of nested objects.
func withNodes(n int) schema.Draft {
	rest := n - 1 // nodes below the root
	var fields []schema.FieldDraft
	for i := 0; rest > 0; i++ {
		// Each root field is an object with up to 63 string fields, or a
		// lone string when only one node is left.
		if rest == 1 {
			fields = append(fields, req(fname(i), str()))
			rest--
			continue
		}
		k := min(rest-1, 63)
		fields = append(fields, req(fname(i), object(manyFields(k, str())...)))
		rest -= k + 1
	}
	return object(fields...)
}

var testID = mustID("payments-submit")

func mustID(s string) ident.SchemaID {
	id, err := ident.ParseSchemaID(s)
	if err != nil {
		panic(err)
	}
	return id
}

func mustNew(tb testing.TB, d schema.Draft) schema.Schema {
	tb.Helper()
	s, err := schema.New(testID, vocab.V1, d)
	if err != nil {
		tb.Fatalf("schema.New: %v", err)
	}
	return s
}

func decode(tb testing.TB, js string) jsonexact.Value {
	tb.Helper()
	v, err := jsonexact.Decode([]byte(js), jsonexact.Limits{})
	if err != nil {
		tb.Fatalf("jsonexact.Decode(%q): %v", js, err)
	}
	return v
}

// renderJSON writes a validated value back to JSON. Strings are printable
// ASCII, so only '"' and '\' need escaping.
func renderJSON(v value.Value) []byte { return appendJSON(nil, v) }

func appendJSON(b []byte, v value.Value) []byte {
	switch v.Kind() {
	case vocab.KindString, vocab.KindResourceID, vocab.KindEnumeration:
		b = append(b, '"')
		for i := 0; i < len(v.Text()); i++ {
			if c := v.Text()[i]; c == '"' || c == '\\' {
				b = append(b, '\\', c)
			} else {
				b = append(b, c)
			}
		}
		return append(b, '"')
	case vocab.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case vocab.KindSignedInteger:
		return strconv.AppendInt(b, v.Int(), 10)
	case vocab.KindUnsignedInteger:
		return strconv.AppendUint(b, v.Uint(), 10)
	case vocab.KindArray:
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, v.Elem(i))
		}
		return append(b, ']')
	case vocab.KindObject:
		b = append(b, '{')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			f := v.Field(i)
			b = strconv.AppendQuote(b, f.Name().String())
			b = append(b, ':')
			b = appendJSON(b, f.Value())
		}
		return append(b, '}')
	}
	panic("renderJSON: invalid value kind " + v.Kind().String())
}

// richDraft exercises every kind, nesting through arrays and objects, and
// both requirements. It is the fixed schema of FuzzValidate.
func richDraft() schema.Draft {
	return object(
		req("recipient", str()),
		req("source", resource()),
		req("amount", unsigned()),
		opt("delta", signed()),
		req("currency", enum("usd", "eur", "chf")),
		opt("urgent", boolean()),
		opt("approvers", array(resource())),
		opt("matrix", array(array(signed()))),
		opt("details", object(
			opt("memo", str()),
			opt("account", resource()),
			opt("tags", array(enum("a", "b"))),
			opt("lines", array(object(req("account", resource()), opt("note", str())))),
		)),
	)
}

// richSeeds are inputs for the rich schema: valid ones and near misses.
var richSeeds = []string{
	`{"recipient":"Ada","source":"acct-1","amount":10,"currency":"usd"}`,
	`{"currency":"eur","amount":18446744073709551615,"source":"acct-1","recipient":" spaced "}`,
	`{"recipient":"","source":"a","amount":0,"currency":"chf","delta":-9223372036854775808,"urgent":true,` +
		`"approvers":["b","a","b"],"matrix":[[1,2],[],[-3]],` +
		`"details":{"memo":"x","account":"z","tags":["a","a","b"],"lines":[{"account":"q"},{"account":"a","note":"n"}]}}`,
	`{"recipient":"Ada","source":"acct-1","amount":-1,"currency":"usd"}`,
	`{"recipient":"Ada","source":"ACCT","amount":1,"currency":"usd"}`,
	`{"recipient":"Ada","source":"acct-1","amount":1,"currency":"USD"}`,
	`{"recipient":"\u0000","source":"acct-1","amount":1,"currency":"usd"}`,
	`{"recipient":"Ada","source":"acct-1","amount":"1","currency":"usd"}`,
	`{"recipient":"Ada","source":"acct-1","amount":1,"currency":"usd","secret-value-123":1}`,
	`{"recipient":"Ada","source":"acct-1","amount":1,"currency":"usd","details":{"lines":[{"note":"n"}]}}`,
	`{"recipient":"Ada","source":"acct-1","amount":1,"currency":"usd","matrix":[[1],[9223372036854775808]]}`,
	`[]`, `"x"`, `1`, `true`, `{}`,
}

// allStrings reports whether every string payload in v satisfies ok.
func allStrings(v value.Value, ok func(string) bool) bool {
	switch v.Kind() {
	case vocab.KindString, vocab.KindResourceID, vocab.KindEnumeration:
		return ok(v.Text())
	case vocab.KindArray:
		for i := range v.Len() {
			if !allStrings(v.Elem(i), ok) {
				return false
			}
		}
	case vocab.KindObject:
		for i := range v.Len() {
			if !ok(v.Field(i).Name().String()) || !allStrings(v.Field(i).Value(), ok) {
				return false
			}
		}
	}
	return true
}

func resourceStrings(rs []ident.Resource) []string {
	if rs == nil {
		return nil
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

func isSortedUnique(s []string) bool {
	for i := 1; i < len(s); i++ {
		if strings.Compare(s[i-1], s[i]) >= 0 {
			return false
		}
	}
	return true
}
