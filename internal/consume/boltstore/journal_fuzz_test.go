package boltstore

import (
	"bytes"
	"testing"
)

// FuzzDecodeEntries holds replay's reader to its contract on any bytes a
// crash or a disk could leave: it never panics, and what it returns is
// exactly the encoding of a prefix of the input (so a torn or corrupt
// entry ends the entries, never yields a made-up one).
func FuzzDecodeEntries(f *testing.F) {
	whole := appendEntry(nil, entry{kind: kindRecord, exp: 7, key: []byte("d/b"), value: make([]byte, 8)})
	whole = appendEntry(whole, entry{kind: kindClaim, exp: 9, key: []byte("d/0/id"), value: []byte("claim")})
	f.Add(whole)
	f.Add(whole[:len(whole)-3])
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		es, whole := decodeEntries(b)
		var again []byte
		for _, e := range es {
			if e.kind != kindRecord && e.kind != kindClaim {
				t.Fatalf("decoded an entry of kind %q", e.kind)
			}
			again = appendEntry(again, e)
		}
		if !bytes.HasPrefix(b, again) {
			t.Fatal("the decoded entries are not a prefix of the input")
		}
		if whole != (len(again) == len(b)) {
			t.Fatalf("whole = %v with %d of %d octets decoded", whole, len(again), len(b))
		}
	})
}
