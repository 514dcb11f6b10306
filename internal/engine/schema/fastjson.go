package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonlex"
)

// ValidateJSON decodes raw argument text and validates it against s in one
// pass, without building the intermediate jsonexact tree. It is a fast path
// for the common accepted request, never a second judge of validity:
//
//   - It accepts only a strict subset of what jsonexact.Decode followed by
//     Validate accepts (ASCII input, strings without escapes or control or
//     DEL octets, canonical integer literals, no unknown or repeated member,
//     nesting bounded by the Schema), and whatever it accepts it builds with
//     the same value constructors, so the Arguments are equal to the
//     reference path's.
//   - Whenever it cannot accept, it returns false and the zero Arguments,
//     with no reason. The caller then runs the reference path
//     (jsonexact.Decode, then Validate), which owns every rejection, its
//     code and its path, and also accepts what is outside the fast subset
//     (escaped strings, for example).
//
// It reads data only during the call; kept strings share one copy of it,
// as with jsonexact.Decode. The caller applies its raw size bound first.
// FuzzValidateJSON and TestValidateJSONMatchesReference hold it to the
// reference path.
func (s Schema) ValidateJSON(data []byte) (Arguments, bool) {
	if s.root == nil || len(data) == 0 {
		return Arguments{}, false
	}
	sc := scratchPool.Get().(*scratch)
	p := fastJSON{data: data, src: string(data), collect: s.hasRes, fields: sc.fields[:0], elems: sc.elems[:0]}
	// Each object reserves a slot per declared field, as Validate's stack
	// holds them, so the field stack needs Validate's room.
	if cap(p.fields) < s.scratch {
		p.fields = make([]value.Field, 0, s.scratch)
	}
	root, ok := p.value(s.root)
	if ok {
		p.skipWS()
		ok = p.pos == len(data)
	}
	// As in Validate: value.Object and value.Array copied what they kept,
	// so the cleared scratch stacks go back to the pool. Only the part ever
	// used is cleared (the rest is still zero): the high-water marks cover
	// containers that returned, the current lengths a rejected path that
	// stopped without popping.
	clear(p.fields[:max(p.fieldsHigh, len(p.fields))])
	clear(p.elems[:max(p.elemsHigh, len(p.elems))])
	sc.fields, sc.elems = p.fields[:0], p.elems[:0]
	scratchPool.Put(sc)
	if !ok {
		return Arguments{}, false
	}
	return Arguments{root: root, resources: resourceSet(p.res)}, true
}

// fastJSON is the state of one ValidateJSON call. Recursion follows the
// Schema tree, so its depth is bounded by MaxDepth. fields and elems are
// scratch stacks shared by nested containers, as in validator.
type fastJSON struct {
	data    []byte
	src     string // one copy of data; kept strings are substrings of it
	pos     int
	collect bool
	res     []ident.Resource
	fields  []value.Field
	elems   []value.Value
	// fieldsHigh and elemsHigh are the most entries fields and elems ever
	// held in this call.
	fieldsHigh, elemsHigh int
}

func (p *fastJSON) skipWS() { p.pos = jsonlex.SkipSpace(p.src, p.pos) }

// next skips whitespace and consumes the following octet, or reports
// false at the end of the input.
func (p *fastJSON) next() (byte, bool) {
	p.skipWS()
	if p.pos == len(p.data) {
		return 0, false
	}
	c := p.data[p.pos]
	p.pos++
	return c, true
}

// str reads a string token whose opening quote was consumed. Only printable
// ASCII other than the backslash is taken (jsonlex.SpanPrintable): such a
// token means exactly its octets, which is what jsonexact decodes it to.
// Anything else (escapes, control octets, DEL, non-ASCII, no closing quote)
// is left to the reference path.
func (p *fastJSON) str() (string, bool) {
	start := p.pos
	i := jsonlex.SpanPrintable(p.src, start)
	if i == len(p.src) || p.src[i] != '"' {
		return "", false
	}
	p.pos = i + 1
	return p.src[start:i], true
}

// tokenEnds reports whether the octet after a number or literal ends it:
// jsonexact rejects a token continued by one of these (jsonlex.TokenByte).
func (p *fastJSON) tokenEnds() bool {
	return p.pos == len(p.src) || !jsonlex.TokenByte(p.src[p.pos])
}

// integer reads a canonical integer literal whose first octet is at pos:
// a jsonlex number token without fraction or exponent, not -0 and not
// followed by another token octet (which also rules out a leading zero).
func (p *fastJSON) integer() (string, bool) {
	start := p.pos
	n, ok := jsonlex.Number(p.src, start)
	if !ok || n.End != n.IntEnd {
		return "", false
	}
	p.pos = n.End
	lit := p.src[start:n.End]
	if lit == "-0" || !p.tokenEnds() {
		return "", false
	}
	return lit, true
}

// literal consumes the keyword lit at pos.
func (p *fastJSON) literal(lit string) bool {
	if jsonlex.Literal(p.src, p.pos, lit) < len(lit) {
		return false
	}
	p.pos += len(lit)
	return p.tokenEnds()
}

func (p *fastJSON) value(n *node) (value.Value, bool) {
	c, ok := p.next()
	if !ok {
		return value.Value{}, false
	}
	//exhaustive:enforce
	switch n.kind {
	case vocab.KindString, vocab.KindResourceID, vocab.KindEnumeration:
		if c != '"' {
			return value.Value{}, false
		}
		s, ok := p.str()
		if !ok {
			return value.Value{}, false
		}
		switch n.kind {
		case vocab.KindResourceID:
			r, err := ident.ParseResource(s)
			if err != nil {
				return value.Value{}, false
			}
			if p.collect {
				if p.res == nil {
					p.res = make([]ident.Resource, 0, 8)
				}
				p.res = append(p.res, r)
			}
			out, err := value.Resource(r)
			return out, err == nil
		case vocab.KindEnumeration:
			i, found := slices.BinarySearchFunc(n.cases, s, func(c ident.Name, s string) int {
				return strings.Compare(c.String(), s)
			})
			if !found {
				return value.Value{}, false
			}
			out, err := value.Enum(n.cases[i])
			return out, err == nil
		case vocab.KindString:
			out, err := value.String(s)
			return out, err == nil
		default:
			// A kind added to the case above without a case here: leave it
			// to the reference path.
			return value.Value{}, false
		}
	case vocab.KindBool:
		p.pos--
		switch c {
		case 't':
			return value.Bool(true), p.literal("true")
		case 'f':
			return value.Bool(false), p.literal("false")
		}
		return value.Value{}, false
	case vocab.KindSignedInteger, vocab.KindUnsignedInteger:
		p.pos--
		lit, ok := p.integer()
		if !ok {
			return value.Value{}, false
		}
		if n.kind == vocab.KindSignedInteger {
			i, err := strconv.ParseInt(lit, 10, 64)
			return value.Signed(i), err == nil
		}
		u, err := strconv.ParseUint(lit, 10, 64)
		return value.Unsigned(u), err == nil
	case vocab.KindArray:
		if c != '[' {
			return value.Value{}, false
		}
		return p.array(n)
	case vocab.KindObject:
		if c != '{' {
			return value.Value{}, false
		}
		return p.object(n)
	default:
		return value.Value{}, false
	}
}

// array reads the elements of an array whose '[' was consumed.
func (p *fastJSON) array(n *node) (value.Value, bool) {
	base := len(p.elems)
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
	} else {
		for {
			if len(p.elems)-base == MaxElements {
				return value.Value{}, false
			}
			v, ok := p.value(n.items)
			if !ok {
				return value.Value{}, false
			}
			p.elems = append(p.elems, v)
			c, ok := p.next()
			if !ok || (c != ',' && c != ']') {
				return value.Value{}, false
			}
			if c == ']' {
				break
			}
		}
	}
	p.elemsHigh = max(p.elemsHigh, len(p.elems))
	out, err := value.Array(p.elems[base:])
	p.elems = p.elems[:base]
	return out, err == nil
}

// object reads the members of an object whose '{' was consumed. It
// reserves one slot on the fields stack per declared field and puts each
// member straight into its declared field's slot, so the fields are in the
// declared (field-name ASCII) order value.Object requires without a second
// copy; present records which slots were filled, which rejects (falls back
// on) repeated names. Unknown names are not found among the declared ones.
func (p *fastJSON) object(n *node) (value.Value, bool) {
	base := len(p.fields)
	top := base + len(n.fields)
	// ValidateJSON sized the stack for the declared fields of every object
	// along one path; growing is only a safeguard.
	p.fields = slices.Grow(p.fields, len(n.fields))[:top]
	p.fieldsHigh = max(p.fieldsHigh, top)
	var present uint64 // bit i: declared field i was read; MaxFields is 64
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
	} else {
		for {
			if c, ok := p.next(); !ok || c != '"' {
				return value.Value{}, false
			}
			name, ok := p.str()
			if !ok {
				return value.Value{}, false
			}
			fi, found := findField(n.fields, name)
			if !found || present&(1<<fi) != 0 {
				return value.Value{}, false
			}
			if c, ok := p.next(); !ok || c != ':' {
				return value.Value{}, false
			}
			f := &n.fields[fi]
			v, ok := p.value(f.typ)
			if !ok {
				return value.Value{}, false
			}
			p.fields[base+fi] = value.NewField(f.name, v)
			present |= 1 << fi
			c, ok := p.next()
			if !ok || (c != ',' && c != '}') {
				return value.Value{}, false
			}
			if c == '}' {
				break
			}
		}
	}
	// Close the gaps of absent optional fields; a missing required field
	// leaves the request to the reference path.
	kept := base
	for fi := range n.fields {
		if present&(1<<fi) == 0 {
			if n.fields[fi].req == vocab.Required {
				return value.Value{}, false
			}
			continue
		}
		if kept != base+fi {
			p.fields[kept] = p.fields[base+fi]
		}
		kept++
	}
	out, err := value.Object(p.fields[base:kept])
	p.fields = p.fields[:base]
	return out, err == nil
}

// findField returns the index of the declared field named name. Declared
// names are unique and in ASCII order; a short list is scanned, where an
// equality test (lengths first) is cheaper than the ordered comparisons of a
// binary search.
func findField(fields []field, name string) (int, bool) {
	if len(fields) <= 16 {
		for i := range fields {
			if fields[i].name.String() == name {
				return i, true
			}
		}
		return 0, false
	}
	return slices.BinarySearchFunc(fields, name, func(f field, s string) int {
		return strings.Compare(f.name.String(), s)
	})
}
