package jsonexact

import "github.com/toolgate/toolgate/internal/jsonlex"

// AppendJSON appends the compact JSON encoding of v to dst and returns the
// extended slice. Object members keep occurrence order, integers are written
// as their exact literal, and strings escape only what RFC 8259 requires
// (quote, backslash, controls: jsonlex.Minimal), so the output decodes back
// to an Equal Value. The zero Value encodes as null, which Decode rejects: an invalid
// value can never round-trip into an accepted one.
//
// AppendJSON is not a canonical encoding; the protocol's canonical bytes
// are produced elsewhere from validated values.
func (v Value) AppendJSON(dst []byte) []byte {
	type frame struct {
		kids []Member
		obj  bool
		i    int
	}
	var stack []frame
	cur := v
	for {
		switch cur.kind {
		case Object, Array:
			open, closer := byte('['), byte(']')
			if cur.kind == Object {
				open, closer = '{', '}'
			}
			dst = append(dst, open)
			if len(cur.kids) == 0 {
				dst = append(dst, closer)
			} else {
				stack = append(stack, frame{kids: cur.kids, obj: cur.kind == Object})
			}
		case String:
			dst = jsonlex.AppendString(dst, cur.s, jsonlex.Minimal)
		case Integer, Number:
			dst = append(dst, cur.s...)
		case Bool:
			if cur.b {
				dst = append(dst, "true"...)
			} else {
				dst = append(dst, "false"...)
			}
		default:
			dst = append(dst, "null"...)
		}
		// Advance to the next value to write, closing finished containers.
		next := false
		for len(stack) > 0 && !next {
			top := &stack[len(stack)-1]
			if top.i == len(top.kids) {
				if top.obj {
					dst = append(dst, '}')
				} else {
					dst = append(dst, ']')
				}
				stack = stack[:len(stack)-1]
				continue
			}
			if top.i > 0 {
				dst = append(dst, ',')
			}
			m := top.kids[top.i]
			top.i++
			if top.obj {
				dst = jsonlex.AppendString(dst, m.Name, jsonlex.Minimal)
				dst = append(dst, ':')
			}
			cur, next = m.Value, true
		}
		if !next {
			return dst
		}
	}
}
