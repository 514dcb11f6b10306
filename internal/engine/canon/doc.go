// Package canon implements the canonicalization-v1 octet format of the
// protocol (spec Sections 11, 47 and 51): the deterministic bytes a
// Canonical Request binds.
//
// Version 1 is frozen. Every multi-octet integer is unsigned and in network
// byte order (most-significant octet first); u16, u32 and u64 are exactly 2,
// 4 and 8 octets. A complete request is:
//
//	request = marker version
//	          01 short(snapshot identity)    02 u64(snapshot generation)
//	          03 short(tool identifier)      04 u64(tool version)
//	          05 short(definition identity)  06 short(schema identity)
//	          07 u16(schema version = 1)     08 value
//	marker  = 53 54 4B 43 52 51 00            ; "STKCRQ" then NUL
//	version = 00 01                           ; canonicalization v1
//
//	value   = 10 str                          ; string
//	        | 11                              ; false (no payload octet)
//	        | 12                              ; true  (no payload octet)
//	        | 13 u64                          ; signed: two's-complement bits
//	        | 14 u64                          ; unsigned magnitude
//	        | 15 str                          ; enumeration case
//	        | 16 u32(n) value*n               ; array, input order
//	        | 17 u16(n) (short value)*n       ; object, field-name ASCII order
//	        | 18 str                          ; Resource identifier
//	short   = u16(len) octet*len              ; identities and field names
//	str     = u32(len) octet*len
//
// Every envelope row appears exactly once and in this order, and nothing
// follows the root value. Lengths and counts cover only the content after
// them. No other tag exists, and there is no null. The whole request,
// counting every marker, tag, prefix and payload octet, is at most [MaxSize]
// octets.
//
// Design notes.
//
// The package is encoder-only, like the frozen reference implementation. The
// spec defines no decoder, and a decoder would be a new component that
// accepts bytes. The tests use a strict decoder of their own to check output.
//
// The bound is checked before each segment is appended: the encoder keeps a
// running total and a sticky error, the way cryptobyte.Builder does. Encode
// and AppendValue run that encoder twice. The first pass only counts. If it
// rejects, no byte has been written anywhere, not even into spare capacity
// of dst. If it accepts, the second pass writes into a buffer of exactly the
// counted size, so Encode allocates once. The two passes cannot disagree:
// they run the same checks on the same immutable input.
//
// Content rules belong to package value, and the encoder relies on them:
// string alphabet and length, name grammar, element and field counts, and
// strictly ascending field names (the Schema order of Section 50). The
// encoder itself checks only what the octet grammar needs. Every value must
// have a v1 kind, every length and count must fit its prefix, and the total
// must stay within the bound.
//
// Equal bytes do not mean equal Canonical Requests. Proposal Assessment and
// the complete Tool Definition and Schema content are outside these bytes
// (Section 11). Callers compare that state separately.
package canon
