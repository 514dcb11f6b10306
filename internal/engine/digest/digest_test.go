package digest_test

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/digest"
)

func TestDistinctCallSequencesGiveDistinctDigests(t *testing.T) {
	t.Parallel()
	seqs := map[string]func(b *digest.Builder){
		"string ab":              func(b *digest.Builder) { b.String("ab") },
		"strings a,b":            func(b *digest.Builder) { b.String("a"); b.String("b") },
		"string a then empty":    func(b *digest.Builder) { b.String("a"); b.String("") },
		"uint 0":                 func(b *digest.Builder) { b.Uint(0) },
		"count 0":                func(b *digest.Builder) { b.Count(0) },
		"bool false":             func(b *digest.Builder) { b.Bool(false) },
		"bool true":              func(b *digest.Builder) { b.Bool(true) },
		"absent":                 func(b *digest.Builder) { b.Absent() },
		"nothing":                func(b *digest.Builder) {},
		"count 1 then string":    func(b *digest.Builder) { b.Count(1); b.String("a") },
		"nested digest of empty": func(b *digest.Builder) { b.Digest(digest.New("x").Sum()) },
		"varint 0":               func(b *digest.Builder) { b.Varint(0) },
		"varint 1":               func(b *digest.Builder) { b.Varint(1) },
		"varint 128":             func(b *digest.Builder) { b.Varint(128) },
		"varints 0,1":            func(b *digest.Builder) { b.Varint(0); b.Varint(1) },
		"varint max":             func(b *digest.Builder) { b.Varint(^uint64(0)) },
		"text ab":                func(b *digest.Builder) { b.Text("ab") },
		"texts a,b":              func(b *digest.Builder) { b.Text("a"); b.Text("b") },
		"text empty":             func(b *digest.Builder) { b.Text("") },
		"text a then varint 98":  func(b *digest.Builder) { b.Text("a"); b.Varint('b') },
		"text of 200 octets":     func(b *digest.Builder) { b.Text(strings.Repeat("a", 200)) },
		"text of 199, varint 97": func(b *digest.Builder) { b.Text(strings.Repeat("a", 199)); b.Varint('a') },
	}
	seen := map[digest.Digest]string{}
	for name, f := range seqs {
		b := digest.New("test/1")
		f(b)
		d := b.Sum()
		if other, dup := seen[d]; dup {
			t.Errorf("%q and %q produce the same digest", name, other)
		}
		seen[d] = name
	}
}

func TestDomainLabelSeparatesDigests(t *testing.T) {
	t.Parallel()
	a, b := digest.New("toolgate.schema/1"), digest.New("toolgate.definition/1")
	a.String("x")
	b.String("x")
	if a.Sum() == b.Sum() {
		t.Fatal("different domain labels must give different digests")
	}
}

func TestEncodingIsTheDocumentedOctets(t *testing.T) {
	t.Parallel()
	// label "L" then Uint(258): 01 | 00..01 | 'L' | 02 | 00..01 02
	want := sha256.Sum256([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 'L', 2, 0, 0, 0, 0, 0, 0, 1, 2})
	b := digest.New("L")
	b.Uint(258)
	if got := b.Sum(); got != digest.Digest(want) {
		t.Fatalf("digest = %s, want %x", got, want)
	}
	// label "L", Varint(300), Varint(5), Text("ab"): 07 | ac 02 (LEB128
	// of 300) | 07 05 | 08 02 'a' 'b'
	want = sha256.Sum256([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 'L', 7, 0xac, 0x02, 7, 5, 8, 2, 'a', 'b'})
	c := digest.New("L")
	c.Varint(300)
	c.Varint(5)
	c.Text("ab")
	if got := c.Sum(); got != digest.Digest(want) {
		t.Fatalf("compact items: digest = %s, want %x", got, want)
	}
	if s := b.Sum().String(); len(s) != len("sha256:")+64 || s[:7] != "sha256:" {
		t.Fatalf("String() = %q", s)
	}
}

type name string

func (n name) String() string { return string(n) }

func TestStringsWritesCountThenEachValue(t *testing.T) {
	t.Parallel()
	a, b := digest.New("x"), digest.New("x")
	digest.Strings(a, []name{"p", "q"})
	b.Count(2)
	b.String("p")
	b.String("q")
	if a.Sum() != b.Sum() {
		t.Fatal("Strings must write the count and then each value")
	}
}

func TestDigestStringIsLowercaseHex(t *testing.T) {
	t.Parallel()
	var d digest.Digest
	for i := range d {
		d[i] = byte(i * 37)
	}
	if got, want := d.String(), "sha256:"+hex.EncodeToString(d[:]); got != want {
		t.Fatalf("String() = %s, want %s", got, want)
	}
}

// TestReusedBuffersDoNotCarryContent builds digests of very different sizes
// in sequence and concurrently: each must equal SHA-256 of exactly its own
// encoding, whatever buffer the pool handed it.
func TestReusedBuffersDoNotCarryContent(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 55, 56, 63, 64, 65, 511, 512, 513, 70_000, 300_000, 3} {
		s := strings.Repeat("x", n)
		b := digest.New("L")
		b.String(s)
		want := sha256.Sum256(slices.Concat(
			[]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 'L', 1}, binary.BigEndian.AppendUint64(nil, uint64(n)), []byte(s)))
		if got := b.Sum(); got != digest.Digest(want) {
			t.Fatalf("length %d: digest = %s, want %x", n, got, want)
		}
	}
}

func TestSumEndsTheBuilder(t *testing.T) {
	t.Parallel()
	b := digest.New("L")
	b.Uint(1)
	first := b.Sum()
	if again := b.Sum(); again != first {
		t.Fatalf("a second Sum = %s, want %s", again, first)
	}
	for name, write := range map[string]func(){
		"String": func() { b.String("x") }, "Uint": func() { b.Uint(1) }, "Count": func() { b.Count(1) },
		"Bool": func() { b.Bool(true) }, "Digest": func() { b.Digest(first) }, "Absent": func() { b.Absent() },
		"Varint": func() { b.Varint(1) }, "Text": func() { b.Text("x") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s after Sum did not panic", name)
				}
			}()
			write()
		}()
	}
}

// TestEqualIsContentEquality checks the word-wise constant-time Equal
// against array equality and crypto/subtle: for a digest and every
// single-bit change of it, every single-byte change of each word, and
// seeded random pairs.
func TestEqualIsContentEquality(t *testing.T) {
	t.Parallel()
	check := func(a, b digest.Digest) {
		t.Helper()
		want := a == b
		if a.Equal(b) != want || b.Equal(a) != want || (subtle.ConstantTimeCompare(a[:], b[:]) == 1) != want {
			t.Fatalf("Equal(%x, %x) = %v, want %v", a, b, a.Equal(b), want)
		}
	}
	base := digest.New("test.equal/1").Sum()
	check(base, base)
	check(digest.Digest{}, digest.Digest{})
	for i := range digest.Size * 8 {
		other := base
		other[i/8] ^= 1 << (i % 8)
		check(base, other)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for range 10000 {
		var a, b digest.Digest
		for i := range a {
			a[i] = byte(r.Uint32())
		}
		b = a
		if r.IntN(2) == 0 {
			b[r.IntN(digest.Size)] = byte(r.Uint32())
		}
		check(a, b)
	}
}

// TestAppendWritesWhatTheBuilderWrites: an encoding written with the
// Append functions and hashed with Of is the Builder's, item for item.
func TestAppendWritesWhatTheBuilderWrites(t *testing.T) {
	t.Parallel()
	d := digest.New("x").Sum()
	for _, text := range []string{"", "a", strings.Repeat("t", 127), strings.Repeat("t", 128), strings.Repeat("t", 70_000)} {
		for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 63, ^uint64(0)} {
			b := digest.New("toolgate.test/1")
			b.Text(text)
			b.Varint(v)
			b.Digest(d)
			b.Absent()
			octets := digest.AppendLabel(nil, "toolgate.test/1")
			octets = digest.AppendText(octets, text)
			octets = digest.AppendVarint(octets, v)
			octets = digest.AppendDigest(octets, d)
			octets = digest.AppendAbsent(octets)
			if got, want := digest.Of(octets), b.Sum(); got != want {
				t.Fatalf("text of %d octets, varint %d: Of %s, Builder %s", len(text), v, got, want)
			}
		}
	}
}
