package digest

import (
	"encoding/binary"
	"math/bits"
)

// This file implements SHA-256 (FIPS 180-4) in plain Go. The standard
// library's crypto/sha256 pulls in the FIPS module, whose randomness source
// imports os; the engine must not depend on the environment even
// transitively, so it carries this small, allocation-free implementation.
// Tests compare it with crypto/sha256 on the FIPS 180-4 examples, on every
// length up to several blocks and under fuzzing.

const blockSize = 64

var k256 = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// sha256 is the running state of one SHA-256 computation.
type sha256 struct {
	h   [8]uint32
	buf [blockSize]byte
	nx  int    // octets buffered in buf
	len uint64 // total octets written
}

func newSHA256() sha256 {
	return sha256{h: [8]uint32{
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	}}
}

func (d *sha256) write(p []byte) {
	d.len += uint64(len(p))
	if d.nx > 0 {
		n := copy(d.buf[d.nx:], p)
		d.nx += n
		p = p[n:]
		if d.nx < blockSize {
			return
		}
		d.block(d.buf[:])
		d.nx = 0
	}
	for len(p) >= blockSize {
		d.block(p[:blockSize])
		p = p[blockSize:]
	}
	d.nx = copy(d.buf[:], p)
}

func (d *sha256) writeString(s string) {
	// Small, bounded copies keep the implementation allocation-free for
	// strings without an unsafe conversion.
	var chunk [blockSize]byte
	for len(s) > 0 {
		n := copy(chunk[:], s)
		d.write(chunk[:n])
		s = s[n:]
	}
}

// sum returns the digest of everything written; d is not modified.
func (d sha256) sum() [32]byte {
	n := d.len
	var pad [blockSize + 8]byte
	pad[0] = 0x80
	padLen := blockSize - int((n+8)%blockSize) // 1..64 octets of 0x80 00 ...
	binary.BigEndian.PutUint64(pad[padLen:], n<<3)
	d.write(pad[:padLen+8])
	var out [32]byte
	for i, v := range d.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

func (d *sha256) block(p []byte) {
	var w [64]uint32
	for i := 0; i < 16; i++ {
		w[i] = binary.BigEndian.Uint32(p[4*i:])
	}
	for i := 16; i < 64; i++ {
		v1 := w[i-2]
		t1 := bits.RotateLeft32(v1, -17) ^ bits.RotateLeft32(v1, -19) ^ (v1 >> 10)
		v2 := w[i-15]
		t2 := bits.RotateLeft32(v2, -7) ^ bits.RotateLeft32(v2, -18) ^ (v2 >> 3)
		w[i] = t1 + w[i-7] + t2 + w[i-16]
	}
	a, b, c, dd, e, f, g, h := d.h[0], d.h[1], d.h[2], d.h[3], d.h[4], d.h[5], d.h[6], d.h[7]
	for i := 0; i < 64; i++ {
		t1 := h + (bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)) +
			((e & f) ^ (^e & g)) + k256[i] + w[i]
		t2 := (bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)) +
			((a & b) ^ (a & c) ^ (b & c))
		h, g, f, e, dd, c, b, a = g, f, e, dd+t1, c, b, a, t1+t2
	}
	d.h[0] += a
	d.h[1] += b
	d.h[2] += c
	d.h[3] += dd
	d.h[4] += e
	d.h[5] += f
	d.h[6] += g
	d.h[7] += h
}
