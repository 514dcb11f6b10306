package agentsafe

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/jsonerr"
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
	if !utf8.Valid(doc) {
		return Value{}, errAt(CodeInvalidUTF8, jsonerr.FirstInvalidUTF8(doc))
	}
	p := parser{data: doc}
	p.skipSpace()
	if p.pos == len(p.data) {
		return Value{}, errAt(CodeEmpty, p.pos)
	}
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return Value{}, errAt(CodeTrailingData, p.pos)
	}
	return v, nil
}

type parser struct {
	data    []byte
	pos     int
	entries int
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

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
	if p.pos >= len(p.data) {
		return Value{}, p.syntax()
	}
	switch c := p.data[p.pos]; {
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
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
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
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
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
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
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
	if p.pos < len(p.data) && p.data[p.pos] == closing {
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
	if p.pos >= len(p.data) {
		return false, p.syntax()
	}
	switch p.data[p.pos] {
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
	p.pos++ // '"'
	start := p.pos
	// Fast path: plain ASCII without escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			u := make([]uint16, p.pos-start)
			for i, b := range p.data[start:p.pos] {
				u[i] = uint16(b)
			}
			p.pos++
			return u, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.pos++
	}
	u := make([]uint16, 0, p.pos-start+16)
	for i := start; i < p.pos; i++ {
		u = append(u, uint16(p.data[i]))
	}
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return u, nil
		case c < 0x20:
			return nil, p.syntax() // raw control characters are not JSON
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return nil, err
			}
			u = append(u, r)
		case c < utf8.RuneSelf:
			u = append(u, uint16(c))
			p.pos++
		default:
			r, n := utf8.DecodeRune(p.data[p.pos:]) // input already validated
			u = utf16.AppendRune(u, r)
			p.pos += n
		}
	}
	return nil, p.syntax()
}

func (p *parser) escape() (uint16, error) {
	if p.pos+1 >= len(p.data) {
		p.pos = len(p.data)
		return 0, p.syntax()
	}
	c := p.data[p.pos+1]
	var r uint16
	switch c {
	case '"', '\\', '/':
		r = uint16(c)
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		if p.pos+6 > len(p.data) {
			return 0, p.syntax()
		}
		for _, h := range p.data[p.pos+2 : p.pos+6] {
			d, ok := hexVal(h)
			if !ok {
				return 0, p.syntax()
			}
			r = r<<4 | d
		}
		p.pos += 6
		return r, nil
	default:
		return 0, p.syntax()
	}
	p.pos += 2
	return r, nil
}

func hexVal(h byte) (uint16, bool) {
	switch {
	case h >= '0' && h <= '9':
		return uint16(h - '0'), true
	case h >= 'a' && h <= 'f':
		return uint16(h-'a') + 10, true
	case h >= 'A' && h <= 'F':
		return uint16(h-'A') + 10, true
	}
	return 0, false
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and converts
// it with correct rounding, which is what JSON.parse does.
func (p *parser) number() (Value, error) {
	start := p.pos
	d := p.data
	if d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
		if p.pos < len(d) && isDigit(d[p.pos]) {
			return Value{}, p.syntax() // leading zero
		}
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		p.skipDigits()
	default:
		return Value{}, p.syntax()
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.pos >= len(d) || !isDigit(d[p.pos]) {
			return Value{}, p.syntax()
		}
		p.skipDigits()
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(d) || !isDigit(d[p.pos]) {
			return Value{}, p.syntax()
		}
		p.skipDigits()
	}
	// ParseFloat returns ±Inf with a range error on overflow and a correctly
	// rounded 0 or subnormal on underflow, matching JS.
	f, _ := strconv.ParseFloat(string(d[start:p.pos]), 64)
	if math.IsInf(f, 0) {
		return Value{}, errAt(CodeNonFiniteNumber, start)
	}
	return Number(f), nil
}

func (p *parser) skipDigits() {
	for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
		p.pos++
	}
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
