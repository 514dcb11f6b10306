package clientauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"
)

// Bounds of a Cache.
const (
	// DefaultCacheTTL is how long an answer is kept: the service's
	// TokenReview cache keeps its answers as long by default.
	DefaultCacheTTL = 10 * time.Second
	// cachedIdentities bounds the answers that authenticated a client.
	cachedIdentities = 10000
	// cachedRejections bounds the answers that did not: a separate,
	// smaller cache, so a flood of made-up tokens churns only itself and
	// never evicts a real client.
	cachedRejections = 1024
)

// Cache keeps a Verifier's answers for a short while, keyed by the
// token's SHA-256 (the token itself is not kept): identities until ttl or
// their expiry, whichever is first, and token rejections for ttl. An
// unavailable verifier's answer is never kept, so an outage ends when the
// verifier is back.
type Cache struct {
	next     Verifier
	ttl      time.Duration
	clock    cache.Clock
	accepted *cache.LRUExpireCache // digest → Identity
	rejected *cache.LRUExpireCache // digest → *Error
}

// NewCache caches v's answers for ttl (DefaultCacheTTL when zero).
func NewCache(v Verifier, ttl time.Duration) (*Cache, error) {
	return newCache(v, ttl, realClock{})
}

func newCache(v Verifier, ttl time.Duration, clock cache.Clock) (*Cache, error) {
	switch {
	case v == nil:
		return nil, configError("cache", "a cache needs a verifier")
	case ttl < 0:
		return nil, configError("cache.ttl", "not negative")
	}
	return &Cache{next: v, ttl: cmpOr(ttl, DefaultCacheTTL), clock: clock,
		accepted: cache.NewLRUExpireCacheWithClock(cachedIdentities, clock),
		rejected: cache.NewLRUExpireCacheWithClock(cachedRejections, clock)}, nil
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Verify implements Verifier.
func (c *Cache) Verify(ctx context.Context, token string) (Identity, error) {
	sum := sha256.Sum256([]byte(token))
	if id, ok := c.accepted.Get(sum); ok {
		return id.(Identity).clone(), nil
	}
	if e, ok := c.rejected.Get(sum); ok {
		return Identity{}, e.(*Error)
	}
	id, err := c.next.Verify(ctx, token)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Reason != ReasonUnavailable {
			c.rejected.Add(sum, e, c.ttl)
		}
		return Identity{}, err
	}
	ttl := c.ttl
	if !id.Expiry.IsZero() {
		ttl = min(ttl, id.Expiry.Sub(c.clock.Now()))
	}
	if ttl > 0 {
		c.accepted.Add(sum, id.clone(), ttl)
	}
	return id, nil
}
