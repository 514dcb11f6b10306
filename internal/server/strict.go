package server

import (
	"encoding/json"
	"strconv"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/jsonlex"
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
// The tokens (white space, strings, numbers) are scanned by jsonlex, the
// lexer of every JSON reader in the module; this file is the envelope's
// profile on top of it: every fault is errSyntax (malformed at body), a
// lone surrogate escape decodes to U+FFFD and bytes pass unchecked, as with
// encoding/json. Decoded strings without escapes share the body's memory:
// one copy of the body, no allocation per string member without escapes.
//
// What is hand-written here is the walk, shared by every wire type.
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

func (d *scanner) ws() { d.i = jsonlex.SkipSpace(d.s, d.i) }

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
	if jsonlex.Literal(d.s, d.i, lit) == len(lit) {
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
	n, ok := jsonlex.Number(d.s, d.i)
	if ok {
		d.i = n.End
	}
	return ok
}

// strSkip validates and passes one string (d.s[d.i] is '"').
func (d *scanner) strSkip() error {
	end, f := jsonlex.SkipString(d.s, d.i)
	if f != jsonlex.OK {
		return errSyntax
	}
	d.i = end
	return nil
}

// str reads one string (d.s[d.i] is '"') and returns its value; without
// escapes it shares the body's memory.
func (d *scanner) str() (string, error) {
	if v, end, ok := jsonlex.Plain(d.s, d.i); ok {
		d.i = end
		return v, nil
	}
	return d.escaped()
}

// escaped reads a string that Plain did not take.
func (d *scanner) escaped() (string, error) {
	// Strings with escapes are rare and short in a request body: a scratch
	// on the stack leaves the decoded string as their one allocation.
	var scratch [64]byte
	v, end, _, f := jsonlex.String(d.s, d.i, scratch[:0], jsonlex.ReplaceLone)
	if f != jsonlex.OK {
		return "", errSyntax
	}
	d.i = end
	return v, nil
}
