package jsonexact

const hexDigits = "0123456789abcdef"

// AppendJSON appends the compact JSON encoding of v to dst and returns the
// extended slice. Object members keep occurrence order, integers are written
// as their exact literal, and strings escape only what RFC 8259 requires
// (quote, backslash, controls), so the output decodes back to an Equal
// Value. The zero Value encodes as null, which Decode rejects: an invalid
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
			dst = appendString(dst, cur.s)
		case Integer:
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
				dst = appendString(dst, m.Name)
				dst = append(dst, ':')
			}
			cur, next = m.Value, true
		}
		if !next {
			return dst
		}
	}
}

// appendString writes s as a JSON string. s is valid UTF-8 when it comes
// from Decode, and non-ASCII bytes are copied unchanged.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
