package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"strings"
	"sync"
	"testing"
)

// pooledHasher is the alternative to Builder measured by BenchmarkBuilder
// (docs/decisions.md, "Digests"): a streaming crypto/sha256 hasher taken
// from a pool and written item by item. Strings pass through a stack chunk
// because hash.Hash has no WriteString and a []byte(s) conversion would
// allocate.
type pooledHasher struct {
	h   hash.Hash
	buf [256]byte
}

var hashers = sync.Pool{New: func() any { return &pooledHasher{h: sha256.New()} }}

func newPooledHasher(label string) *pooledHasher {
	p := hashers.Get().(*pooledHasher)
	p.h.Reset()
	p.String(label)
	return p
}

func (p *pooledHasher) head(tag byte, v uint64) {
	p.buf[0] = tag
	binary.BigEndian.PutUint64(p.buf[1:9], v)
	p.h.Write(p.buf[:9])
}

func (p *pooledHasher) String(s string) {
	p.head(tagString, uint64(len(s)))
	for len(s) > 0 {
		n := copy(p.buf[:], s)
		p.h.Write(p.buf[:n])
		s = s[n:]
	}
}

func (p *pooledHasher) Uint(v uint64) { p.head(tagUint, v) }

func (p *pooledHasher) Digest(d Digest) {
	p.buf[0] = tagDigest
	copy(p.buf[1:], d[:])
	p.h.Write(p.buf[:1+Size])
}

func (p *pooledHasher) Sum() Digest {
	var d Digest
	p.h.Sum(d[:0])
	hashers.Put(p)
	return d
}

// decisionLike writes the item sequence of a realistic Policy Decision
// digest: a label, five strings, eight integers and three nested digests,
// plus big when it is not empty. It is written twice, once per concrete
// type, so that no interface conversion allocates in the benchmark.
func decisionLike(w *Builder, big string) {
	var d Digest
	w.String("decision-1")
	w.Uint(1)
	w.Digest(d)
	w.Digest(d)
	w.Digest(d)
	for _, s := range []string{"payments-policy", "tools", "payments.submit", "acct-1001"} {
		w.String(s)
	}
	for i := range uint64(7) {
		w.Uint(i)
	}
	if big != "" {
		w.String(big)
	}
}

func decisionLikePooled(w *pooledHasher, big string) {
	var d Digest
	w.String("decision-1")
	w.Uint(1)
	w.Digest(d)
	w.Digest(d)
	w.Digest(d)
	for _, s := range []string{"payments-policy", "tools", "payments.submit", "acct-1001"} {
		w.String(s)
	}
	for i := range uint64(7) {
		w.Uint(i)
	}
	if big != "" {
		w.String(big)
	}
}

// TestPooledHasherMatchesBuilder keeps the measured alternative honest: it
// computes the same digests as Builder.
func TestPooledHasherMatchesBuilder(t *testing.T) {
	t.Parallel()
	for _, big := range []string{"", strings.Repeat("y", 1000), strings.Repeat("z", 65_536)} {
		b, p := New("toolgate.policy-decision/1"), newPooledHasher("toolgate.policy-decision/1")
		decisionLike(b, big)
		decisionLikePooled(p, big)
		if got, want := p.Sum(), b.Sum(); got != want {
			t.Fatalf("pooled hasher %s, builder %s", got, want)
		}
	}
}

// BenchmarkBuilder compares the one-shot Sum256 over a pooled buffer
// (Builder) with a pooled streaming hasher on a realistic small digest and
// on one carrying a 64 KiB string (the maximal Canonical Request).
//
//	go test -run '^$' -bench BenchmarkBuilder -benchmem -count 10 ./internal/engine/digest/
func BenchmarkBuilder(b *testing.B) {
	for _, size := range []struct {
		name string
		big  string
	}{{"decision", ""}, {"string64KiB", strings.Repeat("x", 65_536)}} {
		b.Run("oneShotBuffer/"+size.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := New("toolgate.policy-decision/1")
				decisionLike(w, size.big)
				_ = w.Sum()
			}
		})
		b.Run("pooledHasher/"+size.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := newPooledHasher("toolgate.policy-decision/1")
				decisionLikePooled(w, size.big)
				_ = w.Sum()
			}
		})
	}
}
