// Package digest computes SHA-256 content digests of controlled values over
// a deterministic, injective encoding, so that complete-content equality
// (spec Sections 7.11, 11, 22, 28) is a cheap comparison and later layers can
// name exact content.
//
// Encoding: the builder first writes a domain label naming the value's type
// and encoding version, then one self-delimiting item per call. Every item is
// a one-octet type tag followed by fixed-width or length-prefixed content, and
// variable-length collections are written with an explicit Count first, so
// two different call sequences never produce the same octets. The encoding is
// an in-process commitment, not a portable artifact format.
package digest

import (
	"crypto/subtle"
	"encoding/binary"
)

// Size is the length of a Digest in octets.
const Size = 32

// Digest is a SHA-256 content digest.
type Digest [Size]byte

// String returns "sha256:" followed by lowercase hex.
func (d Digest) String() string {
	const hexDigits = "0123456789abcdef"
	out := make([]byte, 0, len("sha256:")+2*Size)
	out = append(out, "sha256:"...)
	for _, b := range d {
		out = append(out, hexDigits[b>>4], hexDigits[b&0x0f])
	}
	return string(out)
}

// IsZero reports whether d is the zero value (no content was digested).
func (d Digest) IsZero() bool { return d == Digest{} }

// Equal compares two digests in constant time.
func (d Digest) Equal(e Digest) bool { return subtle.ConstantTimeCompare(d[:], e[:]) == 1 }

const (
	tagString byte = 1 + iota
	tagUint
	tagDigest
	tagCount
	tagBool
	tagAbsent
)

// Builder accumulates the encoding of one value. The zero Builder is not
// usable; call New.
type Builder struct {
	h   sha256
	buf [9]byte
}

// New starts a digest in the domain named by label, for example
// "toolgate.schema/1".
func New(label string) *Builder {
	b := &Builder{h: newSHA256()}
	b.String(label)
	return b
}

// String writes a length-prefixed string.
func (b *Builder) String(s string) {
	b.buf[0] = tagString
	binary.BigEndian.PutUint64(b.buf[1:], uint64(len(s)))
	b.h.write(b.buf[:])
	b.h.writeString(s)
}

// Uint writes an unsigned 64-bit integer.
func (b *Builder) Uint(v uint64) {
	b.buf[0] = tagUint
	binary.BigEndian.PutUint64(b.buf[1:], v)
	b.h.write(b.buf[:])
}

// Int writes a signed 64-bit integer as its two's-complement bits.
func (b *Builder) Int(v int64) { b.Uint(uint64(v)) }

// Bool writes a Boolean.
func (b *Builder) Bool(v bool) {
	b.buf[0], b.buf[1] = tagBool, 0
	if v {
		b.buf[1] = 1
	}
	b.h.write(b.buf[:2])
}

// Digest writes a nested digest.
func (b *Builder) Digest(d Digest) {
	b.h.write([]byte{tagDigest})
	b.h.write(d[:])
}

// Count writes the member count of the collection that follows.
func (b *Builder) Count(n int) {
	b.buf[0] = tagCount
	binary.BigEndian.PutUint64(b.buf[1:], uint64(n))
	b.h.write(b.buf[:])
}

// Strings writes a collection of textual values: its count, then each
// value's String form, in the given (deterministic) order.
func Strings[T interface{ String() string }](b *Builder, xs []T) {
	b.Count(len(xs))
	for _, x := range xs {
		b.String(x.String())
	}
}

// Absent writes the marker of an absent optional value.
func (b *Builder) Absent() { b.h.write([]byte{tagAbsent}) }

// Sum returns the digest of everything written.
func (b *Builder) Sum() Digest {
	return Digest(b.h.sum())
}
