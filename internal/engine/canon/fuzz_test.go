package canon_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// generator builds valid envelopes and value trees from arbitrary octets. It
// reads its input the way a forgiving canonical decoder would. Tag octets
// choose the kind, prefixes choose lengths and counts, and out-of-range
// choices are folded into range. Octets already valid for a position are
// kept. So the spec vectors, used as seeds, regenerate the values they
// encode.
//
// Fuzz inputs must stay small, because the fuzzer's minimization is
// quadratic in input length. So a short input still has to be able to
// describe a request near the size bound. Two rules allow that. A string
// takes at most stringFromInput octets from the input and fills the rest
// from a fixed pattern. Past the end, the input repeats from its start. The
// node budget and depth limit keep every tree finite.
type generator struct {
	all, b []byte
	budget int // nodes left
}

func newGenerator(input []byte) *generator {
	return &generator{all: input, b: input, budget: genBudget}
}

const (
	genMaxDepth     = 12
	genBudget       = 300
	stringFromInput = 16
	printable       = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
	tokenChars      = "abcdefghijklmnopqrstuvwxyz0123456789-"
)

func (g *generator) u8() byte {
	if len(g.b) == 0 {
		if len(g.all) == 0 {
			return 0
		}
		g.b = g.all
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *generator) uint(octets int) uint64 {
	var v uint64
	for range octets {
		v = v<<8 | uint64(g.u8())
	}
	return v
}

// text returns n octets folded into alphabet. The first fromInput octets
// come from the input, and the rest repeat the alphabet.
func (g *generator) text(n, fromInput int, alphabet string) string {
	out := make([]byte, n)
	i := 0
	for ; i < min(n, fromInput); i++ {
		c := g.u8()
		if strings.IndexByte(alphabet, c) < 0 {
			c = alphabet[int(c)%len(alphabet)]
		}
		out[i] = c
	}
	for i < n {
		i += copy(out[i:], alphabet)
	}
	return string(out)
}

// token returns a lower-token of 1..maxLen octets: n is folded into range
// and hyphens at either edge become 'a'.
func (g *generator) token(n uint64, maxLen int) string {
	size := 1
	if n > 0 {
		size = 1 + int((n-1)%uint64(maxLen))
	}
	b := []byte(g.text(size, size, tokenChars))
	for _, i := range []int{0, len(b) - 1} {
		if b[i] == '-' {
			b[i] = 'a'
		}
	}
	return string(b)
}

// toolID returns a Tool Identifier: dot-separated tokens repaired into 2..8
// segments of at most 32 octets. Repair only shortens, so 128 octets hold.
func (g *generator) toolID(n uint64) string {
	size := 1 + int(n%ident.MaxToolIDLen)
	var segs []string
	for seg := range strings.SplitSeq(g.text(size, size, tokenChars+"."), ".") {
		if seg = strings.Trim(seg[:min(len(seg), ident.MaxToolIDSegmentLen)], "-"); seg != "" && len(segs) < ident.MaxToolIDSegments {
			segs = append(segs, seg)
		}
	}
	for len(segs) < ident.MinToolIDSegments {
		segs = append(segs, "x")
	}
	return strings.Join(segs, ".")
}

func (g *generator) generation() ident.Generation {
	return must(ident.NewGeneration(max(g.uint(8), 1)))
}

// envelope reads the layout of a complete request. The marker, version,
// tags and schema version are skipped because v1 fixes them.
func (g *generator) envelope() canon.Envelope {
	var env canon.Envelope
	g.uint(9)
	g.u8()
	env.SnapshotID = must(ident.ParseSnapshotID(g.token(g.uint(2), ident.MaxTokenLen)))
	g.u8()
	env.SnapshotGeneration = g.generation()
	g.u8()
	env.ToolID = must(ident.ParseToolID(g.toolID(g.uint(2))))
	g.u8()
	env.ToolVersion = g.generation()
	g.u8()
	env.DefinitionID = must(ident.ParseDefinitionID(g.token(g.uint(2), ident.MaxTokenLen)))
	g.u8()
	env.SchemaID = must(ident.ParseSchemaID(g.token(g.uint(2), ident.MaxTokenLen)))
	g.uint(3)
	env.SchemaVersion = vocab.V1
	return env
}

// root reads one value and wraps a non-object in an object, since Schema v1
// requires an object root.
func (g *generator) root() value.Value {
	v := g.value(0)
	if v.Kind() != vocab.KindObject {
		v = object(field("value", v))
	}
	return v
}

func (g *generator) value(depth int) value.Value {
	g.budget--
	kind := (g.u8() - 0x10) % 9 // tags 10..18 map to 0..8; other octets fold
	if (kind == 6 || kind == 7) && (depth >= genMaxDepth || g.budget <= 0) {
		kind = 1 // no containers once the depth or node budget is spent
	}
	switch kind {
	case 0:
		return str(g.text(int(g.uint(4)%(value.MaxStringLen+1)), stringFromInput, printable))
	case 1:
		return value.Bool(false)
	case 2:
		return value.Bool(true)
	case 3:
		return value.Signed(int64(g.uint(8)))
	case 4:
		return value.Unsigned(g.uint(8))
	case 5:
		return enum(g.token(g.uint(4), ident.MaxTokenLen))
	case 6:
		n := min(int(g.uint(4)%(value.MaxElements+1)), max(g.budget, 0))
		elems := make([]value.Value, 0, n)
		for range n {
			elems = append(elems, g.value(depth+1))
		}
		return array(elems...)
	case 7:
		n := min(int(g.uint(2)%(value.MaxFields+1)), max(g.budget, 0))
		fields := make([]value.Field, 0, n)
		for range n {
			name := g.token(g.uint(2), ident.MaxTokenLen)
			fields = append(fields, field(name, g.value(depth+1)))
		}
		// Schema order: sort by name, keep the first of duplicates.
		slices.SortStableFunc(fields, func(a, b value.Field) int { return a.Name().Compare(b.Name()) })
		fields = slices.CompactFunc(fields, func(a, b value.Field) bool { return a.Name() == b.Name() })
		return object(fields...)
	default:
		return resource(g.token(g.uint(4), ident.MaxTokenLen))
	}
}

// encodedSize is an independent size oracle written from the Section 47
// grammar.
func encodedSize(env canon.Envelope) int {
	return 9 + 3 + len(env.SnapshotID.String()) + 9 + 3 + len(env.ToolID.String()) + 9 +
		3 + len(env.DefinitionID.String()) + 3 + len(env.SchemaID.String()) + 3 + 1 + valueSize(env.Root)
}

func valueSize(v value.Value) int {
	switch v.Kind() {
	case vocab.KindString, vocab.KindEnumeration, vocab.KindResourceID:
		return 5 + len(v.Text())
	case vocab.KindSignedInteger, vocab.KindUnsignedInteger:
		return 9
	case vocab.KindArray:
		n := 5
		for i := range v.Len() {
			n += valueSize(v.Elem(i))
		}
		return n
	case vocab.KindObject:
		n := 3
		for i := range v.Len() {
			f := v.Field(i)
			n += 2 + len(f.Name().String()) + valueSize(f.Value())
		}
		return n
	default:
		return 1
	}
}

// checkRoundTrip is the encoder's round-trip property. For any valid
// envelope, Encode succeeds exactly when the grammar's size is within
// MaxSize, and then the strict decoder returns the same envelope. Otherwise
// it fails with LimitExceeded and returns nil. It reports whether the
// envelope was accepted.
func checkRoundTrip(t *testing.T, envBytes, rootBytes []byte) bool {
	t.Helper()
	env := newGenerator(envBytes).envelope()
	env.Root = newGenerator(rootBytes).root()
	want := encodedSize(env)

	got, err := canon.Encode(env)
	// The two-pass encoder must agree with the previous checked encoder on
	// every octet and every rejection.
	ref, refErr := canon.ReferenceEncode(env)
	if !bytes.Equal(got, ref) || fmt.Sprint(err) != fmt.Sprint(refErr) {
		t.Fatalf("Encode = %d octets, %v; reference %d octets, %v", len(got), err, len(ref), refErr)
	}
	frag, fragErr := canon.AppendValue([]byte("dst"), env.Root)
	refFrag, refFragErr := canon.ReferenceAppendValue([]byte("dst"), env.Root)
	if !bytes.Equal(frag, refFrag) || fmt.Sprint(fragErr) != fmt.Sprint(refFragErr) {
		t.Fatalf("AppendValue = %d octets, %v; reference %d octets, %v", len(frag), fragErr, len(refFrag), refFragErr)
	}
	if err != nil {
		if !errors.Is(err, fault.ErrLimitExceeded) || got != nil {
			t.Fatalf("Encode = %d octets, %v; only LimitExceeded with nil may fail", len(got), err)
		}
		if want <= canon.MaxSize {
			t.Fatalf("Encode rejected a %d-octet request: %v", want, err)
		}
		return false
	}
	if want > canon.MaxSize || len(got) != want {
		t.Fatalf("Encode gave %d octets, the grammar says %d (bound %d)", len(got), want, canon.MaxSize)
	}
	dec, err := decodeEnvelope(got)
	if err != nil {
		t.Fatalf("strict decoder rejects encoder output: %v", err)
	}
	if diff := cmp.Diff(env, dec, envelopeCmp); diff != "" {
		t.Fatalf("decoded envelope (-want +got):\n%s", diff)
	}
	// The root fragment is the request's tail, and AppendValue keeps dst.
	if fragErr != nil || string(frag[:3]) != "dst" || !bytes.HasSuffix(got, frag[3:]) {
		t.Fatalf("AppendValue(root) = %q…, %v; want \"dst\" and the request's tail", frag[:min(len(frag), 3)], fragErr)
	}
	return true
}

// wideObject returns generator input for an object of 64 fields named
// "aa".."cl", each a string of n octets. With the fixture's identities the
// request is 99 + 64*(9+n) octets.
func wideObject(n int) []byte {
	b := []byte{0x17, 0x00, 64}
	for i := range 64 {
		b = append(b, 0x00, 0x02, 'a'+byte(i/26), 'a'+byte(i%26), 0x10, 0, 0, byte(n>>8), byte(n))
		b = append(b, bytes.Repeat([]byte{'x'}, stringFromInput)...)
	}
	return b
}

func FuzzEncode(f *testing.F) {
	fixture := specFixture(f)
	vectors := specValueVectors(f)
	for _, label := range slices.Sorted(maps.Keys(vectors)) {
		f.Add(fixture, vectors[label])
	}
	f.Add(fixture, fixture[fixtureOverhead:])
	// An array of 1,024-octet strings. Because the input repeats, it nests
	// until the node budget runs out, which lands well past the bound.
	f.Add(fixture, append([]byte{0x16, 0, 0, 0, 64, 0x10, 0, 0, 0x04, 0x00}, bytes.Repeat([]byte{'x'}, stringFromInput)...))
	f.Fuzz(func(t *testing.T, envBytes, rootBytes []byte) {
		checkRoundTrip(t, envBytes, rootBytes)
	})
}

// TestRoundTripProperty runs the fuzz property over a fixed pseudo-random
// sample, so every plain `go test` run covers both accepted and rejected
// sizes.
func TestRoundTripProperty(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(47, 51))
	accepted, rejected := 0, 0
	for sample := range 400 {
		env := make([]byte, r.IntN(128))
		for i := range env {
			env[i] = byte(r.Uint32())
		}
		var root []byte
		switch sample % 3 {
		case 0: // uniform octets
			root = make([]byte, r.IntN(4096))
			for i := range root {
				root[i] = byte(r.Uint32())
			}
		case 1: // biased toward container tags, so trees get deep and wide
			root = make([]byte, r.IntN(4096))
			for i := range root {
				root[i] = byte(r.Uint32())
				if r.IntN(4) == 0 {
					root[i] = 0x16 + byte(r.IntN(2))
				}
			}
		default: // wide objects on either side of the bound
			root = wideObject(900 + r.IntN(200))
		}
		if checkRoundTrip(t, env, root) {
			accepted++
		} else {
			rejected++
		}
	}
	if accepted == 0 || rejected == 0 {
		t.Errorf("sample accepted %d and rejected %d; want both outcomes", accepted, rejected)
	}
}
