package authz

import (
	"slices"
	"testing"
)

// TestCopyInto checks seal's scope copy: every size from empty through
// past the inline room gives the members in order, owned by the result
// (never the input), inline exactly when they fit, and an empty scope is
// what the clone returns (nil stays nil, empty stays empty).
func TestCopyInto(t *testing.T) {
	t.Parallel()
	for n := range 12 {
		src := make([]int, n)
		for i := range src {
			src[i] = 10 * i
		}
		var buf [4]int
		got := copyInto(buf[:], n, func(i int) int { return src[i] }, func() []int { return slices.Clone(src) })
		if !slices.Equal(got, src) || len(got) != cap(got) {
			t.Fatalf("n=%d: copyInto = %v (cap %d), want %v", n, got, cap(got), src)
		}
		if inline := n > 0 && &got[0] == &buf[0]; inline != (n > 0 && n <= len(buf)) {
			t.Fatalf("n=%d: inline = %v", n, inline)
		}
		if n > 0 {
			got[0] = -1
			if src[0] == -1 {
				t.Fatalf("n=%d: the copy shares the input", n)
			}
		}
	}
	if got := copyInto(nil, 0, func(int) int { return 0 }, func() []int { return nil }); got != nil {
		t.Fatalf("empty nil scope = %#v, want nil", got)
	}
	if got := copyInto(nil, 0, func(int) int { return 0 }, func() []int { return []int{} }); got == nil || len(got) != 0 {
		t.Fatalf("empty scope = %#v, want empty non-nil", got)
	}
}
