// Package value holds validated typed argument values: the closed v1 value
// kinds of spec Section 10 (printable-ASCII string, reviewed Resource
// identifier, Boolean, signed and unsigned 64-bit integer, enumeration case,
// ordered array and closed object).
//
// A Value is immutable and can only be built by this package's constructors,
// which enforce the per-value invariants that do not depend on a Schema:
// string alphabet and length, array length, and object field count, order
// and uniqueness. Conformance to a Schema is the job of package schema, which
// is the only producer of values for Canonical Requests.
package value

import (
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Limits of Section 39 owned by values.
const (
	MaxStringLen = 1024
	MaxElements  = 64
	MaxFields    = 64
)

// Value is a validated typed value. The zero Value is invalid.
type Value struct {
	kind vocab.ValueKind
	b    bool   // next to kind: one word for both (values are copied often)
	text string // string, resourceID and enumeration payload
	u    uint64 // unsigned value, or signed value's two's-complement bits
	// kids holds an object's fields, or an array's elements with zero
	// names. One slice rather than one per kind keeps a Value at 56 octets
	// and a Field at 72 (from 80 and 96): values and fields are copied on
	// every step of validation, encoding and digesting.
	kids []Field
}

// Field is one present member of an object value.
type Field struct {
	name ident.Name
	val  Value
}

// NewField pairs a field name with its value.
func NewField(name ident.Name, v Value) Field { return Field{name: name, val: v} }

// Name returns the field name.
func (f Field) Name() ident.Name { return f.name }

// Value returns the field value.
func (f Field) Value() Value { return f.val }

// String returns a string value: 0–1,024 printable ASCII octets (0x20–0x7E),
// spaces preserved.
func String(s string) (Value, error) {
	if len(s) > MaxStringLen {
		return Value{}, fault.New(fault.LimitExceeded, "string values are at most 1024 octets")
	}
	if !ident.IsPrintableASCII(s) {
		return Value{}, fault.New(fault.Malformed, "string values contain only printable ASCII (0x20–0x7E)")
	}
	return Value{kind: vocab.KindString, text: s}, nil
}

// Resource returns a Resource identifier value.
func Resource(r ident.Resource) (Value, error) {
	if r.IsZero() {
		return Value{}, fault.New(fault.Missing, "a resource value needs a resource identifier")
	}
	return Value{kind: vocab.KindResourceID, text: r.String()}, nil
}

// Bool returns a Boolean value.
func Bool(b bool) Value { return Value{kind: vocab.KindBool, b: b} }

// Signed returns a signed 64-bit integer value.
func Signed(i int64) Value { return Value{kind: vocab.KindSignedInteger, u: uint64(i)} }

// Unsigned returns an unsigned 64-bit integer value.
func Unsigned(u uint64) Value { return Value{kind: vocab.KindUnsignedInteger, u: u} }

// Enum returns an enumeration case value.
func Enum(c ident.Name) (Value, error) {
	if c.IsZero() {
		return Value{}, fault.New(fault.Missing, "an enumeration value needs a case")
	}
	return Value{kind: vocab.KindEnumeration, text: c.String()}, nil
}

// Array returns an ordered array value of at most 64 elements. Order and
// duplicates are significant. The slice is copied.
func Array(elems []Value) (Value, error) {
	if len(elems) > MaxElements {
		return Value{}, fault.New(fault.LimitExceeded, "arrays have at most 64 elements")
	}
	for _, e := range elems {
		if !e.kind.IsValid() {
			return Value{}, fault.New(fault.Missing, "array elements must be valid values")
		}
	}
	if len(elems) == 0 {
		return Value{kind: vocab.KindArray}, nil
	}
	kids := make([]Field, len(elems))
	for i, e := range elems {
		kids[i].val = e
	}
	return Value{kind: vocab.KindArray, kids: kids}, nil
}

// Object returns an object value of at most 64 present fields, which must be
// in strictly ascending field-name ASCII order (Section 50). The slice is
// copied.
func Object(fields []Field) (Value, error) {
	if len(fields) > MaxFields {
		return Value{}, fault.New(fault.LimitExceeded, "objects have at most 64 fields")
	}
	for i, f := range fields {
		if f.name.IsZero() || !f.val.kind.IsValid() {
			return Value{}, fault.New(fault.Missing, "object fields need a name and a valid value")
		}
		if i > 0 {
			switch fields[i-1].name.Compare(f.name) {
			case 0:
				return Value{}, fault.New(fault.Duplicate, "object field names are unique")
			case 1:
				return Value{}, fault.New(fault.Disordered, "object fields are in field-name ASCII order")
			}
		}
	}
	return Value{kind: vocab.KindObject, kids: append([]Field(nil), fields...)}, nil
}

// Kind returns the value kind; 0 for the zero Value.
func (v Value) Kind() vocab.ValueKind { return v.kind }

// IsZero reports whether v is the invalid zero Value.
func (v Value) IsZero() bool { return v.kind == 0 }

// Text returns the payload of a string, resourceID or enumeration value.
func (v Value) Text() string { return v.text }

// Bool returns the payload of a Boolean value.
func (v Value) Bool() bool { return v.b }

// Int returns the payload of a signed integer value.
func (v Value) Int() int64 { return int64(v.u) }

// Uint returns the payload of an unsigned integer value.
func (v Value) Uint() uint64 { return v.u }

// Len returns the element count of an array or the field count of an object.
func (v Value) Len() int {
	return len(v.kids)
}

// Elem returns array element i.
func (v Value) Elem(i int) Value {
	if v.kind != vocab.KindArray {
		notKind("Elem", "an array")
	}
	return v.kids[i].val
}

// Field returns object field i, in field-name order.
func (v Value) Field(i int) Field {
	if v.kind != vocab.KindObject {
		notKind("Field", "an object")
	}
	return v.kids[i]
}

// notKind fails loudly, as indexing a container of the other kind did
// when arrays and objects had separate slices.
func notKind(method, kind string) { panic("value: " + method + " of a value that is not " + kind) }

// Lookup returns the object field named name.
func (v Value) Lookup(name string) (Value, bool) {
	if v.kind != vocab.KindObject {
		return Value{}, false
	}
	for _, f := range v.kids {
		if f.name.String() == name {
			return f.val, true
		}
	}
	return Value{}, false
}

// Equal reports whether a and b are the same kind and content.
func (a Value) Equal(b Value) bool {
	if a.kind != b.kind || a.text != b.text || a.b != b.b || a.u != b.u ||
		len(a.kids) != len(b.kids) {
		return false
	}
	// Array elements have zero names, so one loop compares both kinds.
	for i := range a.kids {
		if a.kids[i].name != b.kids[i].name || !a.kids[i].val.Equal(b.kids[i].val) {
			return false
		}
	}
	return true
}

// WriteDigest writes v's complete content to a digest builder.
func (v Value) WriteDigest(b *digest.Builder) {
	b.Uint(uint64(v.kind))
	//exhaustive:enforce
	switch v.kind {
	case vocab.KindString, vocab.KindResourceID, vocab.KindEnumeration:
		b.String(v.text)
	case vocab.KindBool:
		b.Bool(v.b)
	case vocab.KindSignedInteger, vocab.KindUnsignedInteger:
		b.Uint(v.u)
	case vocab.KindArray:
		b.Count(len(v.kids))
		for _, e := range v.kids {
			e.val.WriteDigest(b)
		}
	case vocab.KindObject:
		b.Count(len(v.kids))
		for _, f := range v.kids {
			b.String(f.name.String())
			f.val.WriteDigest(b)
		}
	}
}
