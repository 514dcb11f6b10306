package agentsafe

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/jsonlex"
)

// Parse decodes one JSON text (RFC 8259, the grammar JSON.parse accepts)
// into a Value and applies every input check: valid UTF-8, no duplicate or
// forbidden keys, finite numbers, and the depth, entry and array-length
// limits. The canonical size limit is applied by Canonical.
//
// Parse holds the whole document in memory; callers reading untrusted
// streams should bound the read themselves.
func Parse(doc []byte) (Value, error) {
	// Fail closed on bad bytes up front: Node would replace them with U+FFFD
	// and hash something the sender did not write.
	if off, bad := jsonlex.InvalidUTF8(doc); bad {
		return Value{}, errAt(CodeInvalidUTF8, off)
	}
	p := parser{s: string(doc)}
	p.skipSpace()
	if p.pos == len(p.s) {
		return Value{}, errAt(CodeEmpty, p.pos)
	}
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return Value{}, errAt(CodeTrailingData, p.pos)
	}
	return v, nil
}

// parser reads one document. The tokens are jsonlex's; the profile is
// JSON.parse's: any number the grammar allows (converted as JavaScript
// does), strings as UTF-16 code units with lone surrogates kept, and every
// fault CodeSyntax at the offset jsonlex reports.
type parser struct {
	s       string // the document
	pos     int
	entries int
}

func (p *parser) skipSpace() { p.pos = jsonlex.SkipSpace(p.s, p.pos) }

func (p *parser) syntax() error { return errAt(CodeSyntax, p.pos) }

// countEntry charges one array element or object member against
// MaxEntries, before the child is examined, as the reference does.
func (p *parser) countEntry() error {
	p.entries++
	if p.entries > MaxEntries {
		return errAt(CodeTooManyEntries, p.pos)
	}
	return nil
}

// value parses the value at p.pos, which sits at nesting depth depth.
// Recursion is bounded by MaxDepth.
func (p *parser) value(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, errAt(CodeTooDeep, p.pos)
	}
	if p.pos >= len(p.s) {
		return Value{}, p.syntax()
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return Value{kind: kindString, str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("null"):
		return Null(), nil
	case p.literal("true"):
		return Bool(true), nil
	case p.literal("false"):
		return Bool(false), nil
	}
	return Value{}, p.syntax()
}

func (p *parser) literal(word string) bool {
	if jsonlex.Literal(p.s, p.pos, word) == len(word) {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *parser) array(depth int) (Value, error) {
	if p.open(']') {
		return Value{kind: kindArray, arr: []Value{}}, nil
	}
	var elems []Value
	for {
		if len(elems) == MaxArrayLength {
			return Value{}, errAt(CodeArrayTooLong, p.pos)
		}
		if err := p.countEntry(); err != nil {
			return Value{}, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		elems = append(elems, v)
		closed, err := p.next(']')
		if err != nil {
			return Value{}, err
		}
		if closed {
			return Value{kind: kindArray, arr: elems}, nil
		}
	}
}

func (p *parser) object(depth int) (Value, error) {
	if p.open('}') {
		return Value{kind: kindObject, obj: []member{}}, nil
	}
	var ms []member
	for {
		if p.pos >= len(p.s) || p.s[p.pos] != '"' {
			return Value{}, p.syntax()
		}
		off := p.pos
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		if isForbiddenKey(key) {
			return Value{}, errAt(CodeForbiddenKey, off)
		}
		p.skipSpace()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return Value{}, p.syntax()
		}
		p.pos++
		p.skipSpace()
		if err := p.countEntry(); err != nil {
			return Value{}, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		ms = append(ms, member{key: key, val: v, off: off})
		closed, err := p.next('}')
		if err != nil {
			return Value{}, err
		}
		if closed {
			sortMembers(ms)
			// JSON.parse would keep the last duplicate; we refuse to guess.
			// Report the later occurrence in the text.
			for i := 1; i < len(ms); i++ {
				if slices.Equal(ms[i-1].key, ms[i].key) {
					return Value{}, errAt(CodeDuplicateKey, max(ms[i-1].off, ms[i].off))
				}
			}
			return Value{kind: kindObject, obj: ms}, nil
		}
	}
}

// open consumes a container's opening byte and the space after it, and
// reports whether the closing byte follows at once (an empty container),
// consuming that too.
func (p *parser) open(closing byte) (empty bool) {
	p.pos++
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == closing {
		p.pos++
		return true
	}
	return false
}

// next consumes what follows a container's entry: a ',' (more entries
// follow, closed false) or the closing byte (closed true); anything else is
// a syntax error.
func (p *parser) next(closing byte) (closed bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return false, p.syntax()
	}
	switch p.s[p.pos] {
	case ',':
		p.pos++
		p.skipSpace()
		return false, nil
	case closing:
		p.pos++
		return true, nil
	default:
		return false, p.syntax()
	}
}

// str parses a string literal at p.pos (which is '"') into UTF-16 code
// units. \u escapes become code units verbatim, so escaped pairs join and
// lone surrogates survive, exactly as in JSON.parse.
func (p *parser) str() ([]uint16, error) {
	s := p.s
	start := p.pos + 1
	i := jsonlex.SpanPrintable(s, start)
	if i < len(s) && s[i] == '"' {
		// Printable ASCII without escapes: one code unit per byte.
		u := make([]uint16, i-start)
		for k := range u {
			u[k] = uint16(s[start+k])
		}
		p.pos = i + 1
		return u, nil
	}
	u := make([]uint16, 0, i-start+16)
	for k := start; k < i; k++ {
		u = append(u, uint16(s[k]))
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return u, nil
		case c < 0x20:
			p.pos = i
			return nil, p.syntax() // raw control characters are not JSON
		case c == '\\':
			r, n, f := jsonlex.Escape(s, i)
			if f != jsonlex.OK {
				// At the backslash, or at the end when nothing follows it.
				p.pos = i
				if f == jsonlex.Unterminated {
					p.pos = len(s)
				}
				return nil, p.syntax()
			}
			u = append(u, uint16(r))
			i += n
		case c < utf8.RuneSelf:
			u = append(u, uint16(c))
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:]) // input already validated
			u = utf16.AppendRune(u, r)
			i += n
		}
	}
	p.pos = len(s)
	return nil, p.syntax()
}

// number scans a number token (jsonlex.Number) and converts it with correct
// rounding, which is what JSON.parse does. A digit after the token can only
// follow a leading zero, which JSON.parse rejects there.
func (p *parser) number() (Value, error) {
	start := p.pos
	n, ok := jsonlex.Number(p.s, start)
	p.pos = n.End
	if !ok || (n.End < len(p.s) && isDigit(p.s[n.End])) {
		return Value{}, p.syntax()
	}
	// ParseFloat returns ±Inf with a range error on overflow and a correctly
	// rounded 0 or subnormal on underflow, matching JS.
	f, _ := strconv.ParseFloat(p.s[start:n.End], 64)
	if math.IsInf(f, 0) {
		return Value{}, errAt(CodeNonFiniteNumber, start)
	}
	return Number(f), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

var forbiddenKeys = [...][]uint16{
	utf16.Encode([]rune("__proto__")),
	utf16.Encode([]rune("constructor")),
	utf16.Encode([]rune("prototype")),
}

func isForbiddenKey(k []uint16) bool {
	for _, f := range forbiddenKeys {
		if slices.Equal(k, f) {
			return true
		}
	}
	return false
}
