package argprofile_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/argprofile"
)

// jv is an abstract JSON value: the generator renders it in several
// spellings (member order, white space, number notation), and the oracle
// below decides JSON value equality independently of the package.
type jv struct {
	kind    string // null bool num str arr obj
	b       bool
	m       int64 // num: m / 10^k
	k       int
	s       string
	items   []jv
	members []kv
}

type kv struct {
	name string
	v    jv
}

var (
	asciiAlphabet = []string{"a", "b", " ", "~", "A"}
	textAlphabet  = []string{"a", "\n", "é", "😀", "\\", "\"", "\u0000", "u{a}"}
)

func randString(r *rand.Rand, alphabet []string) string {
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// randNode draws a random profile node of at most depth levels.
func randNode(r *rand.Rand, depth int) argprofile.NodeDraft {
	choices := []string{"string", "text", "integer", "decimal", "bool", "enum", "json"}
	if depth > 1 {
		choices = append(choices, "array", "object", "union")
	}
	switch c := choices[r.IntN(len(choices))]; c {
	case "text":
		return argprofile.NodeDraft{Choice: c, Bind: []string{"digest", "escaped"}[r.IntN(2)]}
	case "integer":
		return argprofile.NodeDraft{Choice: c, Unsigned: r.IntN(2) == 0}
	case "decimal":
		s := r.IntN(4)
		return argprofile.NodeDraft{Choice: c, Scale: &s}
	case "enum":
		n := argprofile.NodeDraft{Choice: c}
		for i := range 1 + r.IntN(3) {
			n.Cases = append(n.Cases, argprofile.CaseDraft{JSON: []string{"A", "b b", "Ç"}[i], Case: "c" + strconv.Itoa(i)})
		}
		return n
	case "array":
		it := randNode(r, depth-1)
		return argprofile.NodeDraft{Choice: c, Items: &it}
	case "object":
		n := argprofile.NodeDraft{Choice: c}
		for i := range r.IntN(4) {
			n.Members = append(n.Members, argprofile.MemberDraft{
				JSON: []string{"aB", "a_b", "x", "Ω"}[i], Field: "f" + strconv.Itoa(3-i), Required: r.IntN(3) == 0, Value: randNode(r, depth-1)})
		}
		return n
	case "union":
		kinds := []string{"null", "bool", "number", "string", "array", "object"}
		r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		n := argprofile.NodeDraft{Choice: c}
		for i, k := range kinds[:2+r.IntN(2)] {
			a := argprofile.AlternativeDraft{When: k, Tag: []string{"a", "u", "z"}[i]}
			var v argprofile.NodeDraft
			switch k {
			case "null":
			case "bool":
				v = argprofile.NodeDraft{Choice: "bool"}
			case "number":
				s := 1
				v = argprofile.NodeDraft{Choice: "decimal", Scale: &s}
			case "string":
				v = argprofile.NodeDraft{Choice: "text", Bind: "digest"}
			case "array", "object":
				v = argprofile.NodeDraft{Choice: "json"}
			}
			if k != "null" {
				a.Value = &v
			}
			n.Alternatives = append(n.Alternatives, a)
		}
		return n
	default:
		return argprofile.NodeDraft{Choice: c}
	}
}

func randNumber(r *rand.Rand) jv { return jv{kind: "num", m: int64(r.IntN(21) - 10), k: r.IntN(3)} }

func randAny(r *rand.Rand, depth int) jv {
	kinds := []string{"null", "bool", "num", "str"}
	if depth > 0 {
		kinds = append(kinds, "arr", "obj")
	}
	switch k := kinds[r.IntN(len(kinds))]; k {
	case "bool":
		return jv{kind: k, b: r.IntN(2) == 0}
	case "num":
		return randNumber(r)
	case "str":
		return jv{kind: k, s: randString(r, textAlphabet)}
	case "arr":
		v := jv{kind: k}
		for range r.IntN(3) {
			v.items = append(v.items, randAny(r, depth-1))
		}
		return v
	case "obj":
		v := jv{kind: k}
		for i := range r.IntN(3) {
			v.members = append(v.members, kv{[]string{"b", "a", "10", "2"}[i], randAny(r, depth-1)})
		}
		return v
	}
	return jv{kind: "null"}
}

// randValue draws a value for node n: mostly of its kind, sometimes any.
func randValue(r *rand.Rand, n *argprofile.NodeDraft) jv {
	if r.IntN(10) == 0 {
		return randAny(r, 1)
	}
	switch n.Choice {
	case "string":
		return jv{kind: "str", s: randString(r, asciiAlphabet)}
	case "text":
		return jv{kind: "str", s: randString(r, textAlphabet)}
	case "integer":
		return jv{kind: "num", m: int64(r.IntN(7) - 3)}
	case "decimal", "json":
		if n.Choice == "json" {
			return randAny(r, 2)
		}
		return randNumber(r)
	case "bool":
		return jv{kind: "bool", b: r.IntN(2) == 0}
	case "enum":
		return jv{kind: "str", s: n.Cases[r.IntN(len(n.Cases))].JSON}
	case "array":
		v := jv{kind: "arr"}
		for range r.IntN(3) {
			v.items = append(v.items, randValue(r, n.Items))
		}
		return v
	case "object":
		v := jv{kind: "obj"}
		for i := range n.Members {
			if r.IntN(3) > 0 {
				v.members = append(v.members, kv{n.Members[i].JSON, randValue(r, &n.Members[i].Value)})
			}
		}
		return v
	case "union":
		a := n.Alternatives[r.IntN(len(n.Alternatives))]
		if a.Value == nil {
			return jv{kind: "null"}
		}
		return randValue(r, a.Value)
	}
	return jv{kind: "null"}
}

// render writes v in a random spelling of the same JSON value.
func render(r *rand.Rand, b *strings.Builder, v jv) {
	ws := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t "}[r.IntN(3)])
		}
	}
	ws()
	switch v.kind {
	case "null":
		b.WriteString("null")
	case "bool":
		b.WriteString(strconv.FormatBool(v.b))
	case "num":
		m, k := v.m, v.k
		neg := m < 0
		if neg {
			m = -m
		}
		digits := strconv.FormatInt(m, 10)
		if z := r.IntN(3); z > 0 && r.IntN(2) == 0 { // trailing zeros: same value
			digits += strings.Repeat("0", z)
			k += z
		}
		if neg || (m == 0 && r.IntN(5) == 0) {
			b.WriteByte('-')
		}
		if r.IntN(6) == 0 && digits != "0" { // exponent notation
			b.WriteString(digits + "e" + strconv.Itoa(-k))
			break
		}
		for len(digits) <= k {
			digits = "0" + digits
		}
		b.WriteString(digits[:len(digits)-k])
		if k > 0 {
			b.WriteString("." + digits[len(digits)-k:])
		}
	case "str":
		if r.IntN(3) == 0 { // escape everything the long way
			b.WriteByte('"')
			for _, u := range utf16Units(v.s) {
				fmt.Fprintf(b, `\u%04x`, u)
			}
			b.WriteByte('"')
			break
		}
		q, _ := json.Marshal(v.s)
		b.Write(q)
	case "arr":
		b.WriteByte('[')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			render(r, b, it)
		}
		b.WriteByte(']')
	case "obj":
		ms := append([]kv(nil), v.members...)
		r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(m.name)
			b.Write(q)
			b.WriteByte(':')
			render(r, b, m.v)
		}
		b.WriteByte('}')
	}
	ws()
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, c := range s {
		if c >= 0x10000 {
			c -= 0x10000
			out = append(out, uint16(0xd800+(c>>10)), uint16(0xdc00+(c&0x3ff)))
		} else {
			out = append(out, uint16(c))
		}
	}
	return out
}

// sameJSONValue is the oracle: RFC 8785 equality with exact strings —
// member order does not count, numbers compare by exact decimal value.
func sameJSONValue(a, b []byte) bool {
	var x, y any
	for _, p := range []struct {
		in  []byte
		out *any
	}{{a, &x}, {b, &y}} {
		d := json.NewDecoder(bytes.NewReader(p.in))
		d.UseNumber()
		if err := d.Decode(p.out); err != nil {
			panic(err)
		}
	}
	return equalAny(x, y)
}

func equalAny(x, y any) bool {
	switch x := x.(type) {
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalAny(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalAny(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := y.(json.Number)
		if !ok {
			return false
		}
		a, _ := new(big.Rat).SetString(string(x))
		b, _ := new(big.Rat).SetString(string(y))
		return a.Cmp(b) == 0
	default:
		return x == y
	}
}

// I1: over random profiles and random values in random spellings, two
// accepted argument texts derive the same protocol arguments exactly when
// they are the same JSON value; and every accepted output validates in the
// core against the profile's Schema.
func TestDeriveIsInjective(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	pairs, equal := 0, 0
	for range 120 {
		root := randNode(r, 4)
		if root.Choice != "object" {
			root = argprofile.NodeDraft{Choice: "object", Members: []argprofile.MemberDraft{{JSON: "v", Field: "v", Value: root}}}
		}
		p, err := argprofile.New(argprofile.Draft{Profile: argprofile.Version, Tool: "t", Arguments: root})
		if err != nil {
			continue // a random draft can break the core's depth bound
		}
		var texts, outs [][]byte
		for range 24 {
			v := randValue(r, &root)
			for range 2 {
				var b strings.Builder
				render(r, &b, v)
				out, err := p.Derive([]byte(b.String()))
				if err != nil {
					continue
				}
				mustValidate(t, p, out)
				texts, outs = append(texts, []byte(b.String())), append(outs, out)
			}
		}
		for i := range texts {
			for j := i + 1; j < len(texts); j++ {
				pairs++
				same := sameJSONValue(texts[i], texts[j])
				if same {
					equal++
				}
				if same != bytes.Equal(outs[i], outs[j]) {
					t.Fatalf("profile %+v\n%s -> %s\n%s -> %s\nsame JSON value: %v", root, texts[i], outs[i], texts[j], outs[j], same)
				}
			}
		}
	}
	if pairs < 10000 || equal < 1000 || equal == pairs {
		t.Fatalf("weak sample: %d pairs, %d of the same value", pairs, equal)
	}
	t.Logf("%d pairs compared, %d of them the same value in different spellings", pairs, equal)
}

// The escaping of bind: escaped is injective: every string of up to four
// symbols over an alphabet holding the escape's own characters derives to
// a different protocol string.
func TestEscapingIsInjective(t *testing.T) {
	t.Parallel()
	p := oneMember(t, `{choice: text, bind: escaped}`)
	alphabet := []string{"\\", "u", "{", "}", "a}", "\n", "\u00e9", "\U0001f600", "\u007f"}
	seen := map[string]string{}
	var walk func(s string, n int)
	walk = func(s string, n int) {
		q, _ := json.Marshal(s)
		out, err := p.Derive([]byte(`{"v":` + string(q) + `}`))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if prev, ok := seen[string(out)]; ok {
			t.Fatalf("%q and %q both derive %s", prev, s, out)
		}
		seen[string(out)] = s
		if n == 0 {
			return
		}
		for _, a := range alphabet {
			walk(s+a, n-1)
		}
	}
	walk("", 4)
}
