package server

import (
	"crypto/sha256"
	"testing"

	"github.com/toolgate/toolgate/internal/serving"
)

func TestRebuildCacheIsBoundedAndExpires(t *testing.T) {
	t.Parallel()
	d := &serving.Domain{}
	digest := func(i int) [sha256.Size]byte { return sha256.Sum256([]byte{byte(i)}) }
	c := newRebuildCache(3)
	for i := range 3 {
		c.put(digest(i), d, "", nil, 100)
	}
	if _, ok := c.get(digest(0), 10); !ok { // 0 is now the most recently used
		t.Fatal("a fresh entry misses")
	}
	c.put(digest(3), d, "", nil, 100)
	if c.len() != 3 {
		t.Errorf("%d entries, want the bound 3", c.len())
	}
	if _, ok := c.get(digest(1), 10); ok {
		t.Error("the least recently used entry was not evicted")
	}
	for _, i := range []int{0, 2, 3} {
		if _, ok := c.get(digest(i), 10); !ok {
			t.Errorf("entry %d was evicted", i)
		}
	}
	if _, ok := c.get(digest(0), 100); ok {
		t.Error("an entry hits at its expiry")
	}
	if c.len() != 2 {
		t.Errorf("%d entries, want the expired one gone", c.len())
	}
	none := newRebuildCache(-1)
	none.put(digest(0), d, "", nil, 100)
	if _, ok := none.get(digest(0), 10); ok || none.len() != 0 {
		t.Error("a disabled cache keeps entries")
	}
}
