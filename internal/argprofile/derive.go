package argprofile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
	"github.com/toolgate/toolgate/internal/jsonexact"
	"github.com/toolgate/toolgate/internal/jsonlex"
)

// Derive maps the exact argument bytes of one tools/call to protocol
// arguments: compact JSON with protocol field names, integer literals and
// printable-ASCII strings, members in field order, which the authorize
// path decodes (jsonexact), validates against Schema and canonicalizes.
//
// It is pure and deterministic (I2). On any refusal it returns nil and
// Errors holding every refusal of the whole value (I5), each with its Code
// and the JSON pointer of the value (reviewed names only), never the value.
func (p *Profile) Derive(raw []byte) ([]byte, error) {
	if len(raw) > p.maxOctets {
		return nil, Errors{{Code: CodeTooLarge, Path: ""}}
	}
	v, err := jsonexact.DecodeAny(raw, jsonexact.Limits{MaxDepth: p.maxDepth, MaxBytes: p.maxOctets})
	if err != nil {
		return nil, Errors{{Code: decodeCode(err), Path: ""}}
	}
	d := deriver{out: make([]byte, 0, len(raw)+64)}
	d.value(p.root, v)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return d.out, nil
}

// decodeCode maps a jsonexact rejection to the profile's closed codes.
func decodeCode(err error) Code {
	switch {
	case errors.Is(err, jsonexact.ErrDuplicateKey):
		return CodeDuplicate
	case errors.Is(err, jsonexact.ErrTooDeep):
		return CodeTooDeep
	case errors.Is(err, jsonexact.ErrTooLarge):
		return CodeTooLarge
	}
	return CodeSyntax
}

// deriver holds the output and the JSON pointer of the value being
// derived as its reference tokens, joined only when a refusal needs it.
type deriver struct {
	out  []byte
	errs Errors
	at   []string
}

func (d *deriver) push(token string) { d.at = append(d.at, token) }
func (d *deriver) pop()              { d.at = d.at[:len(d.at)-1] }

func (d *deriver) fail(code Code) {
	var b strings.Builder
	for _, t := range d.at {
		b.WriteByte('/')
		b.WriteString(pointerToken(t))
	}
	d.errs = append(d.errs, &Error{Code: code, Path: b.String()})
}

func (d *deriver) value(n *node, v jsonexact.Value) {
	switch n.choice {
	case ChoiceString:
		d.str(n, v)
	case ChoiceText:
		d.text(n, v)
	case ChoiceInteger, ChoiceDecimal:
		d.number(n, v)
	case ChoiceBool:
		if v.Kind() != jsonexact.Bool {
			d.fail(CodeKind)
			return
		}
		if n.constant != nil && n.constant.Bool() != v.Bool() {
			d.fail(CodeConst)
			return
		}
		d.out = strconv.AppendBool(d.out, v.Bool())
	case ChoiceEnum:
		d.enum(n, v)
	case ChoiceArray:
		d.array(n, v)
	case ChoiceObject:
		d.object(n, v)
	case ChoiceUnion:
		d.union(n, v)
	case ChoiceJSON:
		d.json(n, v)
	}
}

// stringChecks applies the constraints shared by string and text; it
// reports whether s passed.
func (d *deriver) stringChecks(n *node, s string) bool {
	ok := true
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.maxLen >= 0 && l > n.maxLen {
			d.fail(CodeTooLong)
			ok = false
		}
		if l < n.minLen {
			d.fail(CodeTooShort)
			ok = false
		}
	}
	if n.re != nil && !n.re.MatchString(s) {
		d.fail(CodePattern)
		ok = false
	}
	if !n.format.holds(s) {
		d.fail(CodeFormat)
		ok = false
	}
	if n.constant != nil && n.constant.Text() != s {
		d.fail(CodeConst)
		ok = false
	}
	return ok
}

func (d *deriver) str(n *node, v jsonexact.Value) {
	if v.Kind() != jsonexact.String {
		d.fail(CodeKind)
		return
	}
	s := v.Text()
	if !printableASCII(s) {
		d.fail(CodeNotASCII)
		return
	}
	if d.stringChecks(n, s) {
		d.out = jsonlex.AppendString(d.out, s, jsonlex.Minimal)
	}
}

func (d *deriver) text(n *node, v jsonexact.Value) {
	if v.Kind() != jsonexact.String {
		d.fail(CodeKind)
		return
	}
	s := v.Text()
	if len(s) > n.maxOctets {
		d.fail(CodeTooLarge)
		return
	}
	if !d.stringChecks(n, s) {
		return
	}
	if n.escaped {
		e := escape(s)
		if len(e) > 1024 {
			d.fail(CodeTooLong)
			return
		}
		d.out = jsonlex.AppendString(d.out, e, jsonlex.Minimal)
		return
	}
	d.digest(len(s), sha256.Sum256([]byte(s)))
}

// digest writes the {length, sha256} representation.
func (d *deriver) digest(length int, sum [sha256.Size]byte) {
	d.out = append(d.out, `{"`+fieldLength+`":`...)
	d.out = strconv.AppendUint(d.out, uint64(length), 10)
	d.out = append(d.out, `,"`+fieldSHA256+`":"`...)
	d.out = hex.AppendEncode(d.out, sum[:])
	d.out = append(d.out, `"}`...)
}

func (d *deriver) number(n *node, v jsonexact.Value) {
	if v.Kind() != jsonexact.Integer && v.Kind() != jsonexact.Number {
		d.fail(CodeKind)
		return
	}
	lit := v.Literal()
	if n.choice == ChoiceInteger {
		if t, ok := splitNumber(lit); !ok || t.hasExp {
			d.fail(CodeExponent)
			return
		} else if t.hasFrac {
			d.fail(CodeFraction)
			return
		}
	}
	x, code := scaled(lit, n.scale)
	if code != 0 {
		d.fail(code)
		return
	}
	if !inDomain(x, n.unsigned) || n.min != nil && x.Cmp(n.min) < 0 || n.max != nil && x.Cmp(n.max) > 0 {
		d.fail(CodeOutOfRange)
		return
	}
	if n.constant != nil {
		a, _ := parseDecimal(n.constant.Literal())
		b, _ := parseDecimal(lit)
		if a != b {
			d.fail(CodeConst)
			return
		}
	}
	d.out = x.Append(d.out, 10)
}

func (d *deriver) enum(n *node, v jsonexact.Value) {
	if v.Kind() != jsonexact.String {
		d.fail(CodeKind)
		return
	}
	s := v.Text()
	for _, cs := range n.cases {
		if cs.json == s {
			d.out = jsonlex.AppendString(d.out, cs.token, jsonlex.Minimal)
			return
		}
	}
	d.fail(CodeCase)
}

func (d *deriver) array(n *node, v jsonexact.Value) {
	if v.Kind() != jsonexact.Array {
		d.fail(CodeKind)
		return
	}
	if v.Len() > n.maxItems {
		d.fail(CodeTooManyItems)
		return
	}
	if v.Len() < n.minItems {
		d.fail(CodeTooFewItems)
		return
	}
	d.out = append(d.out, '[')
	for i := range v.Len() {
		if i > 0 {
			d.out = append(d.out, ',')
		}
		d.push(strconv.Itoa(i))
		d.value(n.items, v.ElemAt(i))
		d.pop()
	}
	d.out = append(d.out, ']')
}

func (d *deriver) object(n *node, v jsonexact.Value) {
	if v.Kind() != jsonexact.Object {
		d.fail(CodeKind)
		return
	}
	// Input members by declared index; an undeclared one is reported at
	// the object, once, without its name (the caller's content).
	got := make([]int, len(n.members))
	for i := range got {
		got[i] = -1
	}
	unknown := false
	for i := range v.Len() {
		if j, ok := n.byJSON[v.MemberAt(i).Name]; ok {
			got[j] = i
		} else {
			unknown = true
		}
	}
	if unknown {
		d.fail(CodeUnknownMember)
	}
	d.out = append(d.out, '{')
	first := true
	for j, m := range n.members {
		if got[j] < 0 {
			if m.required {
				d.push(m.json)
				d.fail(CodeMissing)
				d.pop()
			}
			continue
		}
		if !first {
			d.out = append(d.out, ',')
		}
		first = false
		d.out = jsonlex.AppendString(d.out, m.field, jsonlex.Minimal)
		d.out = append(d.out, ':')
		d.push(m.json)
		d.value(m.typ, v.MemberAt(got[j]).Value)
		d.pop()
	}
	d.out = append(d.out, '}')
}

func (d *deriver) union(n *node, v jsonexact.Value) {
	i, ok := n.byKind[v.Kind()]
	if !ok {
		d.fail(CodeKind)
		return
	}
	a := n.alts[i]
	d.out = append(d.out, '{')
	if a.typ != nil {
		// Field order (Section 50): the tag field "tag" sorts after a
		// value field only if the alternative's tag does; write in order.
		if a.tag < fieldTag {
			d.alternative(a, v)
			d.out = append(d.out, ',')
			d.tag(a)
		} else {
			d.tag(a)
			d.out = append(d.out, ',')
			d.alternative(a, v)
		}
	} else {
		d.tag(a)
	}
	d.out = append(d.out, '}')
}

func (d *deriver) tag(a alternative) {
	d.out = append(d.out, `"`+fieldTag+`":`...)
	d.out = jsonlex.AppendString(d.out, a.tag, jsonlex.Minimal)
}

func (d *deriver) alternative(a alternative, v jsonexact.Value) {
	d.out = jsonlex.AppendString(d.out, a.tag, jsonlex.Minimal)
	d.out = append(d.out, ':')
	d.value(a.typ, v)
}

func (d *deriver) json(n *node, v jsonexact.Value) {
	if n.kinds != nil && !slices.ContainsFunc(n.kinds, func(k string) bool { return kindHolds(k, v) }) {
		d.fail(CodeKind)
		return
	}
	if !d.exactNumbers(v) {
		return
	}
	canonical, err := jcs.Transform(v.AppendJSON(nil))
	if err != nil {
		d.fail(CodeSyntax) // the library's message may quote input: not kept
		return
	}
	if len(canonical) > n.maxOctets {
		d.fail(CodeTooLarge)
		return
	}
	d.digest(len(canonical), sha256.Sum256(canonical))
}

// kindHolds reports whether v is of the JSON Schema type k. An integer is
// an integer literal, as the integer choice reads it: 1.0 and 1e2, which
// JSON Schema counts as integers, refuse (a narrowing).
func kindHolds(k string, v jsonexact.Value) bool {
	switch v.Kind() {
	case jsonexact.Null:
		return k == "null"
	case jsonexact.Bool:
		return k == "boolean"
	case jsonexact.Integer, jsonexact.Number:
		if k == "number" {
			return true
		}
		return k == "integer" && !strings.ContainsAny(v.Literal(), ".eE")
	case jsonexact.String:
		return k == "string"
	case jsonexact.Array:
		return k == "array"
	case jsonexact.Object:
		return k == "object"
	}
	return false
}

// exactNumbers checks every number under v for the double conversion RFC
// 8785 applies (I1). A refusal is reported once, at the json node: inside
// an open value the member names are the caller's content.
func (d *deriver) exactNumbers(v jsonexact.Value) bool {
	if !allExact(v) {
		d.fail(CodeInexactNumber)
		return false
	}
	return true
}

func allExact(v jsonexact.Value) bool {
	switch v.Kind() {
	case jsonexact.Integer, jsonexact.Number:
		return exactDouble(v.Literal())
	case jsonexact.Array:
		for i := range v.Len() {
			if !allExact(v.ElemAt(i)) {
				return false
			}
		}
	case jsonexact.Object:
		for i := range v.Len() {
			if !allExact(v.MemberAt(i).Value) {
				return false
			}
		}
	}
	return true
}
