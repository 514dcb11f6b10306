package digest

import (
	stdsha256 "crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// FIPS 180-4 / NIST CAVP example messages with their published digests.
func TestSHA256KnownAnswers(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ in, want string }{
		"empty message": {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		"abc":           {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		"448-bit two-block message": {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
			"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
		"one million a": {strings.Repeat("a", 1_000_000),
			"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newSHA256()
			h.writeString(tc.in)
			sum := h.sum()
			if got := hex.EncodeToString(sum[:]); got != tc.want {
				t.Fatalf("sha256 = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestSHA256MatchesStandardLibrary compares every message length across the
// padding boundaries (55, 56, 63, 64, 119, 120 …) written in several splits.
func TestSHA256MatchesStandardLibrary(t *testing.T) {
	t.Parallel()
	msg := make([]byte, 300)
	for i := range msg {
		msg[i] = byte(i*131 + 7)
	}
	for n := 0; n <= len(msg); n++ {
		want := stdsha256.Sum256(msg[:n])
		for _, split := range []int{1, 3, 63, 64, 65, n + 1} {
			h := newSHA256()
			for p := msg[:n]; len(p) > 0; {
				k := min(split, len(p))
				h.write(p[:k])
				p = p[k:]
			}
			if got := h.sum(); got != want {
				t.Fatalf("length %d in chunks of %d: %x, want %x", n, split, got, want)
			}
		}
	}
}

func TestSumDoesNotConsumeTheState(t *testing.T) {
	t.Parallel()
	h := newSHA256()
	h.writeString("part one")
	first := h.sum()
	if h.sum() != first {
		t.Fatal("sum must not change the running state")
	}
	h.writeString(" and two")
	if h.sum() != stdsha256.Sum256([]byte("part one and two")) {
		t.Fatal("writing after sum must continue the same message")
	}
}

func TestDigestStringIsLowercaseHex(t *testing.T) {
	t.Parallel()
	var d Digest
	for i := range d {
		d[i] = byte(i * 37)
	}
	if got, want := d.String(), "sha256:"+hex.EncodeToString(d[:]); got != want {
		t.Fatalf("String() = %s, want %s", got, want)
	}
}

func FuzzSHA256(f *testing.F) {
	f.Add([]byte(""), 1)
	f.Add([]byte("abc"), 2)
	f.Add([]byte(strings.Repeat("x", 130)), 64)
	f.Fuzz(func(t *testing.T, msg []byte, split int) {
		if split <= 0 {
			split = 1
		}
		h := newSHA256()
		for p := msg; len(p) > 0; {
			k := min(split, len(p))
			h.write(p[:k])
			p = p[k:]
		}
		if got, want := h.sum(), stdsha256.Sum256(msg); got != want {
			t.Fatalf("%x, want %x", got, want)
		}
	})
}
