package server

import (
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

// The strict single-pass decoder of request bodies. It reads the body once,
// straight into the wire types, and rejects exactly what the former two
// passes (a token walk for duplicates, nulls and names, then
// encoding/json with unknown fields disallowed) rejected: invalid JSON,
// a duplicate member name, null outside a raw subtree, a member name the
// object does not declare in its exact spelling, a value of the wrong JSON
// kind, trailing data. Codes and paths are the former ones; paths name
// members, not array indices. With several faults in one body the one
// reported is the first in document order. Raw subtrees (arguments,
// bindings) are only checked to be valid JSON and passed on byte for byte
// to their own stricter parsers.
//
// It scans a string so that decoded strings share the body's memory: one
// copy of the body, no allocation per string member without escapes.
//
// What is hand-written here is the scanning, shared by every wire type.
// Which member of which wire type goes where (the names lists, a decoding
// method per type, decodeAuthorize and decodeValidate) is generated from
// client/types.go into zz_generated.strict.go by hack/strictgen: make
// generate after changing a wire type.

//go:generate go run ../../hack/strictgen -types ../../client/types.go -out zz_generated.strict.go

// maxDepth is encoding/json's nesting bound, kept so that raw subtrees
// accept and reject as before.
const maxDepth = 10000

var (
	errSyntax   = fault.At("body", fault.Malformed, "the request body is not valid JSON")
	errTrailing = fault.At("body", fault.Malformed, "data follows the JSON object")
)

func kindMismatch(path string) error {
	return fault.At(path, fault.KindMismatch, "the value has the wrong JSON type")
}

func nullRejected(path string) error {
	return fault.At(path, fault.KindMismatch, "null is not a value of this API; omit the member instead")
}

type scanner struct {
	s string
	i int
}

func (d *scanner) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end (a NUL byte in
// the body is also 0 here: test for the end with atEnd).
func (d *scanner) peek() byte {
	d.ws()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// atEnd reports whether only white space is left. Not peek() == 0, which
// would take a NUL byte (invalid JSON) for the end of the body.
func (d *scanner) atEnd() bool {
	d.ws()
	return d.i >= len(d.s)
}

// top decodes the body, which must be one JSON object, with obj (a
// closure calling the root type's generated decoding method at the empty
// path), then requires its end. A closure rather than a method value and
// the destination: the destination would escape through the indirect call.
func top(body string, obj func(d *scanner) error) error {
	d := &scanner{s: body}
	if d.peek() != '{' {
		// Not an object: no value or invalid JSON first, as the token walk
		// found them.
		if d.atEnd() || !validStream(d.s) {
			return errSyntax
		}
		return kindMismatch("")
	}
	if err := obj(d); err != nil {
		if fault.CodeOf(err) != fault.Malformed && !validStream(d.s) {
			// Invalid JSON anywhere outranks every other fault, as it did
			// when a token walk of the whole body came first.
			return errSyntax
		}
		return err
	}
	if !d.atEnd() {
		if err := d.skip(); err != nil {
			return err
		}
		return errTrailing
	}
	return nil
}

// open enters the object or array (opening byte c, closing byte end) of
// member name of the object at parent, reporting whether it is empty and
// so already passed. null and a value of another kind are rejected at
// parent.name; the path is joined only then.
func (d *scanner) open(parent, name string, c, end byte) (empty bool, err error) {
	switch d.peek() {
	case c:
		d.i++
	case 'n':
		return false, d.null(parent, name)
	default:
		return false, d.mismatch(fault.Join(parent, name))
	}
	if d.peek() == end {
		d.i++
		return true, nil
	}
	return false, nil
}

// next passes what follows a member or an element: a comma, or end (then
// done).
func (d *scanner) next(end byte) (done bool, err error) {
	switch d.peek() {
	case ',':
		d.i++
		return false, nil
	case end:
		d.i++
		return true, nil
	}
	return false, errSyntax
}

// object decodes one object at path whose members are names (at most 32,
// the bits of seen); member decodes the value of names[field].
func (d *scanner) object(path string, names []string, member func(d *scanner, field int) error) error {
	if empty, err := d.open(path, "", '{', '}'); empty || err != nil {
		return err
	}
	var seen uint32
	for {
		if d.peek() != '"' {
			return errSyntax
		}
		name, err := d.str()
		if err != nil {
			return err
		}
		if d.peek() != ':' {
			return errSyntax
		}
		d.i++
		field := -1
		for k, n := range names {
			if n == name {
				field = k
				break
			}
		}
		if field < 0 {
			return fault.At(path, fault.UnknownField, "the object has a member the API does not declare (names are case-sensitive)")
		}
		if seen&(1<<field) != 0 {
			return fault.At(fault.Join(path, name), fault.Duplicate, "a member name appears twice in one object")
		}
		seen |= 1 << field
		if err := member(d, field); err != nil {
			return err
		}
		if done, err := d.next('}'); done || err != nil {
			return err
		}
	}
}

// objects decodes the array of objects at path into *out (empty, not nil,
// for []), each element with obj (a generated decoding method; elements
// share the array's path). Each element is decoded in place, in the slice:
// a separate value would escape to the heap through the indirect call. An
// element stays appended when it fails, as the array walk stops there.
func objects[T any](d *scanner, path string, out *[]T, obj func(d *scanner, path string, v *T) error) error {
	*out = []T{}
	return d.array(path, func(d *scanner) error {
		var zero T
		*out = append(*out, zero)
		return obj(d, path, &(*out)[len(*out)-1])
	})
}

// array decodes one array at path, elem decoding each element.
func (d *scanner) array(path string, elem func(d *scanner) error) error {
	if empty, err := d.open(path, "", '[', ']'); empty || err != nil {
		return err
	}
	for {
		if err := elem(d); err != nil {
			return err
		}
		if done, err := d.next(']'); done || err != nil {
			return err
		}
	}
}

// mismatch reports a value of the wrong kind at path, or a syntax error
// when what is there is no JSON value at all.
func (d *scanner) mismatch(path string) error {
	if err := d.skip(); err != nil {
		return err
	}
	return kindMismatch(path)
}

// validStream reports whether s is a sequence of valid JSON values.
func validStream(s string) bool {
	d := &scanner{s: s}
	for !d.atEnd() {
		if d.skip() != nil {
			return false
		}
	}
	return true
}

func (d *scanner) literal(lit string) bool {
	if len(d.s)-d.i >= len(lit) && d.s[d.i:d.i+len(lit)] == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// String reads a string member name of the object at parent. The paths
// of errors are joined only when there is an error.
func (d *scanner) String(parent, name string, into *string) error {
	switch d.peek() {
	case '"':
		s, err := d.str()
		*into = s
		return err
	case 'n':
		return d.null(parent, name)
	}
	return d.mismatch(fault.Join(parent, name))
}

// Strings reads an array of strings (empty, not nil, for []); an element's
// faults are at the array's path. It is array's walk written out, without
// a closure call per element.
func (d *scanner) Strings(parent, name string, into *[]string) error {
	out := []string{}
	empty, err := d.open(parent, name, '[', ']')
	for done := empty; err == nil && !done; {
		var s string
		if err = d.String(parent, name, &s); err == nil {
			out = append(out, s)
			done, err = d.next(']')
		}
	}
	if err == nil {
		*into = out
	}
	return err
}

// Uint reads an unsigned integer.
func (d *scanner) Uint(parent, name string, into *uint64) error {
	switch c := d.peek(); {
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		if !d.number() {
			return errSyntax
		}
		n, err := strconv.ParseUint(d.s[start:d.i], 10, 64)
		if err != nil {
			return kindMismatch(fault.Join(parent, name))
		}
		*into = n
		return nil
	case c == 'n':
		return d.null(parent, name)
	}
	return d.mismatch(fault.Join(parent, name))
}

// Bool reads a boolean.
func (d *scanner) Bool(parent, name string, into *bool) error {
	switch d.peek() {
	case 't':
		if d.literal("true") {
			*into = true
			return nil
		}
		return errSyntax
	case 'f':
		if d.literal("false") {
			*into = false
			return nil
		}
		return errSyntax
	case 'n':
		return d.null(parent, name)
	}
	return d.mismatch(fault.Join(parent, name))
}

// null rejects the null at parent.name (or a syntax error).
func (d *scanner) null(parent, name string) error {
	if d.literal("null") {
		return nullRejected(fault.Join(parent, name))
	}
	return errSyntax
}

// Raw reads any JSON value (null included) and keeps its exact bytes.
func (d *scanner) Raw(parent, name string, into *json.RawMessage) error {
	d.ws()
	start := d.i
	if err := d.skip(); err != nil {
		return fault.At(fault.Join(parent, name), fault.Malformed, "the value is not valid JSON")
	}
	*into = json.RawMessage(d.s[start:d.i])
	return nil
}

// skip validates and passes one JSON value.
func (d *scanner) skip() error {
	var stack []byte // the closing bytes of the open containers: '}' or ']'
	for {
		// A value.
		switch c := d.peek(); {
		case c == '{' || c == '[':
			if len(stack) == maxDepth {
				return errSyntax
			}
			d.i++
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			if d.peek() == end {
				d.i++
				goto after
			}
			stack = append(stack, end)
			if c == '{' {
				if err := d.key(); err != nil {
					return err
				}
			}
			continue
		case c == '"':
			if err := d.strSkip(); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			if !d.number() {
				return errSyntax
			}
		case c == 't':
			if !d.literal("true") {
				return errSyntax
			}
		case c == 'f':
			if !d.literal("false") {
				return errSyntax
			}
		case c == 'n':
			if !d.literal("null") {
				return errSyntax
			}
		default:
			return errSyntax
		}
	after:
		// After a value: close containers or go on to the next value.
		for len(stack) > 0 {
			end := stack[len(stack)-1]
			switch d.peek() {
			case ',':
				d.i++
				if end == '}' {
					if err := d.key(); err != nil {
						return err
					}
				}
			case '}', ']':
				if d.s[d.i] != end {
					return errSyntax
				}
				d.i++
				stack = stack[:len(stack)-1]
				continue
			default:
				return errSyntax
			}
			break
		}
		if len(stack) == 0 {
			return nil
		}
	}
}

// key validates and passes a member name and its colon.
func (d *scanner) key() error {
	if d.peek() != '"' {
		return errSyntax
	}
	if err := d.strSkip(); err != nil {
		return err
	}
	if d.peek() != ':' {
		return errSyntax
	}
	d.i++
	return nil
}

// number passes one JSON number, reporting whether it is well formed.
func (d *scanner) number() bool {
	s, i := d.s, d.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	d.i = i
	return true
}

// strSkip validates and passes one string.
func (d *scanner) strSkip() error {
	_, _, err := d.strSpan()
	return err
}

// strSpan passes one string (d.s[d.i] is '"') and returns the span of its
// content and whether it holds escapes.
func (d *scanner) strSpan() (end int, escaped bool, err error) {
	s := d.s
	i := d.i + 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return i, escaped, nil
		case c < 0x20:
			return 0, false, errSyntax
		case c == '\\':
			escaped = true
			if i+1 >= len(s) {
				return 0, false, errSyntax
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) {
					return 0, false, errSyntax
				}
				if _, ok := hex4(s[i+2 : i+6]); !ok {
					return 0, false, errSyntax
				}
				i += 6
			default:
				return 0, false, errSyntax
			}
		default:
			i++
		}
	}
	return 0, false, errSyntax
}

// str reads one string (d.s[d.i] is '"') and returns its value; without
// escapes it shares the body's memory.
func (d *scanner) str() (string, error) {
	start := d.i + 1
	end, escaped, err := d.strSpan()
	if err != nil {
		return "", err
	}
	if !escaped {
		return d.s[start:end], nil
	}
	return unescape(d.s[start:end]), nil
}

func hex4(s string) (rune, bool) {
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// unescape decodes the content of a valid string with escapes as
// encoding/json does: a lone surrogate becomes U+FFFD.
func unescape(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b = append(b, s[i])
			i++
			continue
		}
		switch c := s[i+1]; c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, _ := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2, ok := hex4(s[i+2 : i+6]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\', '/'
			b = append(b, c)
		}
		i += 2
	}
	return string(b)
}
