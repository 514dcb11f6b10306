package agentsafe

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"unicode/utf16"

	"github.com/toolgate/toolgate/internal/jsonlex"
)

// Canonical returns the agent-safe.intent/1 canonical JSON of v: the bytes
// of JSON.stringify applied to v rebuilt with keys in UTF-16 code-unit
// order, encoded as UTF-8.
//
// Like the reference's capture, it first checks the whole tree (depth,
// entries, array lengths, forbidden keys, non-finite numbers; plus, because
// a Go Value can express them, duplicate keys, invalid UTF-8 and the zero
// Value) and only then serializes and enforces MaxCanonicalBytes.
func Canonical(v Value) ([]byte, error) {
	entries := 0
	if err := validate(v, 0, &entries); err != nil {
		return nil, err
	}
	w := writer{buf: make([]byte, 0, 512)}
	w.value(v)
	if w.over {
		return nil, errNoOffset(CodeTooLarge)
	}
	return w.buf, nil
}

// Digest returns "sha256:" followed by the lowercase hex SHA-256 of
// canonical.
func Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CanonicalDigest parses one JSON document and returns its canonical JSON
// and digest. Every failure is an *Error.
func CanonicalDigest(doc []byte) (canonical []byte, digest string, err error) {
	v, err := Parse(doc)
	if err != nil {
		return nil, "", err
	}
	canonical, err = Canonical(v)
	if err != nil {
		return nil, "", err
	}
	return canonical, Digest(canonical), nil
}

// validate mirrors the reference's assertBounded: every value, scalars
// included, is checked against MaxDepth; every array element and object
// member is one entry, charged before its child is examined.
func validate(v Value, depth int, entries *int) error {
	if depth > MaxDepth {
		return errNoOffset(CodeTooDeep)
	}
	switch v.kind {
	case kindInvalid:
		return errNoOffset(CodeUnsupportedValue)
	case kindNumber:
		if math.IsInf(v.num, 0) || math.IsNaN(v.num) {
			return errNoOffset(CodeNonFiniteNumber)
		}
	case kindString:
		if v.badUTF8 {
			return errNoOffset(CodeInvalidUTF8)
		}
	case kindArray:
		if len(v.arr) > MaxArrayLength {
			return errNoOffset(CodeArrayTooLong)
		}
		for _, e := range v.arr {
			if *entries++; *entries > MaxEntries {
				return errNoOffset(CodeTooManyEntries)
			}
			if err := validate(e, depth+1, entries); err != nil {
				return err
			}
		}
	case kindObject:
		for i, m := range v.obj {
			if m.bad {
				return errNoOffset(CodeInvalidUTF8)
			}
			if isForbiddenKey(m.key) {
				return errNoOffset(CodeForbiddenKey)
			}
			// Members are sorted, so duplicates are neighbours.
			if i > 0 && slices.Equal(v.obj[i-1].key, m.key) {
				return errNoOffset(CodeDuplicateKey)
			}
			if *entries++; *entries > MaxEntries {
				return errNoOffset(CodeTooManyEntries)
			}
			if err := validate(m.val, depth+1, entries); err != nil {
				return err
			}
		}
	}
	return nil
}

// writer appends canonical JSON and stops once the size limit is passed,
// so even a huge programmatic string costs little more than the limit in
// memory.
type writer struct {
	buf  []byte
	over bool
}

func (w *writer) check() bool {
	if len(w.buf) > MaxCanonicalBytes {
		w.over = true
	}
	return !w.over
}

func (w *writer) value(v Value) {
	if !w.check() {
		return
	}
	switch v.kind {
	case kindNull:
		w.buf = append(w.buf, "null"...)
	case kindBool:
		if v.b {
			w.buf = append(w.buf, "true"...)
		} else {
			w.buf = append(w.buf, "false"...)
		}
	case kindNumber:
		w.buf = appendJSNumber(w.buf, v.num)
	case kindString:
		w.str(v.str)
	case kindArray:
		w.buf = append(w.buf, '[')
		for i, e := range v.arr {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.value(e)
		}
		w.buf = append(w.buf, ']')
	case kindObject:
		w.object(v.obj)
	}
	w.check()
}

// object emits members in JavaScript property order: array-index keys
// first in ascending numeric order, then the rest in insertion order,
// which after the reference's rebuild is UTF-16 sorted order.
func (w *writer) object(ms []member) {
	w.buf = append(w.buf, '{')
	first := true
	emit := func(m *member) {
		if !first {
			w.buf = append(w.buf, ',')
		}
		first = false
		w.str(m.key)
		w.buf = append(w.buf, ':')
		w.value(m.val)
	}
	type indexed struct {
		n uint32
		m *member
	}
	var idx []indexed
	for i := range ms {
		if n, ok := arrayIndex(ms[i].key); ok {
			idx = append(idx, indexed{n, &ms[i]})
		}
	}
	if len(idx) > 0 {
		slices.SortFunc(idx, func(a, b indexed) int { return cmp.Compare(a.n, b.n) })
		for _, x := range idx {
			emit(x.m)
		}
	}
	for i := range ms {
		if len(idx) > 0 {
			if _, ok := arrayIndex(ms[i].key); ok {
				continue
			}
		}
		emit(&ms[i])
	}
	w.buf = append(w.buf, '}')
}

// arrayIndex reports whether k is an ECMAScript array index: the canonical
// decimal string of an integer in [0, 2^32-2] ("0", "7", "10"; not "01",
// "-1", "4294967295").
func arrayIndex(k []uint16) (uint32, bool) {
	if len(k) == 0 || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	var n uint64
	for _, c := range k {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxUint32-1 {
		return 0, false
	}
	return uint32(n), true
}

// str writes a string the way ES2019+ JSON.stringify (QuoteJSONString)
// does, which is jsonlex's Minimal quoting per code point: short escapes
// for \b \t \n \f \r " \\, \u00xx for other controls, \udxxx for lone
// surrogates, everything else (including <, >, &, U+2028, U+2029 and
// non-ASCII) verbatim as UTF-8.
func (w *writer) str(u []uint16) {
	// Every code unit prints as at least one byte: skip hopeless strings
	// instead of buffering them.
	if len(w.buf)+len(u)+2 > MaxCanonicalBytes {
		w.over = true
		return
	}
	b := append(w.buf, '"')
	for i := 0; i < len(u); i++ {
		r := rune(u[i])
		if utf16.IsSurrogate(r) && r < 0xdc00 && i+1 < len(u) && u[i+1] >= 0xdc00 && u[i+1] <= 0xdfff {
			r = utf16.DecodeRune(r, rune(u[i+1]))
			i++
		}
		b = jsonlex.AppendRune(b, r, jsonlex.Minimal)
	}
	w.buf = append(b, '"')
}
