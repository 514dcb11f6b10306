package server

import (
	"container/list"
	"crypto/sha256"
	"sync"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
)

// DefaultRebuildCacheEntries bounds the rebuild cache when
// Config.RebuildCacheEntries is 0.
const DefaultRebuildCacheEntries = 4096

// rebuildCache keeps Authorizations that a validate or consume verified
// and rebuilt, and those authorize just issued, keyed by the SHA-256 of
// the envelope's exact bytes, so that a validate or consume of the same
// envelope skips the signature verification and the re-run of the
// issuance. It saves only
// those two steps: the domain lookup, the served-snapshot check, the
// executor's expectations, the clock and the Consumption all run on every
// request (Server.check). See docs/decisions.md.
//
// An entry is valid only for the exact Host and signing key that verified
// and rebuilt it (serving.Domain.Same): Rebuild is a pure function of the record and the Host's
// append-only snapshot store, and the same bytes verify under the same key
// again, so a hit returns what a miss would compute. An issued entry is the
// Authorization that Host issued and that key sealed into those bytes:
// issuance is deterministic and Rebuild re-runs it, so a miss would compute
// it too. A domain replaced by
// a reload has another Host or key and misses. Entries leave at the
// Authorization's expiry (it can never validate again) or, least recently
// used first, when the cache is full.
type rebuildCache struct {
	mu    sync.Mutex
	max   int
	byKey map[[sha256.Size]byte]*list.Element
	lru   list.List // of *cached, most recently used first
}

type cached struct {
	digest  [sha256.Size]byte
	keyID   string          // the identity of the key whose signature verified
	domain  *serving.Domain // the domain that verified and rebuilt a
	a       *host.Authorization
	expires uint64 // Unix seconds, exclusive
}

// newRebuildCache returns a cache of at most max entries, or nil (no
// caching) when max is negative.
func newRebuildCache(maxEntries int) *rebuildCache {
	if maxEntries < 0 {
		return nil
	}
	if maxEntries == 0 {
		maxEntries = DefaultRebuildCacheEntries
	}
	return &rebuildCache{max: maxEntries, byKey: map[[sha256.Size]byte]*list.Element{}}
}

// get returns the entry of the envelope with digest, if cached and not
// expired at now (Unix seconds). The caller checks that the entry's domain
// is still the Same as the one its key identity names.
func (c *rebuildCache) get(digest [sha256.Size]byte, now uint64) (*cached, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[digest]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cached)
	if now >= e.expires {
		c.lru.Remove(el)
		delete(c.byKey, digest)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e, true
}

// put records a, verified and rebuilt by domain d from the envelope with
// digest, until expires (a's expiry, Unix seconds).
func (c *rebuildCache) put(digest [sha256.Size]byte, d *serving.Domain, keyID string, a *host.Authorization, expires uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &cached{digest: digest, keyID: keyID, domain: d, a: a, expires: expires}
	if el, ok := c.byKey[digest]; ok {
		el.Value = e
		c.lru.MoveToFront(el)
		return
	}
	c.byKey[digest] = c.lru.PushFront(e)
	for c.lru.Len() > c.max {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.byKey, last.Value.(*cached).digest)
	}
}

// len is the number of entries (for tests and metrics).
func (c *rebuildCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
