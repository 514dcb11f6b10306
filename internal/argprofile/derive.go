package argprofile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
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
	d.value(p.root, v, "")
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

type deriver struct {
	out  []byte
	errs Errors
}

func (d *deriver) fail(code Code, path string) {
	d.errs = append(d.errs, &Error{Code: code, Path: path})
}

func (d *deriver) value(n *node, v jsonexact.Value, path string) {
	switch n.choice {
	case ChoiceString:
		d.str(n, v, path)
	case ChoiceText:
		d.text(n, v, path)
	case ChoiceInteger, ChoiceDecimal:
		d.number(n, v, path)
	case ChoiceBool:
		if v.Kind() != jsonexact.Bool {
			d.fail(CodeKind, path)
			return
		}
		if n.constant != nil && n.constant.Bool() != v.Bool() {
			d.fail(CodeConst, path)
			return
		}
		d.out = strconv.AppendBool(d.out, v.Bool())
	case ChoiceEnum:
		d.enum(n, v, path)
	case ChoiceArray:
		d.array(n, v, path)
	case ChoiceObject:
		d.object(n, v, path)
	case ChoiceUnion:
		d.union(n, v, path)
	case ChoiceJSON:
		d.json(n, v, path)
	}
}

// stringChecks applies the constraints shared by string and text; it
// reports whether s passed.
func (d *deriver) stringChecks(n *node, s, path string) bool {
	ok := true
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.maxLen >= 0 && l > n.maxLen {
			d.fail(CodeTooLong, path)
			ok = false
		}
		if l < n.minLen {
			d.fail(CodeTooShort, path)
			ok = false
		}
	}
	if n.re != nil && !n.re.MatchString(s) {
		d.fail(CodePattern, path)
		ok = false
	}
	if !n.format.holds(s) {
		d.fail(CodeFormat, path)
		ok = false
	}
	if n.constant != nil && n.constant.Text() != s {
		d.fail(CodeConst, path)
		ok = false
	}
	return ok
}

func (d *deriver) str(n *node, v jsonexact.Value, path string) {
	if v.Kind() != jsonexact.String {
		d.fail(CodeKind, path)
		return
	}
	s := v.Text()
	if !printableASCII(s) {
		d.fail(CodeNotASCII, path)
		return
	}
	if d.stringChecks(n, s, path) {
		d.out = jsonlex.AppendString(d.out, s, jsonlex.Minimal)
	}
}

func (d *deriver) text(n *node, v jsonexact.Value, path string) {
	if v.Kind() != jsonexact.String {
		d.fail(CodeKind, path)
		return
	}
	s := v.Text()
	if len(s) > n.maxOctets {
		d.fail(CodeTooLarge, path)
		return
	}
	if !d.stringChecks(n, s, path) {
		return
	}
	if n.escaped {
		e := escape(s)
		if len(e) > 1024 {
			d.fail(CodeTooLong, path)
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

func (d *deriver) number(n *node, v jsonexact.Value, path string) {
	if v.Kind() != jsonexact.Integer && v.Kind() != jsonexact.Number {
		d.fail(CodeKind, path)
		return
	}
	lit := v.Literal()
	if n.choice == ChoiceInteger {
		if t, ok := splitNumber(lit); !ok || t.hasExp {
			d.fail(CodeExponent, path)
			return
		} else if t.hasFrac {
			d.fail(CodeFraction, path)
			return
		}
	}
	x, code := scaled(lit, n.scale)
	if code != 0 {
		d.fail(code, path)
		return
	}
	if !inDomain(x, n.unsigned) || n.min != nil && x.Cmp(n.min) < 0 || n.max != nil && x.Cmp(n.max) > 0 {
		d.fail(CodeOutOfRange, path)
		return
	}
	if n.constant != nil {
		a, _ := parseDecimal(n.constant.Literal())
		b, _ := parseDecimal(lit)
		if a != b {
			d.fail(CodeConst, path)
			return
		}
	}
	d.out = x.Append(d.out, 10)
}

func (d *deriver) enum(n *node, v jsonexact.Value, path string) {
	if v.Kind() != jsonexact.String {
		d.fail(CodeKind, path)
		return
	}
	s := v.Text()
	for _, cs := range n.cases {
		if cs.json == s {
			d.out = jsonlex.AppendString(d.out, cs.token, jsonlex.Minimal)
			return
		}
	}
	d.fail(CodeCase, path)
}

func (d *deriver) array(n *node, v jsonexact.Value, path string) {
	if v.Kind() != jsonexact.Array {
		d.fail(CodeKind, path)
		return
	}
	if v.Len() > n.maxItems {
		d.fail(CodeTooManyItems, path)
		return
	}
	if v.Len() < n.minItems {
		d.fail(CodeTooFewItems, path)
		return
	}
	d.out = append(d.out, '[')
	for i := range v.Len() {
		if i > 0 {
			d.out = append(d.out, ',')
		}
		d.value(n.items, v.ElemAt(i), path+"/"+strconv.Itoa(i))
	}
	d.out = append(d.out, ']')
}

func (d *deriver) object(n *node, v jsonexact.Value, path string) {
	if v.Kind() != jsonexact.Object {
		d.fail(CodeKind, path)
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
		d.fail(CodeUnknownMember, path)
	}
	d.out = append(d.out, '{')
	first := true
	for j, m := range n.members {
		mpath := path + "/" + pointerToken(m.json)
		if got[j] < 0 {
			if m.required {
				d.fail(CodeMissing, mpath)
			}
			continue
		}
		if !first {
			d.out = append(d.out, ',')
		}
		first = false
		d.out = jsonlex.AppendString(d.out, m.field, jsonlex.Minimal)
		d.out = append(d.out, ':')
		d.value(m.typ, v.MemberAt(got[j]).Value, mpath)
	}
	d.out = append(d.out, '}')
}

func (d *deriver) union(n *node, v jsonexact.Value, path string) {
	i, ok := n.byKind[v.Kind()]
	if !ok {
		d.fail(CodeKind, path)
		return
	}
	a := n.alts[i]
	d.out = append(d.out, '{')
	if a.typ != nil {
		// Field order (Section 50): the tag field "tag" sorts after a
		// value field only if the alternative's tag does; write in order.
		if a.tag < fieldTag {
			d.alternative(a, v, path)
			d.out = append(d.out, ',')
			d.tag(a)
		} else {
			d.tag(a)
			d.out = append(d.out, ',')
			d.alternative(a, v, path)
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

func (d *deriver) alternative(a alternative, v jsonexact.Value, path string) {
	d.out = jsonlex.AppendString(d.out, a.tag, jsonlex.Minimal)
	d.out = append(d.out, ':')
	d.value(a.typ, v, path)
}

func (d *deriver) json(n *node, v jsonexact.Value, path string) {
	if !d.exactNumbers(v, path) {
		return
	}
	canonical, err := jcs.Transform(v.AppendJSON(nil))
	if err != nil {
		d.fail(CodeSyntax, path) // the library's message may quote input: not kept
		return
	}
	if len(canonical) > n.maxOctets {
		d.fail(CodeTooLarge, path)
		return
	}
	d.digest(len(canonical), sha256.Sum256(canonical))
}

// exactNumbers checks every number under v for the double conversion RFC
// 8785 applies (I1). A refusal is reported once, at the json node: inside
// an open value the member names are the caller's content.
func (d *deriver) exactNumbers(v jsonexact.Value, path string) bool {
	if !allExact(v) {
		d.fail(CodeInexactNumber, path)
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
