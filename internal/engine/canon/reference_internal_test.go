package canon

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// referenceEncode and referenceAppendValue are the previous Encode and
// AppendValue, kept as the reference the two-pass sizer and writers are
// held to: one checked encoder that counts, then emits, refusing each
// segment that would cross MaxSize before appending it.
func referenceEncode(env Envelope) ([]byte, error) {
	if err := env.check(); err != nil {
		return nil, err
	}
	count := encoder{}
	count.envelope(&env)
	if _, err := count.result(); err != nil {
		return nil, err
	}
	w := encoder{buf: make([]byte, 0, count.n), emit: true}
	w.envelope(&env)
	return w.result()
}

func referenceAppendValue(dst []byte, v value.Value) ([]byte, error) {
	count := encoder{}
	count.value(v)
	if _, err := count.result(); err != nil {
		return nil, err
	}
	w := encoder{buf: slices.Grow(dst, count.n), emit: true}
	w.value(v)
	return w.result()
}

// encoder appends canonical segments to buf. It keeps a running total of
// the octets it has accepted and a sticky error: once a segment is rejected,
// every later call does nothing. With emit false it only counts.
type encoder struct {
	buf  []byte
	n    int // octets accepted so far; 0 <= n <= MaxSize
	emit bool
	err  error
}

// result returns the output, or nil and the error: a rejected request never
// yields partial bytes.
func (e *encoder) result() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.buf, nil
}

func (e *encoder) fail(code fault.Code, rule string) {
	if e.err == nil {
		e.err = fault.New(code, rule)
	}
}

// reserve accepts k more octets, or rejects if they would take the total past
// MaxSize. It runs before every append, and it reports whether the caller
// should append now.
func (e *encoder) reserve(k int) bool {
	if e.err != nil {
		return false
	}
	// Subtract rather than add: n <= MaxSize, so MaxSize-n cannot wrap.
	if k > MaxSize-e.n {
		e.fail(fault.LimitExceeded, "a canonical request is at most 65536 octets")
		return false
	}
	e.n += k
	return e.emit
}

func (e *encoder) byte1(b byte) {
	if e.reserve(1) {
		e.buf = append(e.buf, b)
	}
}

func (e *encoder) uint16(v uint16) {
	if e.reserve(2) {
		e.buf = binary.BigEndian.AppendUint16(e.buf, v)
	}
}

func (e *encoder) uint32(v uint32) {
	if e.reserve(4) {
		e.buf = binary.BigEndian.AppendUint32(e.buf, v)
	}
}

func (e *encoder) uint64(v uint64) {
	if e.reserve(8) {
		e.buf = binary.BigEndian.AppendUint64(e.buf, v)
	}
}

func (e *encoder) raw(s string) {
	if e.reserve(len(s)) {
		e.buf = append(e.buf, s...)
	}
}

// len16 and len32 write a length or count prefix. They reject lengths that do
// not fit the prefix rather than truncate them. Package value's limits keep
// every real length far below these bounds.
func (e *encoder) len16(n int) {
	if uint64(n) > math.MaxUint16 {
		e.fail(fault.LimitExceeded, "length or count does not fit its 16-bit prefix")
		return
	}
	e.uint16(uint16(n))
}

func (e *encoder) len32(n int) {
	if uint64(n) > math.MaxUint32 {
		e.fail(fault.LimitExceeded, "length or count does not fit its 32-bit prefix")
		return
	}
	e.uint32(uint32(n))
}

// short writes U16(n) ASCII(n): identities and field names.
func (e *encoder) short(s string) {
	e.len16(len(s))
	e.raw(s)
}

// str writes U32(n) ASCII(n): string, enumeration and Resource payloads.
func (e *encoder) str(s string) {
	e.len32(len(s))
	e.raw(s)
}

func (e *encoder) envelope(env *Envelope) {
	e.raw(Marker)
	e.uint16(version1)
	e.byte1(tagSnapshotID)
	e.short(env.SnapshotID.String())
	e.byte1(tagSnapshotGeneration)
	e.uint64(env.SnapshotGeneration.Uint64())
	e.byte1(tagToolID)
	e.short(env.ToolID.String())
	e.byte1(tagToolVersion)
	e.uint64(env.ToolVersion.Uint64())
	e.byte1(tagDefinitionID)
	e.short(env.DefinitionID.String())
	e.byte1(tagSchemaID)
	e.short(env.SchemaID.String())
	e.byte1(tagSchemaVersion)
	e.uint16(uint16(env.SchemaVersion))
	e.byte1(tagRoot)
	e.value(env.Root)
}

// value writes one value, recursing into arrays and objects. It stops at
// the first rejection. Each nesting level adds at least three octets before
// descending, so the bound also limits recursion depth to about MaxSize/3.
func (e *encoder) value(v value.Value) {
	if e.err != nil {
		return
	}
	//exhaustive:enforce
	switch v.Kind() {
	case vocab.KindString:
		e.byte1(tagString)
		e.str(v.Text())
	case vocab.KindBool:
		if v.Bool() {
			e.byte1(tagTrue)
		} else {
			e.byte1(tagFalse)
		}
	case vocab.KindSignedInteger:
		e.byte1(tagSigned)
		e.uint64(uint64(v.Int()))
	case vocab.KindUnsignedInteger:
		e.byte1(tagUnsigned)
		e.uint64(v.Uint())
	case vocab.KindEnumeration:
		e.byte1(tagEnumeration)
		e.str(v.Text())
	case vocab.KindResourceID:
		e.byte1(tagResource)
		e.str(v.Text())
	case vocab.KindArray:
		e.byte1(tagArray)
		e.len32(v.Len())
		for i := 0; i < v.Len() && e.err == nil; i++ {
			e.value(v.Elem(i))
		}
	case vocab.KindObject:
		// Package value keeps fields in strictly ascending name order, which
		// is the Schema order of Section 50.
		e.byte1(tagObject)
		e.len16(v.Len())
		for i := 0; i < v.Len() && e.err == nil; i++ {
			f := v.Field(i)
			e.short(f.Name().String())
			e.value(f.Value())
		}
	default:
		// The zero Value is the only value without a v1 kind. It plays
		// the role of null, which has no tag.
		e.fail(fault.Missing, "every value needs a v1 kind; null has no encoding")
	}
}

// errText is an error's message, or "" for nil: the reference and the
// sizer must agree on the code and the rule, not only on failing.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSizerMatchesReference starts the sizer and the reference encoder at
// the same running total and checks that they meet the same first
// rejection, or count the same octets. The cases put a rejection other than
// the bound (a prefix overflow, a value without a kind) just before, at and
// after the point where the bound is crossed.
func TestSizerMatchesReference(t *testing.T) {
	t.Parallel()
	name := func(s string) ident.Name {
		n, err := ident.ParseName(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	str := func(s string) value.Value {
		v, err := value.String(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	objectA, err := value.Object([]value.Field{
		value.NewField(name("a"), value.Bool(true)),
		value.NewField(name("b"), str("xyz")),
		value.NewField(name("c"), value.Unsigned(7)),
	})
	if err != nil {
		t.Fatal(err)
	}
	arr, err := value.Array([]value.Value{objectA, value.Signed(-1), str("")})
	if err != nil {
		t.Fatal(err)
	}
	type op struct {
		ref   func(*encoder)
		sizer func(*sizer)
	}
	ops := map[string]op{
		"len16 overflow":  {func(e *encoder) { e.len16(math.MaxUint16 + 1) }, func(s *sizer) { s.len16(math.MaxUint16 + 1) }},
		"len32 overflow":  {func(e *encoder) { e.len32(-1) }, func(s *sizer) { s.len32(-1) }},
		"short":           {func(e *encoder) { e.short("abcd") }, func(s *sizer) { s.short("abcd") }},
		"str":             {func(e *encoder) { e.str("abcd") }, func(s *sizer) { s.str("abcd") }},
		"object":          {func(e *encoder) { e.value(objectA) }, func(s *sizer) { s.value(objectA) }},
		"array":           {func(e *encoder) { e.value(arr) }, func(s *sizer) { s.value(arr) }},
		"zero value":      {func(e *encoder) { e.value(value.Value{}) }, func(s *sizer) { s.value(value.Value{}) }},
		"bool":            {func(e *encoder) { e.value(value.Bool(false)) }, func(s *sizer) { s.value(value.Bool(false)) }},
		"envelope, empty": {func(e *encoder) { e.envelope(&Envelope{Root: arr}) }, func(s *sizer) { s.envelope(&Envelope{Root: arr}) }},
	}
	seqs := [][]string{
		{"len16 overflow"}, {"len32 overflow"}, {"zero value"}, {"object"}, {"array"}, {"envelope, empty"},
		{"str", "len16 overflow"}, {"object", "zero value"}, {"array", "len32 overflow", "object"},
		{"bool", "zero value", "short"}, {"short", "str", "object", "array", "zero value"},
	}
	for _, seq := range seqs {
		for back := range 80 {
			start := MaxSize - back
			e := encoder{n: start}
			s := sizer{n: start}
			for _, name := range seq {
				ops[name].ref(&e)
				ops[name].sizer(&s)
			}
			s.stopped()
			if got, want := errText(s.err), errText(e.err); got != want {
				t.Errorf("%v from %d: sizer error %q, reference %q", seq, start, got, want)
			}
			if e.err == nil && s.n != e.n {
				t.Errorf("%v from %d: sizer counted to %d, reference %d", seq, start, s.n, e.n)
			}
		}
	}
}

// TestEncodeMatchesReference compares Encode and AppendValue with the
// reference on requests on either side of the bound, including oversize
// identities that overflow their prefix.
func TestEncodeMatchesReference(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("a", n) }
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	var base Envelope
	var err error
	base.SnapshotID, err = ident.ParseSnapshotID(long(ident.MaxTokenLen))
	must(err)
	base.SnapshotGeneration, err = ident.ParseGeneration("7")
	must(err)
	base.ToolID, err = ident.ParseToolID("payments.submit")
	must(err)
	base.ToolVersion, err = ident.ParseGeneration("12")
	must(err)
	base.DefinitionID, err = ident.ParseDefinitionID("def-1")
	must(err)
	base.SchemaID, err = ident.ParseSchemaID("schema-1")
	must(err)
	base.SchemaVersion = vocab.V1
	f := func(i int) value.Field {
		n, err := ident.ParseName(fmt.Sprintf("f%02d", i))
		must(err)
		// 1,010 to 1,024 octets: the bound falls inside the last field
		// for one count and just past it for the next.
		v, err := value.String(long(1010 + i%15))
		must(err)
		return value.NewField(n, v)
	}
	for k := range value.MaxFields + 1 {
		fs := make([]value.Field, k)
		for i := range fs {
			fs[i] = f(i)
		}
		root, err := value.Object(fs)
		must(err)
		env := base
		env.Root = root
		got, gotErr := Encode(env)
		want, wantErr := referenceEncode(env)
		if !bytes.Equal(got, want) || errText(gotErr) != errText(wantErr) {
			t.Errorf("%d fields: Encode = %d octets, %v; reference %d octets, %v", k, len(got), gotErr, len(want), wantErr)
		}
		got, gotErr = AppendValue([]byte("pre"), root)
		want, wantErr = referenceAppendValue([]byte("pre"), root)
		if !bytes.Equal(got, want) || errText(gotErr) != errText(wantErr) {
			t.Errorf("%d fields: AppendValue = %d octets, %v; reference %d octets, %v", k, len(got), gotErr, len(want), wantErr)
		}
	}
	got, gotErr := AppendValue(nil, value.Value{})
	want, wantErr := referenceAppendValue(nil, value.Value{})
	if got != nil || want != nil || errText(gotErr) != errText(wantErr) {
		t.Errorf("AppendValue(zero) = %v, %v; reference %v, %v", got, gotErr, want, wantErr)
	}
}
