package canon_test

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// This file holds a strict canonicalization-v1 decoder for tests only. The
// spec defines no decoder API, so the package exports none. The tests use
// this one to check encoder output and the Section 51 invalid states. It
// rejects every state Section 47 forbids. Its tag constants are typed from
// the spec here, not imported, so it checks the encoder independently.

// Rejection reasons, one per Section 51 "Required result".
var (
	errTooLarge      = errors.New("decode: more than MaxSize octets")
	errMarker        = errors.New("decode: unknown marker")
	errVersion       = errors.New("decode: unknown canonicalization version")
	errFieldTag      = errors.New("decode: unknown or misplaced envelope field tag")
	errSchemaVersion = errors.New("decode: unsupported schema version")
	errValueTag      = errors.New("decode: unknown value tag")
	errTruncated     = errors.New("decode: length or count exceeds the remaining octets")
	errTrailing      = errors.New("decode: trailing octets")
	errFieldOrder    = errors.New("decode: object fields not in strictly ascending ASCII order")
	errContent       = errors.New("decode: content violates its grammar")
	errRoot          = errors.New("decode: root value is not an object")
)

// cursor reads big-endian primitives from the front of b, in the style of
// cryptobyte.String: a read either consumes exactly what it returns and
// reports true, or reports false.
type cursor struct{ b []byte }

func (c *cursor) take(n uint64) ([]byte, bool) {
	if n > uint64(len(c.b)) {
		return nil, false
	}
	out := c.b[:n]
	c.b = c.b[n:]
	return out, true
}

func (c *cursor) u8() (byte, bool) {
	b, ok := c.take(1)
	if !ok {
		return 0, false
	}
	return b[0], true
}

func (c *cursor) u16() (uint16, bool) {
	b, ok := c.take(2)
	if !ok {
		return 0, false
	}
	return binary.BigEndian.Uint16(b), true
}

func (c *cursor) u32() (uint32, bool) {
	b, ok := c.take(4)
	if !ok {
		return 0, false
	}
	return binary.BigEndian.Uint32(b), true
}

func (c *cursor) u64() (uint64, bool) {
	b, ok := c.take(8)
	if !ok {
		return 0, false
	}
	return binary.BigEndian.Uint64(b), true
}

// short reads U16(n) ASCII(n).
func (c *cursor) short() (string, error) {
	n, ok := c.u16()
	return c.ascii(uint64(n), ok)
}

// str reads U32(n) ASCII(n).
func (c *cursor) str() (string, error) {
	n, ok := c.u32()
	return c.ascii(uint64(n), ok)
}

// ascii reads the n octets after a length prefix; ok reports whether the
// prefix itself was complete.
func (c *cursor) ascii(n uint64, ok bool) (string, error) {
	if !ok {
		return "", errTruncated
	}
	b, ok := c.take(n)
	if !ok {
		return "", errTruncated
	}
	return string(b), nil
}

// row reads an envelope row tag and requires it to be the next in order.
func (c *cursor) row(want byte) error {
	tag, ok := c.u8()
	if !ok {
		return errTruncated
	}
	if tag != want {
		return fmt.Errorf("%w: got %02X, want %02X", errFieldTag, tag, want)
	}
	return nil
}

func content(err error) error { return fmt.Errorf("%w: %w", errContent, err) }

// checked returns what a constructor built from decoded octets, with its
// rejection reported as a content error.
func checked[T any](v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, content(err)
	}
	return v, nil
}

// decodeEnvelope decodes one complete request and rejects any other octets.
func decodeEnvelope(b []byte) (canon.Envelope, error) {
	var env canon.Envelope
	if len(b) > canon.MaxSize {
		return env, errTooLarge
	}
	c := cursor{b}
	marker, ok := c.take(7)
	if !ok {
		return env, errTruncated
	}
	if string(marker) != "\x53\x54\x4B\x43\x52\x51\x00" {
		return env, errMarker
	}
	if v, ok := c.u16(); !ok || v != 0x0001 {
		return env, errVersion
	}
	// Each row: tag check, then content. ident's constructors check the
	// Section 49 grammars and reject zero generations.
	steps := []func() error{
		func() (err error) { env.SnapshotID, err = shortIdent(&c, ident.ParseSnapshotID); return err },
		func() (err error) { env.SnapshotGeneration, err = generation(&c); return err },
		func() (err error) { env.ToolID, err = shortIdent(&c, ident.ParseToolID); return err },
		func() (err error) { env.ToolVersion, err = generation(&c); return err },
		func() (err error) { env.DefinitionID, err = shortIdent(&c, ident.ParseDefinitionID); return err },
		func() (err error) { env.SchemaID, err = shortIdent(&c, ident.ParseSchemaID); return err },
		func() error {
			v, ok := c.u16()
			switch {
			case !ok:
				return errTruncated
			case v != 0x0001:
				return errSchemaVersion
			}
			env.SchemaVersion = vocab.V1
			return nil
		},
		func() (err error) {
			if env.Root, err = c.value(); err == nil && env.Root.Kind() != vocab.KindObject {
				err = errRoot
			}
			return err
		},
	}
	for i, step := range steps {
		if err := c.row(byte(0x01 + i)); err != nil {
			return canon.Envelope{}, err
		}
		if err := step(); err != nil {
			return canon.Envelope{}, err
		}
	}
	if len(c.b) != 0 {
		return canon.Envelope{}, errTrailing
	}
	return env, nil
}

func shortIdent[T any](c *cursor, parse func(string) (T, error)) (T, error) {
	s, err := c.short()
	if err != nil {
		var zero T
		return zero, err
	}
	return checked(parse(s))
}

func generation(c *cursor) (ident.Generation, error) {
	u, ok := c.u64()
	if !ok {
		return ident.Generation{}, errTruncated
	}
	return checked(ident.NewGeneration(u))
}

// decodeValue decodes one standalone value fragment and rejects any other
// octets.
func decodeValue(b []byte) (value.Value, error) {
	if len(b) > canon.MaxSize {
		return value.Value{}, errTooLarge
	}
	c := cursor{b}
	v, err := c.value()
	if err != nil {
		return value.Value{}, err
	}
	if len(c.b) != 0 {
		return value.Value{}, errTrailing
	}
	return v, nil
}

// value decodes one value. Recursion depth is bounded by the input: every
// nesting level consumes at least five octets.
func (c *cursor) value() (value.Value, error) {
	tag, ok := c.u8()
	if !ok {
		return value.Value{}, errTruncated
	}
	switch tag {
	case 0x10:
		return text(c, value.String)
	case 0x11:
		return value.Bool(false), nil
	case 0x12:
		return value.Bool(true), nil
	case 0x13:
		u, ok := c.u64()
		if !ok {
			return value.Value{}, errTruncated
		}
		return value.Signed(int64(u)), nil
	case 0x14:
		u, ok := c.u64()
		if !ok {
			return value.Value{}, errTruncated
		}
		return value.Unsigned(u), nil
	case 0x15:
		return text(c, func(s string) (value.Value, error) {
			n, err := ident.ParseName(s)
			if err != nil {
				return value.Value{}, err
			}
			return value.Enum(n)
		})
	case 0x16:
		return c.array()
	case 0x17:
		return c.object()
	case 0x18:
		return text(c, func(s string) (value.Value, error) {
			r, err := ident.ParseResource(s)
			if err != nil {
				return value.Value{}, err
			}
			return value.Resource(r)
		})
	default:
		return value.Value{}, fmt.Errorf("%w: %02X", errValueTag, tag)
	}
}

func text(c *cursor, build func(string) (value.Value, error)) (value.Value, error) {
	s, err := c.str()
	if err != nil {
		return value.Value{}, err
	}
	return checked(build(s))
}

func (c *cursor) array() (value.Value, error) {
	n, ok := c.u32()
	if !ok {
		return value.Value{}, errTruncated
	}
	// The count is untrusted: grow the slice with the values actually read,
	// never preallocate from n. Each element consumes at least one octet,
	// so a false count ends in errTruncated.
	var elems []value.Value
	for range n {
		if len(elems) == value.MaxElements {
			return value.Value{}, content(errors.New("more than 64 elements"))
		}
		v, err := c.value()
		if err != nil {
			return value.Value{}, err
		}
		elems = append(elems, v)
	}
	return checked(value.Array(elems))
}

func (c *cursor) object() (value.Value, error) {
	n, ok := c.u16()
	if !ok {
		return value.Value{}, errTruncated
	}
	var fields []value.Field
	for i := range int(n) {
		if i == value.MaxFields {
			return value.Value{}, content(errors.New("more than 64 fields"))
		}
		s, err := c.short()
		if err != nil {
			return value.Value{}, err
		}
		name, err := ident.ParseName(s)
		if err != nil {
			return value.Value{}, content(err)
		}
		if i > 0 && fields[i-1].Name().Compare(name) >= 0 {
			return value.Value{}, errFieldOrder
		}
		v, err := c.value()
		if err != nil {
			return value.Value{}, err
		}
		fields = append(fields, value.NewField(name, v))
	}
	return checked(value.Object(fields))
}
