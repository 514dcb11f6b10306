package jsonexact

import "strconv"

// Kind is the closed set of value kinds Decode produces. The zero Kind is
// invalid and only appears on the zero Value.
type Kind uint8

// Value kinds. Decode, the protocol's reader, produces the first five
// only: there is deliberately no null and no floating-point kind in what
// reaches the core. Null and Number are produced by DecodeAny alone, for the
// argument profile (internal/argprofile), which maps them before the core.
const (
	Object Kind = 1 + iota
	Array
	String
	Bool
	Integer
	Null   // DecodeAny only
	Number // DecodeAny only: a number that is not an in-range canonical integer
)

// String returns the lowercase kind name, or "Kind(N)" outside the closed set.
func (k Kind) String() string {
	switch k {
	case Object:
		return "object"
	case Array:
		return "array"
	case String:
		return "string"
	case Bool:
		return "bool"
	case Integer:
		return "integer"
	case Null:
		return "null"
	case Number:
		return "number"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one decoded JSON value. It is immutable: it can only be built by
// Decode, and accessors hand out copies. The zero Value has Kind 0.
type Value struct {
	kind Kind
	b    bool
	// s is the decoded text of a String or the exact literal of an Integer.
	s string
	// kids holds object members in occurrence order, or array elements with
	// empty names; one slice type keeps Value small.
	kids []Member
}

// Member is one object member: its decoded name and its value.
type Member struct {
	Name  string
	Value Value
}

// Kind reports the kind of v; 0 for the zero Value.
func (v Value) Kind() Kind { return v.kind }

// Text returns the decoded contents of a String value (valid UTF-8), or ""
// for any other kind.
func (v Value) Text() string {
	if v.kind != String {
		return ""
	}
	return v.s
}

// Bool returns the value of a Bool, or false for any other kind.
func (v Value) Bool() bool { return v.kind == Bool && v.b }

// Literal returns the exact integer literal of an Integer value as it
// appeared in the input (canonical: no sign on non-negatives, no leading
// zeros, never "-0"), the exact RFC 8259 number token of a Number value
// (DecodeAny), or "" for any other kind.
func (v Value) Literal() string {
	if v.kind != Integer && v.kind != Number {
		return ""
	}
	return v.s
}

// Int64 parses the literal of an Integer value exactly. A value outside
// the int64 range returns CodeOutOfRange; another kind returns CodeWrongKind.
func (v Value) Int64() (int64, error) {
	if v.kind != Integer {
		return 0, &Error{Code: CodeWrongKind, Offset: -1}
	}
	n, err := strconv.ParseInt(v.s, 10, 64)
	if err != nil {
		return 0, &Error{Code: CodeOutOfRange, Offset: -1}
	}
	return n, nil
}

// Uint64 parses the literal of an Integer value exactly. A negative value
// returns CodeOutOfRange (no two's-complement reinterpretation); another
// kind returns CodeWrongKind.
func (v Value) Uint64() (uint64, error) {
	if v.kind != Integer {
		return 0, &Error{Code: CodeWrongKind, Offset: -1}
	}
	if len(v.s) > 0 && v.s[0] == '-' {
		return 0, &Error{Code: CodeOutOfRange, Offset: -1}
	}
	n, err := strconv.ParseUint(v.s, 10, 64)
	if err != nil {
		return 0, &Error{Code: CodeOutOfRange, Offset: -1}
	}
	return n, nil
}

// Members returns a copy of the members of an Object in input occurrence
// order (names are unique), or nil for any other kind.
func (v Value) Members() []Member {
	if v.kind != Object {
		return nil
	}
	out := make([]Member, len(v.kids))
	copy(out, v.kids)
	return out
}

// Elems returns a copy of the elements of an Array in order, or nil for any
// other kind.
func (v Value) Elems() []Value {
	if v.kind != Array {
		return nil
	}
	out := make([]Value, len(v.kids))
	for i := range v.kids {
		out[i] = v.kids[i].Value
	}
	return out
}

// MemberAt returns member i of an Object, 0 ≤ i < Len, without copying the
// others; it panics for any other kind or index, as a slice index does.
func (v Value) MemberAt(i int) Member {
	if v.kind != Object {
		panic("jsonexact: MemberAt of a non-object")
	}
	return v.kids[i]
}

// ElemAt returns element i of an Array, 0 ≤ i < Len, without copying the
// others; it panics for any other kind or index, as a slice index does.
func (v Value) ElemAt(i int) Value {
	if v.kind != Array {
		panic("jsonexact: ElemAt of a non-array")
	}
	return v.kids[i].Value
}

// Len returns the number of members of an Object or elements of an Array,
// and 0 for any other kind. It lets callers enforce count limits without
// copying.
func (v Value) Len() int {
	if v.kind != Object && v.kind != Array {
		return 0
	}
	return len(v.kids)
}

// shallowEqual compares kind, scalar payload and child count.
func shallowEqual(a, b Value) bool {
	return a.kind == b.kind && a.b == b.b && a.s == b.s && len(a.kids) == len(b.kids)
}

// Equal reports deep equality of a and b. Object member order is
// significant. Integers compare by literal, which is exact because Decode
// only keeps canonical literals. Equal is iterative, so arbitrarily deep
// values cannot overflow the stack.
func (a Value) Equal(b Value) bool {
	if !shallowEqual(a, b) {
		return false
	}
	type frame struct {
		a, b []Member
		i    int
	}
	stack := []frame{{a: a.kids, b: b.kids}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == len(top.a) {
			stack = stack[:len(stack)-1]
			continue
		}
		x, y := top.a[top.i], top.b[top.i]
		top.i++
		if x.Name != y.Name || !shallowEqual(x.Value, y.Value) {
			return false
		}
		if len(x.Value.kids) > 0 {
			stack = append(stack, frame{a: x.Value.kids, b: y.Value.kids})
		}
	}
	return true
}
