package server

import "testing"

// TestTheIssuedRecordIsBoundedAndForgetsAtExpiry: the record of issued
// Authorizations keeps at most its bound (the oldest leaves first), answers
// nothing at or after an entry's expiry, keeps the first of two identical
// requests, and records nothing when disabled.
func TestTheIssuedRecordIsBoundedAndForgetsAtExpiry(t *testing.T) {
	t.Parallel()
	c := newIssuedCache(2)
	e := func(req string, expires uint64) issuedEntry {
		return issuedEntry{key: issuedKey("domain-1", req), issuedAt: 100, expires: expires, binding: req}
	}
	for _, req := range []string{"a", "b", "c"} {
		if _, won := c.add(e(req, 200), 100); !won {
			t.Fatalf("add %s: an entry of another request won", req)
		}
	}
	if c.len() != 2 {
		t.Fatalf("%d entries, want the bound 2", c.len())
	}
	if _, ok := c.get(issuedKey("domain-1", "a"), 100); ok {
		t.Error("the oldest entry outlived the bound")
	}
	if got, ok := c.get(issuedKey("domain-1", "c"), 199); !ok || got.binding != "c" {
		t.Errorf("the newest entry before its expiry: %+v, %v", got, ok)
	}
	if _, ok := c.get(issuedKey("domain-1", "c"), 200); ok {
		t.Error("an entry answered at its expiry")
	}
	if _, ok := c.get(issuedKey("domain-2", "b"), 100); ok {
		t.Error("another domain's identical request found this domain's entry")
	}
	first := e("b", 200)
	second := first
	second.issuedAt, second.binding = 101, "b-later"
	if got, won := c.add(second, 101); won || got.binding != "b" {
		t.Errorf("a second identical request: %+v, won %v; want the first one's entry", got, won)
	}
	if _, won := c.add(second, 200); !won {
		t.Error("an expired entry kept a later identical request out")
	}
	off := newIssuedCache(-1)
	if _, won := off.add(first, 100); !won {
		t.Error("a disabled record refused an entry")
	}
	if _, ok := off.get(first.key, 100); ok || off.len() != 0 {
		t.Error("a disabled record remembered an entry")
	}
}
