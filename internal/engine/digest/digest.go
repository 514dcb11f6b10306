// Package digest computes SHA-256 content digests of controlled values over
// a deterministic, injective encoding, so that complete-content equality
// (spec Sections 7.11, 11, 22, 28) is a cheap comparison and later layers can
// name exact content.
//
// Encoding: the builder first writes a domain label naming the value's type
// and encoding version, then one self-delimiting item per call. Every item is
// a one-octet type tag followed by fixed-width, varint (Varint: an unsigned
// LEB128, which is prefix-free) or length-prefixed content, and
// variable-length collections are written with an explicit Count first, so
// two different call sequences never produce the same octets. The compact
// items (Varint, Text) exist for the encodings hashed on every request,
// whose size is what SHA-256 costs: a Uint or String head is 9 octets, a
// Varint or Text head of a small value 2. The encoding is an in-process
// commitment, not a portable artifact format; its octets are stable within
// a label's version, since digests of them are carried by artifacts.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"
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

// Equal compares two digests in constant time: the XOR of the four 64-bit
// words is ORed without any data-dependent branch or early exit. This is
// what subtle.ConstantTimeCompare computes for equal lengths, without its
// length check and byte loop (a pipeline run compares dozens of digests).
func (d Digest) Equal(e Digest) bool {
	var x uint64
	for i := 0; i < Size; i += 8 {
		x |= binary.LittleEndian.Uint64(d[i:]) ^ binary.LittleEndian.Uint64(e[i:])
	}
	return x == 0
}

const (
	tagString byte = 1 + iota
	tagUint
	tagDigest
	tagCount
	tagBool
	tagAbsent
	tagVarint
	tagText
)

// Builder accumulates the encoding of one value. The zero Builder is not
// usable; call New.
//
// The octets are collected in a buffer and hashed once, by Sum, with the
// standard library's one-shot sha256.Sum256 (docs/decisions.md, "Digests";
// the pooled-hasher alternative is measured in bench_test.go). Buffers are
// reused across Builders through a pool, so a digest allocates nothing in
// the steady state; the pool only holds memory and never affects a digest.
type Builder struct {
	buf  *[]byte
	sum  Digest
	done bool
}

// maxPooled is the largest buffer returned to the pool: a Canonical Request
// at its 65,536-octet canonical bound writes about twice that; anything
// larger is left to the garbage collector.
const maxPooled = 1 << 18

var buffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

// New starts a digest in the domain named by label, for example
// "toolgate.schema/1".
func New(label string) *Builder {
	return &Builder{buf: start(label)} // inlinable: a Builder that does not escape lives on the stack
}

// start takes a buffer from the pool and writes the domain label.
func start(label string) *[]byte {
	buf := buffers.Get().(*[]byte)
	*buf = appendString((*buf)[:0], label)
	return buf
}

func appendString(buf []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint64(append(buf, tagString), uint64(len(s))), s...)
}

// writeAfterSum fails loudly: a Builder is single-use.
func writeAfterSum() { panic("digest: write after Sum") }

// head appends a tag and a big-endian 64-bit value.
func (b *Builder) head(tag byte, v uint64) {
	if b.done {
		writeAfterSum()
	}
	*b.buf = binary.BigEndian.AppendUint64(append(*b.buf, tag), v)
}

// String writes a length-prefixed string.
func (b *Builder) String(s string) {
	b.head(tagString, uint64(len(s)))
	*b.buf = append(*b.buf, s...)
}

// Uint writes an unsigned 64-bit integer.
func (b *Builder) Uint(v uint64) { b.head(tagUint, v) }

// Varint writes an unsigned integer as its tag and the unsigned LEB128
// varint (encoding/binary.AppendUvarint): 2 octets below 128, at most 11.
// It is a distinct item from Uint, never interchangeable with it.
func (b *Builder) Varint(v uint64) {
	if b.done {
		writeAfterSum()
	}
	*b.buf = AppendVarint(*b.buf, v)
}

// Text writes a string prefixed by its length as a varint: 2 octets of
// head for a string shorter than 128 octets, where String writes 9. It is
// a distinct item from String.
func (b *Builder) Text(s string) {
	if b.done {
		writeAfterSum()
	}
	*b.buf = AppendText(*b.buf, s)
}

// The Append functions write the Builder's items into a caller's buffer,
// and Of hashes the result: the same encoding without a Builder, for a
// value hashed on every request whose encoding has a small bound (the
// Policy Decision), which its caller writes into an array on its own
// stack — no pool, no per-item state check. An encoding starts with
// AppendLabel, as New does.

// AppendLabel appends the domain label item New writes.
func AppendLabel(dst []byte, label string) []byte { return appendString(dst, label) }

// AppendVarint appends the item Builder.Varint writes.
func AppendVarint(dst []byte, v uint64) []byte {
	return binary.AppendUvarint(append(dst, tagVarint), v)
}

// AppendText appends the item Builder.Text writes.
func AppendText(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(append(dst, tagText), uint64(len(s))), s...)
}

// AppendDigest appends the item Builder.Digest writes.
func AppendDigest(dst []byte, d Digest) []byte { return append(append(dst, tagDigest), d[:]...) }

// AppendAbsent appends the item Builder.Absent writes.
func AppendAbsent(dst []byte) []byte { return append(dst, tagAbsent) }

// Of returns the digest of a complete encoding written with the Append
// functions (label first): what Sum returns for the same items.
func Of(octets []byte) Digest {
	sum := Digest(sha256.Sum256(octets))
	if onSum != nil {
		onSum(slices.Clone(octets)) // a copy, so that octets stays on its caller's stack
	}
	return sum
}

// Int writes a signed 64-bit integer as its two's-complement bits.
func (b *Builder) Int(v int64) { b.Uint(uint64(v)) }

// Bool writes a Boolean.
func (b *Builder) Bool(v bool) {
	if b.done {
		writeAfterSum()
	}
	var o byte
	if v {
		o = 1
	}
	*b.buf = append(*b.buf, tagBool, o)
}

// Digest writes a nested digest.
func (b *Builder) Digest(d Digest) {
	if b.done {
		writeAfterSum()
	}
	*b.buf = AppendDigest(*b.buf, d)
}

// Count writes the member count of the collection that follows.
func (b *Builder) Count(n int) { b.head(tagCount, uint64(n)) }

// Strings writes a collection of textual values: its count, then each
// value's String form, in the given (deterministic) order.
func Strings[T interface{ String() string }](b *Builder, xs []T) {
	b.Count(len(xs))
	for _, x := range xs {
		b.String(x.String())
	}
}

// Absent writes the marker of an absent optional value.
func (b *Builder) Absent() {
	if b.done {
		writeAfterSum()
	}
	*b.buf = AppendAbsent(*b.buf)
}

// Sum returns the digest of everything written and ends the Builder: a
// later Sum returns the same digest, a later write panics.
func (b *Builder) Sum() Digest {
	if b.done {
		return b.sum
	}
	b.sum = sha256.Sum256(*b.buf)
	if onSum != nil {
		onSum(*b.buf)
	}
	b.done = true
	if cap(*b.buf) <= maxPooled {
		buffers.Put(b.buf)
	}
	b.buf = nil
	return b.sum
}

// onSum, when set (by this package's tests only, export_test.go), observes
// the complete octets of every digest computed. It is nil in production.
var onSum func(octets []byte)
