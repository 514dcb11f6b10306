package server

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
)

// Idempotent authorize (docs/api.md, "Retries are safe"; docs/decisions.md,
// "The durable write belongs to Consumption"). Issuance writes nothing
// durable: the Consumption of an Authorization records its complete
// binding and holds its three identities in one atomic step
// (consume.Store.Consume), so in a domain at most one Authorization naming
// an identity is ever consumed, whichever replica issued it. Before
// issuing, the service reads (consume.Store.Held) whether an identity is
// already held by a Consumption: such an identity is not issued again.
//
// An identical request repeated on the same replica is answered with the
// same Authorization from a bounded in-memory record of what this replica
// issued (issuedCache). Nothing but the issuance time and the binding is
// kept: issuance is a function of the request and the time, and Ed25519
// signatures are deterministic, so re-running the request at the recorded
// IssuedAt reproduces the artifact byte for byte
// (TestIssuanceIsDeterministic); the binding digest proves that it did.
// Another replica, or this one after a restart or an eviction, issues a
// new, equivalent Authorization under the same identities instead; only
// one of them can be consumed.

// issued is an Authorization ready to be handed out: the Host's result
// and its sealed envelope, and whether it answers a retry.
type issued struct {
	res      *host.Result
	envelope string
	retry    bool
}

// answer hands out first, the Authorization issued for req at q.now, or
// the one this replica issued for the identical request before, while it
// has not expired. A fresh one is handed out only when none of its
// identities is held by a Consumption in the domain: a held identity is
// 409 identityReused at that identity, a store that cannot answer 503
// unavailable.
func (s *Server) answer(ctx context.Context, q *call, d *serving.Domain, req *client.AuthorizeRequest, first issued) (issued, int, *client.Error) {
	a := first.res.Authorization
	key := issuedKey(d.Instance(), RequestDigest(req, q.caller))
	now := uint64(q.now.Unix())
	if prev, ok := s.issued.get(key, now); ok {
		if again, ok := s.reissue(q, d, req, prev); ok {
			return again, 0, nil
		}
	}
	ids := [3]string{a.ID().String(), a.ReplayID().String(), a.ConsumptionID().String()}
	err := s.store.Held(ctx, d.Instance(), ids)
	var reused *consume.IdentityReusedError
	switch {
	case errors.As(err, &reused):
		return issued{}, http.StatusConflict, &client.Error{Code: codeIdentityReused, Path: reused.Field,
			Message: "an Authorization naming this identity has been consumed; use a new identity (an identical request is answered with the same Authorization only until one naming it is consumed)"}
	case err != nil:
		return issued{}, http.StatusServiceUnavailable, &client.Error{Code: "unavailable",
			Message: "the consumption store did not answer, so no authorization was issued; retry the identical request"}
	}
	mine := issuedEntry{key: key, issuedAt: a.IssuedAt().Seconds(), expires: a.ExpiresAt().Seconds(), binding: bindingHex(first.res)}
	if prev, won := s.issued.add(mine, now); !won {
		// An identical request issued meanwhile on this replica: answer
		// with its Authorization, so that concurrent identical requests
		// get one.
		if again, ok := s.reissue(q, d, req, prev); ok {
			return again, 0, nil
		}
	}
	return first, 0, nil
}

// reissue re-runs req at prev's issuance time and returns the result when
// it is the Authorization prev records (the same binding digest); a domain
// that no longer issues it the same way (its configuration changed) misses.
// After a key rotation the same Authorization is signed by the new active
// key (docs/decisions.md, "A retry after a key rotation is the same
// Authorization, re-signed").
func (s *Server) reissue(q *call, d *serving.Domain, req *client.AuthorizeRequest, prev issuedEntry) (issued, bool) {
	res, envelope, err := d.Authorize(HostRequest(*req, q.caller, prev.issuedAt))
	if err != nil || res.Authorization == nil || bindingHex(res) != prev.binding {
		return issued{}, false
	}
	return issued{res: res, envelope: envelope, retry: true}, true
}

// Codes of an authorize refused for its identities (identityReused: one
// is held by a Consumption) and of a consume refused for one held by the
// Consumption of another Authorization.
const codeIdentityReused = "identityReused"

// DefaultIssuedCacheEntries bounds the record of issued Authorizations
// when Config.IssuedCacheEntries is 0.
const DefaultIssuedCacheEntries = 4096

// issuedEntry is one Authorization this replica issued: the digest of
// the domain and the request, its issuance and expiry (Unix seconds) and
// its binding digest.
type issuedEntry struct {
	key               [sha256.Size]byte
	issuedAt, expires uint64
	binding           string
}

// issuedCache records the Authorizations this replica issued, by domain
// and request, so that an identical request is answered with the same
// one. It is bounded (the oldest entry leaves first) and holds no request
// data: losing an entry only means that a retry gets a new, equivalent
// Authorization, of which at most one is consumed.
type issuedCache struct {
	mu    sync.Mutex
	max   int
	byKey map[[sha256.Size]byte]*list.Element
	order list.List // of issuedEntry, newest first
}

// newIssuedCache returns a cache of at most max entries, or nil (every
// authorize issues anew) when max is negative.
func newIssuedCache(maxEntries int) *issuedCache {
	if maxEntries < 0 {
		return nil
	}
	if maxEntries == 0 {
		maxEntries = DefaultIssuedCacheEntries
	}
	return &issuedCache{max: maxEntries, byKey: map[[sha256.Size]byte]*list.Element{}}
}

// get returns the entry of key while it has not expired at now.
func (c *issuedCache) get(key [sha256.Size]byte, now uint64) (issuedEntry, bool) {
	if c == nil {
		return issuedEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return issuedEntry{}, false
	}
	e := el.Value.(issuedEntry)
	if now >= e.expires {
		c.order.Remove(el)
		delete(c.byKey, key)
		return issuedEntry{}, false
	}
	return e, true
}

// add records e unless an unexpired entry of its key is recorded: then it
// returns that one and false.
func (c *issuedCache) add(e issuedEntry, now uint64) (issuedEntry, bool) {
	if c == nil {
		return e, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[e.key]; ok {
		if prev := el.Value.(issuedEntry); now < prev.expires {
			return prev, false
		}
		c.order.Remove(el)
	}
	c.byKey[e.key] = c.order.PushFront(e)
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(issuedEntry).key)
	}
	return e, true
}

// len is the number of entries (for tests).
func (c *issuedCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// issuedKey is the digest of the domain instance and the request digest.
func issuedKey(instance, request string) [sha256.Size]byte {
	b := make([]byte, 0, len(instance)+1+len(request))
	b = append(append(append(b, instance...), 0), request...)
	return sha256.Sum256(b)
}

// bindingHex is the issued Authorization's Consumption Binding digest as
// 64 hex digits.
func bindingHex(res *host.Result) string {
	d := res.Authorization.Binding().Digest().String()
	return d[len("sha256:"):]
}

// RequestDigest is the digest of an authorize request as the service
// decoded it, for caller: two requests are the same request exactly when
// their digests are equal. It covers the caller's name and groups (as a
// set), every member of the request as decoded — so the layout of the body
// (whitespace, member order, escapes) does not count — and the raw bytes
// of the arguments and of the intent binding, which the Host hashes as
// sent. A retry must send those two byte for byte.
func RequestDigest(req *client.AuthorizeRequest, caller host.Caller) string {
	d := digesters.Get().(*requestDigester)
	defer d.release()
	// The fields are written into one buffer and hashed at once: the same
	// octets a streaming hasher would see, without a hash.Hash interface
	// that every written slice would escape through.
	b := appendDigestField(d.octets[:0], "toolgate.authorize-request/1")
	b = appendDigestField(b, caller.Name)
	d.groups = append(d.groups[:0], caller.Groups...)
	slices.Sort(d.groups)
	d.groups = slices.Compact(d.groups)
	b = binary.BigEndian.AppendUint64(b, uint64(len(d.groups)))
	for _, g := range d.groups {
		b = appendDigestField(b, g)
	}
	d.rest = *req
	d.rest.Proposal.Arguments, d.rest.Facts.Intent.Binding = nil, nil
	// Encode writes what Marshal returns (struct order: deterministic;
	// HTML-safe quoting) and a newline, which is not hashed.
	if err := d.enc.Encode(&d.rest); err != nil {
		// Every member is a string, number, bool or a list or struct of
		// them: Encode cannot fail. Were it to, such requests would
		// share the empty digest, and a retry would still need the
		// recorded binding (reissue): nothing else is handed out.
		return ""
	}
	b = appendDigestField(b, bytes.TrimSuffix(d.buf.Bytes(), []byte("\n")))
	b = appendDigestField(b, req.Proposal.Arguments)
	b = appendDigestField(b, req.Facts.Intent.Binding)
	d.octets = b
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// appendDigestField appends f after its length, so no two sequences of
// fields write the same octets.
func appendDigestField[T ~string | ~[]byte](b []byte, f T) []byte {
	return append(binary.BigEndian.AppendUint64(b, uint64(len(f))), f...)
}

// requestDigester is RequestDigest's reusable state (pooled: a request is
// encoded on every issuing authorize; the pool only holds memory and never
// affects a digest): the octets hashed, a copy of the request without its
// raw members, its encoder and buffer, the groups.
type requestDigester struct {
	octets []byte
	rest   client.AuthorizeRequest
	buf    bytes.Buffer
	enc    *json.Encoder
	groups []string
}

var digesters = sync.Pool{New: func() any {
	d := &requestDigester{}
	d.enc = json.NewEncoder(&d.buf)
	return d
}}

// release returns d to the pool without its references to the request's
// and the caller's strings (the byte buffers are overwritten by the next
// digest), unless a buffer grew outsized.
func (d *requestDigester) release() {
	d.rest = client.AuthorizeRequest{}
	clear(d.groups[:cap(d.groups)])
	d.buf.Reset()
	if cap(d.octets) > 64<<10 || d.buf.Cap() > 64<<10 {
		return
	}
	digesters.Put(d)
}
