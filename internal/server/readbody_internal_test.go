package server

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
)

// allocated is the number of bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestARequestBodyPinsAtMostTheLimit bounds the bytes one request can hold
// while its body is read, and what it leaves behind (docs/limits.md,
// "Request body size"): a body announced over the limit is refused (413)
// before any of it is read; one of unannounced length over the limit costs
// a buffer of at most limit+1 octets; no buffer over 64 KiB stays pooled.
func TestARequestBodyPinsAtMostTheLimit(t *testing.T) {
	const limit = DefaultMaxBodyBytes
	const big = 10 << 20
	pool := &sync.Pool{New: func() any { return new([]byte) }}
	read := func(announced bool, size int) (int, int) {
		body := io.Reader(bytes.NewReader(bytes.Repeat([]byte{' '}, size)))
		if !announced {
			body = io.MultiReader(body) // no length net/http can see
		}
		r := httptest.NewRequest(http.MethodPost, "/v1/authorize", body)
		r.Header.Set("Content-Type", "application/json")
		if !announced {
			r.ContentLength = -1
		}
		got, status, _ := readBody(r, limit, pool)
		return status, len(got)
	}
	for _, tc := range []struct {
		name      string
		announced bool
		size      int
		status    int
		most      uint64 // bytes readBody may allocate, the body's own copy aside
	}{
		{"announced over the limit", true, big, http.StatusRequestEntityTooLarge, 64 << 10},
		// Doubling from 512 octets up to limit+1 allocates under three times that.
		{"unannounced over the limit", false, big, http.StatusRequestEntityTooLarge, 3 * (limit + 1)},
		{"announced at the limit", true, limit, 0, limit + 1 + 64<<10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var status, n int
			got := allocated(func() { status, n = read(tc.announced, tc.size) })
			// read makes the body itself (size octets) first.
			got -= uint64(tc.size)
			if status != tc.status {
				t.Fatalf("status %d, want %d", status, tc.status)
			}
			if tc.status == 0 && n != tc.size {
				t.Fatalf("read %d of %d octets", n, tc.size)
			}
			if tc.status == 0 {
				got -= uint64(tc.size) // the string the decoder shares
			}
			if got > tc.most {
				t.Errorf("reading the body allocated %d octets beyond the body; at most %d", got, tc.most)
			}
			for range 4 {
				if p := pool.Get().(*[]byte); cap(*p) > 64<<10 {
					t.Errorf("a pooled body buffer of %d octets stayed", cap(*p))
				}
			}
		})
	}
}
