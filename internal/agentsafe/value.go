package agentsafe

import (
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Reference limits of agent-safe.intent/1 (CanonicalIntentHasher defaults).
const (
	// MaxDepth is the deepest nesting level a value may sit at; the top-level
	// value is at depth 0, so 21 nested containers are rejected and so is a
	// scalar inside 21 containers.
	MaxDepth = 20
	// MaxEntries bounds array elements plus object members over the whole
	// document; the top-level value itself is not an entry.
	MaxEntries = 5000
	// MaxArrayLength bounds the element count of each array.
	MaxArrayLength = 1000
	// MaxCanonicalBytes bounds the UTF-8 length of the canonical JSON
	// (the reference's 100 * 1024).
	MaxCanonicalBytes = 100 * 1024
)

type kind uint8

const (
	kindInvalid kind = iota // zero Value: rejected by Canonical
	kindNull
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// Value is an immutable JSON value in the JavaScript data model: numbers are
// IEEE doubles and strings are UTF-16 code-unit sequences, so lone
// surrogates survive. Build one with Null, Bool, Number, String,
// StringUTF16, Array and Object, or with Parse. The zero Value is not a JSON
// value and Canonical rejects it with CodeUnsupportedValue.
//
// Values are trees, never graphs with cycles: constructors copy their
// arguments and no exported operation mutates a Value.
type Value struct {
	kind    kind
	badUTF8 bool // a String (or, for objects, a Member key) was invalid UTF-8
	b       bool
	num     float64
	str     []uint16
	arr     []Value
	obj     []member // always sorted by key (stable), see sortMembers
}

// member is an object member. key is in UTF-16 code units; off is the byte
// offset of the key in Parse input (-1 for programmatic members).
type member struct {
	key []uint16
	val Value
	off int
	bad bool // key came from invalid UTF-8
}

// Member is one name/value pair for Object. Key is UTF-8 text.
type Member struct {
	Key   string
	Value Value
}

// Member returns the value of the member named key (UTF-8 text) of the
// object v, and whether v is an object that has one. Parse rejects
// duplicate names, so there is at most one.
func (v Value) Member(key string) (Value, bool) {
	if v.kind != kindObject {
		return Value{}, false
	}
	k, ok := utf8ToUTF16(key)
	if !ok {
		return Value{}, false
	}
	i, found := slices.BinarySearchFunc(v.obj, k, func(m member, k []uint16) int { return slices.Compare(m.key, k) })
	if !found {
		return Value{}, false
	}
	return v.obj[i].val, true
}

// Text returns the UTF-8 text of the string v, and whether v is a string
// that has one (a lone surrogate or invalid UTF-8 has none).
func (v Value) Text() (string, bool) {
	if v.kind != kindString || v.badUTF8 {
		return "", false
	}
	for i := 0; i < len(v.str); i++ {
		switch c := v.str[i]; {
		case utf16.IsSurrogate(rune(c)):
			if c >= 0xdc00 || i+1 >= len(v.str) || v.str[i+1] < 0xdc00 || v.str[i+1] > 0xdfff {
				return "", false
			}
			i++
		}
	}
	return string(utf16.Decode(v.str)), true
}

// Null returns JSON null.
func Null() Value { return Value{kind: kindNull} }

// Bool returns JSON true or false.
func Bool(b bool) Value { return Value{kind: kindBool, b: b} }

// Number returns a JSON number. NaN and ±Inf are accepted here but rejected
// by Canonical with CodeNonFiniteNumber, as the reference does; -0 prints 0.
func Number(f float64) Value { return Value{kind: kindNumber, num: f} }

// String returns a JSON string from UTF-8 text. Invalid UTF-8 is not
// repaired: Canonical rejects the value with CodeInvalidUTF8 (fail closed,
// where a JS runtime would substitute U+FFFD).
func String(s string) Value {
	u, ok := utf8ToUTF16(s)
	return Value{kind: kindString, str: u, badUTF8: !ok}
}

// StringUTF16 returns a JSON string from UTF-16 code units, which may
// include lone surrogates (they print as \udXXX escapes, as in JS).
func StringUTF16(units []uint16) Value {
	return Value{kind: kindString, str: slices.Clone(units)}
}

// Array returns a JSON array of elems in order. The slice is copied.
func Array(elems ...Value) Value {
	return Value{kind: kindArray, arr: slices.Clone(elems)}
}

// Object returns a JSON object. Member order does not matter (the canonical
// form sorts keys). Duplicate keys, forbidden keys and invalid UTF-8 keys
// are reported by Canonical.
func Object(members ...Member) Value {
	ms := make([]member, len(members))
	for i, m := range members {
		u, ok := utf8ToUTF16(m.Key)
		ms[i] = member{key: u, val: m.Value, off: -1, bad: !ok}
	}
	sortMembers(ms)
	return Value{kind: kindObject, obj: ms}
}

// sortMembers orders members by UTF-16 code units, which is what the
// reference's Object.keys(v).sort() does; stable so duplicates stay in
// input order and are adjacent.
func sortMembers(ms []member) {
	slices.SortStableFunc(ms, func(a, b member) int { return slices.Compare(a.key, b.key) })
}

// utf8ToUTF16 converts UTF-8 text to code units; ok is false if s is not
// valid UTF-8 (the invalid bytes are then dropped, the value is unusable).
func utf8ToUTF16(s string) (u []uint16, ok bool) {
	ok = true
	u = make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			u = append(u, uint16(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			ok = false
			i++
			continue
		}
		u = utf16.AppendRune(u, r)
		i += n
	}
	return u, ok
}
