package canon

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// MaxSize is the inclusive bound, in octets, on a complete canonical request
// (Section 47).
const MaxSize = 65536

// Marker is the seven-octet marker that opens every request: ASCII "STKCRQ"
// followed by 00.
const Marker = "STKCRQ\x00"

// version1 is the canonicalization version, written as u16 00 01. It is not
// a parameter: version 1 is the only one, and it is frozen.
const version1 uint16 = 1

// Envelope row tags (Section 47), in their mandatory order.
const (
	tagSnapshotID byte = 0x01 + iota
	tagSnapshotGeneration
	tagToolID
	tagToolVersion
	tagDefinitionID
	tagSchemaID
	tagSchemaVersion
	tagRoot
)

// Value tags (Section 47). No other v1 tag exists, and none is reserved.
const (
	tagString byte = 0x10 + iota
	tagFalse
	tagTrue
	tagSigned
	tagUnsigned
	tagEnumeration
	tagArray
	tagObject
	tagResource
)

// Envelope holds the rows of one canonical request, in encoding order. The
// canonicalization version is not a field because it is always v1.
type Envelope struct {
	SnapshotID         ident.SnapshotID
	SnapshotGeneration ident.Generation
	ToolID             ident.ToolID
	ToolVersion        ident.Generation
	DefinitionID       ident.DefinitionID
	SchemaID           ident.SchemaID
	SchemaVersion      vocab.Version
	// Root is the validated argument value; Schema v1 requires an object.
	Root value.Value
}

// check rejects envelopes that have no v1 encoding, in row order. Rejections
// are reported before any counting, so a missing row is never reported as
// an oversized request.
func (env *Envelope) check() error {
	switch {
	case env.SnapshotID.IsZero():
		return fault.At("snapshotID", fault.Missing, "a canonical request binds the Registry Snapshot identity")
	case env.SnapshotGeneration.IsZero():
		return fault.At("snapshotGeneration", fault.Missing, "a canonical request binds the Registry Snapshot generation")
	case env.ToolID.IsZero():
		return fault.At("toolID", fault.Missing, "a canonical request binds the Tool Identifier")
	case env.ToolVersion.IsZero():
		return fault.At("toolVersion", fault.Missing, "a canonical request binds the Tool Version")
	case env.DefinitionID.IsZero():
		return fault.At("definitionID", fault.Missing, "a canonical request binds the Tool Definition identity")
	case env.SchemaID.IsZero():
		return fault.At("schemaID", fault.Missing, "a canonical request binds the Schema identity")
	case !env.SchemaVersion.IsValid():
		return fault.At("schemaVersion", fault.Unsupported, "schema version must be v1")
	case env.Root.IsZero():
		return fault.At("root", fault.Missing, "a canonical request binds a root value; null has no encoding")
	case env.Root.Kind() != vocab.KindObject:
		return fault.At("root", fault.KindMismatch, "schema v1 requires an object root value")
	}
	return nil
}

// Encode returns the canonicalization-v1 bytes of env: at most MaxSize
// octets, always version 00 01. A zero identity or generation rejects with
// fault.Missing, a schema version other than v1 with fault.Unsupported, a
// non-object root with fault.KindMismatch, and a request longer than MaxSize
// with fault.LimitExceeded. On error the result is nil.
func Encode(env Envelope) ([]byte, error) {
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

// AppendValue appends the canonical encoding of one value fragment (the
// Section 51.1 vectors) to dst and returns the extended slice. The fragment
// alone is bounded by MaxSize, whatever len(dst) is. On error it returns nil,
// and dst is left untouched, including its spare capacity. AppendValue does
// not retain dst.
func AppendValue(dst []byte, v value.Value) ([]byte, error) {
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
