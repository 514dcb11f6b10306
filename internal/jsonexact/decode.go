package jsonexact

import (
	"sync"

	"github.com/toolgate/toolgate/internal/jsonlex"
)

// Default limits, selected by a zero Limits field.
const (
	DefaultMaxDepth = 32      // nested containers, the root container counting as 1
	DefaultMaxBytes = 1 << 20 // input length in bytes
)

// Limits bounds the work Decode does on untrusted input. A zero field
// selects its default. A negative field is not replaced: MaxBytes < 0
// rejects every input and MaxDepth < 0 rejects every container, so a
// miscomputed limit fails closed instead of widening.
type Limits struct {
	MaxDepth int // maximum container nesting; a top-level scalar has depth 0
	MaxBytes int // maximum input length in bytes
}

// dupScanMax is the member count up to which duplicate names are found by a
// linear scan; larger objects switch to a map so the check stays linear.
const dupScanMax = 16

// frame is one open container on the explicit parse stack. Its children so
// far are d.kids[base:]; they move to an exactly sized slice when it closes.
type frame struct {
	obj  bool
	base int
	key  string              // name of the member whose value is being parsed
	seen map[string]struct{} // built once the object outgrows dupScanMax
}

// scratch is the reusable part of a decoder: its container stack and the
// shared children scratch.
type scratch struct {
	stack []frame
	kids  []Member
}

// Bounds of a scratch kept in the pool.
const (
	maxPooledStack = 64
	maxPooledKids  = 1024
)

// Typical arguments are shallow and small: a new scratch is sized for them.
var scratches = sync.Pool{New: func() any {
	return &scratch{stack: make([]frame, 0, 8), kids: make([]Member, 0, 16)}
}}

type decoder struct {
	data     []byte
	src      string // one copy of data; unescaped strings and literals are substrings of it
	pos      int
	maxDepth int
	any      bool // DecodeAny: keep null and every number
	stack    []frame
	// kids is shared scratch for the children of all open containers, so a
	// container costs one allocation however many children it has.
	kids []Member
	buf  []byte // scratch for strings with escapes
}

// Decode parses data as one JSON value under the profile described in the
// package documentation. Every rejection is an *Error; nothing partial is
// returned on failure.
//
// Checks run in a fixed order: size (CodeTooLarge), emptiness (CodeEmpty,
// also for whitespace-only input), whole-input UTF-8 (CodeInvalidUTF8), then
// the parse itself, which stops at the first problem.
//
// The returned Value shares one copy of the input, so keeping any part of it
// keeps the whole (bounded by MaxBytes) input alive.
func Decode(data []byte, lim Limits) (Value, error) { return decode(data, lim, false) }

// DecodeAny is Decode for the argument profile (internal/argprofile), which
// must read every JSON value an MCP tool may be sent and map it before the
// core: it also accepts null (Kind Null) and every RFC 8259 number that is
// not an in-range canonical integer (Kind Number, its exact token kept by
// Literal: a fraction, an exponent, -0, or an integer outside
// [-2^63, 2^64-1]). Everything else — duplicate names, lone surrogates,
// invalid UTF-8, the limits — rejects exactly as in Decode. The protocol
// path never calls it.
func DecodeAny(data []byte, lim Limits) (Value, error) { return decode(data, lim, true) }

func decode(data []byte, lim Limits, anyValue bool) (Value, error) {
	maxBytes, maxDepth := lim.MaxBytes, lim.MaxDepth
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxDepth == 0 {
		maxDepth = DefaultMaxDepth
	}
	if len(data) > maxBytes {
		return Value{}, errAt(CodeTooLarge, max(maxBytes, 0))
	}
	if len(data) == 0 {
		return Value{}, errAt(CodeEmpty, 0)
	}
	if off, bad := jsonlex.InvalidUTF8(data); bad {
		return Value{}, errAt(CodeInvalidUTF8, off)
	}
	d := decoder{data: data, src: string(data), maxDepth: maxDepth, any: anyValue}
	// The scratch stacks come from a pool and go back cleared: nothing of
	// one input is reachable from the next, and no Value refers to them.
	sc := scratches.Get().(*scratch)
	d.stack, d.kids = sc.stack[:0], sc.kids[:0]
	defer func() {
		if cap(d.stack) > maxPooledStack || cap(d.kids) > maxPooledKids {
			return // an unusually large input: do not keep its scratch
		}
		clear(d.stack[:cap(d.stack)])
		clear(d.kids[:cap(d.kids)])
		sc.stack, sc.kids = d.stack[:0], d.kids[:0]
		scratches.Put(sc)
	}()
	d.skipWS()
	if d.pos == len(data) {
		return Value{}, errAt(CodeEmpty, d.pos)
	}
	v, err := d.run()
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

// run is the iterative parse loop: it alternates between starting a value
// and attaching finished values to the open containers on d.stack, so
// nesting depth costs heap, never Go stack.
func (d *decoder) run() (Value, error) {
	for {
		v, done, err := d.begin()
		if err != nil {
			return Value{}, err
		}
		if !done {
			continue // a non-empty container was opened; parse its first child
		}
		for {
			if len(d.stack) == 0 {
				d.skipWS()
				if d.pos != len(d.data) {
					return Value{}, errAt(CodeTrailingData, d.pos)
				}
				return v, nil
			}
			more, err := d.attach(v)
			if err != nil {
				return Value{}, err
			}
			if more {
				break // a ',' was read; parse the next child
			}
			v = d.pop()
		}
	}
}

// begin parses the start of a value. For scalars and empty containers it
// returns the finished value with done set. For a non-empty container it
// pushes a frame (having read the first member name, for objects) and
// returns done unset.
func (d *decoder) begin() (v Value, done bool, err error) {
	d.skipWS()
	if d.pos == len(d.data) {
		return Value{}, false, errAt(CodeSyntax, d.pos)
	}
	switch c := d.data[d.pos]; c {
	case '{', '[':
		if len(d.stack) >= d.maxDepth {
			return Value{}, false, errAt(CodeTooDeep, d.pos)
		}
		d.pos++
		obj := c == '{'
		d.stack = append(d.stack, frame{obj: obj, base: len(d.kids)})
		d.skipWS()
		closer := byte(']')
		if obj {
			closer = '}'
		}
		if d.pos < len(d.data) && d.data[d.pos] == closer {
			d.pos++
			return d.pop(), true, nil
		}
		if obj {
			if err := d.memberName(); err != nil {
				return Value{}, false, err
			}
		}
		return Value{}, false, nil
	case '"':
		s, err := d.str()
		return Value{kind: String, s: s}, err == nil, err
	case 't':
		err := d.literal("true")
		return Value{kind: Bool, b: true}, err == nil, err
	case 'f':
		err := d.literal("false")
		return Value{kind: Bool}, err == nil, err
	case 'n':
		start := d.pos
		if err := d.literal("null"); err != nil {
			return Value{}, false, err
		}
		if d.any {
			return Value{kind: Null}, true, nil
		}
		return Value{}, false, errAt(CodeNull, start)
	default:
		if c == '-' || isDigit(c) {
			lit, err := d.number()
			if d.any && err != nil {
				return d.anyNumber(err)
			}
			return Value{kind: Integer, s: lit}, err == nil, err
		}
		return Value{}, false, errAt(CodeSyntax, d.pos)
	}
}

// attach adds a finished child to the innermost container, then reads
// either ',' (more is true; for objects the next member name is read too)
// or the container's closing bracket (more is false; the caller pops).
func (d *decoder) attach(v Value) (more bool, err error) {
	top := &d.stack[len(d.stack)-1]
	d.kids = append(d.kids, Member{Name: top.key, Value: v})
	if top.seen != nil {
		top.seen[top.key] = struct{}{}
	}
	top.key = ""
	d.skipWS()
	if d.pos == len(d.data) {
		return false, errAt(CodeSyntax, d.pos)
	}
	switch c := d.data[d.pos]; {
	case c == ',':
		d.pos++
		if top.obj {
			return true, d.memberName()
		}
		return true, nil
	case top.obj && c == '}', !top.obj && c == ']':
		d.pos++
		return false, nil
	}
	return false, errAt(CodeSyntax, d.pos)
}

// memberName reads `"name" :` for the innermost object and rejects a name
// already present in it.
func (d *decoder) memberName() error {
	d.skipWS()
	if d.pos == len(d.data) || d.data[d.pos] != '"' {
		return errAt(CodeSyntax, d.pos)
	}
	start := d.pos
	name, err := d.str()
	if err != nil {
		return err
	}
	top := &d.stack[len(d.stack)-1]
	siblings := d.kids[top.base:]
	if top.seen == nil && len(siblings) >= dupScanMax {
		top.seen = make(map[string]struct{}, 2*len(siblings))
		for _, m := range siblings {
			top.seen[m.Name] = struct{}{}
		}
	}
	dup := false
	if top.seen != nil {
		_, dup = top.seen[name]
	} else {
		for _, m := range siblings {
			if m.Name == name {
				dup = true
				break
			}
		}
	}
	if dup {
		return errAt(CodeDuplicateKey, start)
	}
	top.key = name
	d.skipWS()
	if d.pos == len(d.data) || d.data[d.pos] != ':' {
		return errAt(CodeSyntax, d.pos)
	}
	d.pos++
	return nil
}

// pop closes the innermost container and returns it as a Value. The frame
// is cleared so a later push at this depth shares nothing with it.
func (d *decoder) pop() Value {
	f := &d.stack[len(d.stack)-1]
	kind := Array
	if f.obj {
		kind = Object
	}
	var kids []Member
	if n := len(d.kids) - f.base; n > 0 {
		kids = make([]Member, n)
		copy(kids, d.kids[f.base:])
		d.kids = d.kids[:f.base]
	}
	*f = frame{}
	d.stack = d.stack[:len(d.stack)-1]
	return Value{kind: kind, kids: kids}
}

func (d *decoder) skipWS() { d.pos = jsonlex.SkipSpace(d.src, d.pos) }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// literal consumes the exact keyword lit at d.pos. A token byte right after
// it ("truex") makes it malformed rather than trailing data.
func (d *decoder) literal(lit string) error {
	if n := jsonlex.Literal(d.src, d.pos, lit); n < len(lit) {
		return errAt(CodeSyntax, d.pos+n)
	}
	d.pos += len(lit)
	if d.pos < len(d.src) && jsonlex.TokenByte(d.src[d.pos]) {
		return errAt(CodeSyntax, d.pos)
	}
	return nil
}
