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
	var s sizer
	s.envelope(&env)
	if s.stopped() {
		return nil, s.err
	}
	out := appendEnvelope(make([]byte, 0, s.n), &env)
	if len(out) != s.n {
		mismatch()
	}
	return out, nil
}

// AppendValue appends the canonical encoding of one value fragment (the
// Section 51.1 vectors) to dst and returns the extended slice. The fragment
// alone is bounded by MaxSize, whatever len(dst) is. On error it returns nil,
// and dst is left untouched, including its spare capacity. AppendValue does
// not retain dst.
func AppendValue(dst []byte, v value.Value) ([]byte, error) {
	var s sizer
	s.value(v)
	if s.stopped() {
		return nil, s.err
	}
	out := appendValue(slices.Grow(dst, s.n), v)
	if len(out)-len(dst) != s.n {
		mismatch()
	}
	return out, nil
}

// mismatch fails loudly: the writers below must produce exactly the octets
// the sizer counted, so a difference is a bug in this file, never input.
func mismatch() { panic("canon: encoding length differs from its counted size") }

// sizer is the first pass: it counts the octets of an encoding and finds
// the rejection the encoding meets first, building nothing. It does not
// check the bound segment by segment; instead, wherever another rejection
// could be reported, and before each value, it checks the total so far, so
// an oversize request is reported as such exactly when a checked
// segment-by-segment encoder would have crossed the bound before reaching
// that point (reference_internal_test.go holds it to one). Stopping before
// each value once past the bound keeps the work, and n, bounded.
type sizer struct {
	n   int // octets counted so far
	err error
}

// stopped records the bound's rejection if the octets counted so far exceed
// MaxSize, and reports whether counting has stopped on a rejection.
func (s *sizer) stopped() bool {
	if s.err == nil && s.n > MaxSize {
		s.err = fault.New(fault.LimitExceeded, "a canonical request is at most 65536 octets")
	}
	return s.err != nil
}

// fail records a rejection other than the bound, unless the bound was
// already crossed (or another rejection met) before this point.
func (s *sizer) fail(code fault.Code, rule string) {
	if !s.stopped() {
		s.err = fault.New(code, rule)
	}
}

// len16 and len32 count a length or count prefix. They reject lengths that
// do not fit the prefix rather than truncate them. Package value's limits
// keep every real length far below these bounds.
func (s *sizer) len16(n int) {
	if uint64(n) > math.MaxUint16 {
		s.fail(fault.LimitExceeded, "length or count does not fit its 16-bit prefix")
		return
	}
	s.n += 2
}

func (s *sizer) len32(n int) {
	if uint64(n) > math.MaxUint32 {
		s.fail(fault.LimitExceeded, "length or count does not fit its 32-bit prefix")
		return
	}
	s.n += 4
}

// short counts U16(n) ASCII(n): identities and field names.
func (s *sizer) short(t string) {
	s.len16(len(t))
	s.n += len(t)
}

// str counts U32(n) ASCII(n): string, enumeration and Resource payloads.
func (s *sizer) str(t string) {
	s.len32(len(t))
	s.n += len(t)
}

func (s *sizer) envelope(env *Envelope) {
	// In row order, so each check sees the total the encoding has there.
	s.n += len(Marker) + 2 + 1
	s.short(env.SnapshotID.String())
	s.n += 1 + 8 + 1
	s.short(env.ToolID.String())
	s.n += 1 + 8 + 1
	s.short(env.DefinitionID.String())
	s.n++
	s.short(env.SchemaID.String())
	s.n += 1 + 2 + 1
	s.value(env.Root)
}

// value counts one value, recursing into arrays and objects.
func (s *sizer) value(v value.Value) {
	if s.stopped() {
		return
	}
	//exhaustive:enforce
	switch v.Kind() {
	case vocab.KindString, vocab.KindEnumeration, vocab.KindResourceID:
		s.n++
		s.str(v.Text())
	case vocab.KindBool:
		s.n++
	case vocab.KindSignedInteger, vocab.KindUnsignedInteger:
		s.n += 9
	case vocab.KindArray:
		s.n++
		s.len32(v.Len())
		for i := 0; i < v.Len() && s.err == nil; i++ {
			s.value(v.Elem(i))
		}
	case vocab.KindObject:
		s.n++
		s.len16(v.Len())
		for i := 0; i < v.Len() && s.err == nil; i++ {
			f := v.Field(i)
			s.short(f.Name().String())
			s.value(f.Value())
		}
	default:
		// The zero Value is the only value without a v1 kind. It plays
		// the role of null, which has no tag.
		s.fail(fault.Missing, "every value needs a v1 kind; null has no encoding")
	}
}

// appendEnvelope and appendValue are the second pass. They run only after
// the sizer accepted the same content, so every length fits its prefix,
// every value has a kind and the total is within MaxSize: they append
// without checks.
func appendEnvelope(b []byte, env *Envelope) []byte {
	b = append(b, Marker...)
	b = binary.BigEndian.AppendUint16(b, version1)
	b = appendShort(append(b, tagSnapshotID), env.SnapshotID.String())
	b = binary.BigEndian.AppendUint64(append(b, tagSnapshotGeneration), env.SnapshotGeneration.Uint64())
	b = appendShort(append(b, tagToolID), env.ToolID.String())
	b = binary.BigEndian.AppendUint64(append(b, tagToolVersion), env.ToolVersion.Uint64())
	b = appendShort(append(b, tagDefinitionID), env.DefinitionID.String())
	b = appendShort(append(b, tagSchemaID), env.SchemaID.String())
	b = binary.BigEndian.AppendUint16(append(b, tagSchemaVersion), uint16(env.SchemaVersion))
	return appendValue(append(b, tagRoot), env.Root)
}

func appendShort(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

func appendStr(b []byte, tag byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(append(b, tag), uint32(len(s))), s...)
}

func appendValue(b []byte, v value.Value) []byte {
	//exhaustive:enforce
	switch v.Kind() {
	case vocab.KindString:
		b = appendStr(b, tagString, v.Text())
	case vocab.KindBool:
		if v.Bool() {
			b = append(b, tagTrue)
		} else {
			b = append(b, tagFalse)
		}
	case vocab.KindSignedInteger:
		b = binary.BigEndian.AppendUint64(append(b, tagSigned), uint64(v.Int()))
	case vocab.KindUnsignedInteger:
		b = binary.BigEndian.AppendUint64(append(b, tagUnsigned), v.Uint())
	case vocab.KindEnumeration:
		b = appendStr(b, tagEnumeration, v.Text())
	case vocab.KindResourceID:
		b = appendStr(b, tagResource, v.Text())
	case vocab.KindArray:
		b = binary.BigEndian.AppendUint32(append(b, tagArray), uint32(v.Len()))
		for i := range v.Len() {
			b = appendValue(b, v.Elem(i))
		}
	case vocab.KindObject:
		// Package value keeps fields in strictly ascending name order, which
		// is the Schema order of Section 50.
		b = binary.BigEndian.AppendUint16(append(b, tagObject), uint16(v.Len()))
		for i := range v.Len() {
			f := v.Field(i)
			b = appendValue(appendShort(b, f.Name().String()), f.Value())
		}
	default:
		mismatch() // the sizer rejected it
	}
	return b
}
