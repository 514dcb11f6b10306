package boltstore

import (
	"bytes"
	"testing"
)

// FuzzDecodeEntries holds replay's reader to its contract on any bytes a
// crash or a disk could leave: it never panics, and what it returns is
// exactly the encoding of a prefix of the input (so a torn or corrupt
// entry ends the entries, never yields a made-up one), and entries written
// for one segment never check in another (a recycled file's old entries).
func FuzzDecodeEntries(f *testing.F) {
	const seq = 3
	whole := appendEntry(nil, seq, entry{kind: kindRecord, exp: 7, key: []byte("d/b"), value: make([]byte, 8)})
	whole = appendEntry(whole, seq, entry{kind: kindClaim, exp: 9, key: []byte("d/0/id"), value: []byte("claim")})
	whole = appendEntry(whole, seq, entry{kind: kindSeal})
	f.Add(whole)
	f.Add(whole[:len(whole)-3])
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, end := decodeEntries(b, seq)
		var again []byte
		for _, e := range es {
			if e.kind != kindRecord && e.kind != kindClaim && e.kind != kindSeal {
				t.Fatalf("decoded an entry of kind %q", e.kind)
			}
			again = appendEntry(again, seq, e)
		}
		if !bytes.Equal(b[:end], again) {
			t.Fatal("the decoded entries are not exactly the input's first octets")
		}
		// What another segment wrote never checks in this one.
		if other, _ := decodeEntries(b, seq+1); len(es) > 0 && len(other) > 0 {
			t.Fatal("an entry checks in two segments")
		}
	})
}
