package argprofile

import (
	"encoding/base64"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

// HeaderPrefix is the prefix of the headers MCP 2026-07-28 Streamable HTTP
// clients mirror x-mcp-header members into.
const HeaderPrefix = "Mcp-Param-"

// Mirrored is one member mirrored into a header: its header name (after
// HeaderPrefix) and the JSON pointer of the member in the arguments.
type Mirrored struct {
	Header  string
	Pointer string
}

// Mirrored returns every member the profile records as mirrored, in
// profile order.
func (p *Profile) Mirrored() []Mirrored {
	var out []Mirrored
	var walk func(n *node, path string)
	walk = func(n *node, path string) {
		for _, m := range n.members {
			mp := path + "/" + pointerToken(m.json)
			if m.header != "" {
				out = append(out, Mirrored{Header: m.header, Pointer: mp})
			}
			if m.typ.choice == ChoiceObject {
				walk(m.typ, mp)
			}
		}
	}
	walk(p.root, "")
	return out
}

// CheckHeaders checks the Mcp-Param-* headers of one tools/call against the
// exact argument bytes it carries: every mirrored member present and not
// null must have exactly one header whose value (after =?base64?…?=
// decoding) equals it — a string exactly, a number numerically, a boolean
// as true or false — and a member that is absent or null must have none.
// Each disagreement is a CodeHeaderMismatch at the member's pointer; the
// header's value is never quoted. Headers outside the profile's mirrored
// set are not examined. values returns every value of one header field by
// name, case-insensitively (net/http's Header.Values); taking a function
// keeps the package free of net.
func (p *Profile) CheckHeaders(raw []byte, values func(name string) []string) error {
	v, err := jsonexact.DecodeAny(raw, jsonexact.Limits{MaxDepth: p.maxDepth, MaxBytes: p.maxOctets})
	if err != nil {
		return Errors{{Code: decodeCode(err), Path: ""}}
	}
	var errs Errors
	var walk func(n *node, obj jsonexact.Value, present bool, path string)
	walk = func(n *node, obj jsonexact.Value, present bool, path string) {
		for _, m := range n.members {
			mp := path + "/" + pointerToken(m.json)
			val, ok := jsonexact.Value{}, false
			if present && obj.Kind() == jsonexact.Object {
				val, ok = memberOf(obj, m.json)
			}
			if m.header != "" && !headerAgrees(val, ok && val.Kind() != jsonexact.Null, values(HeaderPrefix+m.header)) {
				errs = append(errs, &Error{Code: CodeHeaderMismatch, Path: mp})
			}
			if m.typ.choice == ChoiceObject {
				walk(m.typ, val, ok, mp)
			}
		}
	}
	walk(p.root, v, true, "")
	return errs.err()
}

func memberOf(obj jsonexact.Value, name string) (jsonexact.Value, bool) {
	for i := range obj.Len() {
		if m := obj.MemberAt(i); m.Name == name {
			return m.Value, true
		}
	}
	return jsonexact.Value{}, false
}

func headerAgrees(v jsonexact.Value, present bool, values []string) bool {
	if !present {
		return len(values) == 0
	}
	if len(values) != 1 {
		return false
	}
	hv := values[0]
	if strings.HasPrefix(hv, "=?base64?") && strings.HasSuffix(hv, "?=") && len(hv) >= len("=?base64??=") {
		b, err := base64.StdEncoding.Strict().DecodeString(hv[len("=?base64?") : len(hv)-len("?=")])
		if err != nil {
			return false
		}
		hv = string(b)
	}
	switch v.Kind() {
	case jsonexact.String:
		return hv == v.Text()
	case jsonexact.Bool:
		return hv == "true" && v.Bool() || hv == "false" && !v.Bool()
	case jsonexact.Integer, jsonexact.Number:
		if !validNumber(hv) {
			return false
		}
		a, ok1 := parseDecimal(hv)
		b, ok2 := parseDecimal(v.Literal())
		return ok1 && ok2 && a == b
	}
	return false
}
