package policy

import (
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
)

// TestInternTableFindsExactly: the compiled definition's identifier table
// finds every interned string and nothing else, whatever the hash does:
// with every hash colliding, with few distinct hashes, and with the real
// one; an identifier the definition never names (of its own hash or of a
// named identifier's hash) is not found.
func TestInternTableFindsExactly(t *testing.T) {
	t.Parallel()
	names := map[string]int32{}
	for i := range 40 {
		names["id-"+strconv.Itoa(i)] = int32(i)
	}
	names[""] = 40 // the zero identifier's text, should a policy name it
	hashes := map[string]func(string) uint64{
		"HashIdentifier": evalinput.HashIdentifier,
		"all collide":    func(string) uint64 { return 7 },
		"three buckets":  func(s string) uint64 { return uint64(len(s) % 3) },
		"high bits only": func(s string) uint64 { return evalinput.HashIdentifier(s) &^ 0xffff },
	}
	for name, hash := range hashes {
		tab := newInternTable(names, hash)
		if len(tab.slots) < 2*len(names) {
			t.Errorf("%s: %d slots for %d names: more than half full", name, len(tab.slots), len(names))
		}
		for k, want := range names {
			if got := tab.findHashed(hash(k), k); got != want {
				t.Errorf("%s: find(%q) = %d, want %d", name, k, got, want)
			}
		}
		for _, k := range []string{"id-40", "id-1x", "id-0 ", "ID-1", "zz"} {
			if got := tab.findHashed(hash(k), k); got != -1 {
				t.Errorf("%s: find(%q) = %d for a string never interned", name, k, got)
			}
			if got := tab.findHashed(hash("id-3"), k); got != -1 {
				t.Errorf("%s: find(%q) with the hash of id-3 = %d", name, k, got)
			}
		}
	}
	empty := newInternTable(map[string]int32{}, evalinput.HashIdentifier)
	if got := empty.findHashed(evalinput.HashIdentifier("id-1"), "id-1"); got != -1 {
		t.Errorf("the empty table finds id-1: %d", got)
	}
}
