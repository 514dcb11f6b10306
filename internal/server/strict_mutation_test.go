package server

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestStrictDecoderAgreesOnMutations is a deterministic slice of the fuzz
// target: seeds with a few random edits, each decoded by both decoders.
func TestStrictDecoderAgreesOnMutations(t *testing.T) {
	t.Parallel()
	authorize, _ := seeds(t)
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`{}[]",:\ntfnul0123456789-.eE \\/`)
	for n := 0; n < 20000; n++ {
		b := []byte(string(authorize[r.IntN(len(authorize))]))
		for k := r.IntN(4); k >= 0; k-- {
			if len(b) == 0 {
				break
			}
			i := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b[i] = alphabet[r.IntN(len(alphabet))]
			case 1:
				b = b[:i]
			default:
				b = append(b[:i:i], b[min(len(b), i+r.IntN(8)):]...)
			}
		}
		if !utf8.Valid(b) {
			continue
		}
		if d := differ(b, decodeAuthorize); d != "" {
			t.Fatalf("%s on %q", d, b)
		}
	}
}
