package policy

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// TestReasonsInBitOrder holds appendReasons to the Section 48 order: every
// reason is below 32 (one bit each), the vocabulary lists them in
// increasing value, and every mask yields exactly its members in that order.
func TestReasonsInBitOrder(t *testing.T) {
	t.Parallel()
	for i, r := range allReasons {
		if r >= 32 || r == 0 || (i > 0 && allReasons[i-1] >= r) {
			t.Fatalf("reason %v (%d) at %d breaks the bit order", r, r, i)
		}
	}
	slow := func(m uint32) []vocab.Reason {
		var out []vocab.Reason
		for _, r := range allReasons {
			if m&bit(r) != 0 {
				out = append(out, r)
			}
		}
		return out
	}
	x := uint32(2463534242)
	for range 20000 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		for _, m := range []uint32{x, x & 0x0f0f, ^uint32(0), 0, 1} {
			if got, want := appendReasons(nil, m), slow(m); !slices.Equal(got, want) {
				t.Fatalf("mask %#x: %v, want %v", m, got, want)
			}
		}
	}
}
