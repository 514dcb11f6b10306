package clientauth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// maxJWKSBytes bounds a JWKS response.
const maxJWKSBytes = 1 << 20

// keySet is the issuer's JWKS, fetched on first use, again when older than
// maxAge (retried at most once per minRefresh), and again on an unknown
// key ID at most once per minRefresh, so a flood of made-up key IDs costs
// the issuer one fetch a minute. A
// failed fetch keeps the keys it had while they are younger than maxAge;
// after that nothing verifies (fail closed).
type keySet struct {
	url        string
	client     *http.Client
	now        func() time.Time
	minRefresh time.Duration
	maxAge     time.Duration

	mu        sync.Mutex // held across a fetch: concurrent misses wait for one fetch
	keys      []jose.JSONWebKey
	fetched   time.Time // when keys were fetched
	attempted time.Time // when a fetch last ran, well or not
	missed    time.Time // when an unknown key ID last caused a fetch
}

func (s *keySet) lookup(ctx context.Context, kid string, alg jose.SignatureAlgorithm) (jose.JSONWebKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	stale := s.fetched.IsZero() || now.Sub(s.fetched) >= s.maxAge
	if stale && (s.attempted.IsZero() || now.Sub(s.attempted) >= s.minRefresh) {
		s.refresh(ctx, now)
	}
	if s.fetched.IsZero() || now.Sub(s.fetched) >= s.maxAge {
		return jose.JSONWebKey{}, reject(ReasonUnavailable, "the issuer's JWKS could not be fetched")
	}
	if k, ok := s.find(kid, alg); ok {
		return k, nil
	}
	if s.missed.IsZero() || now.Sub(s.missed) >= s.minRefresh {
		s.missed = now
		s.refresh(ctx, now)
		if k, ok := s.find(kid, alg); ok {
			return k, nil
		}
	}
	return jose.JSONWebKey{}, reject(ReasonUnknownKey, "no key of the issuer's JWKS has the token's key ID")
}

// find returns the one key for kid usable with alg; a token without a kid
// matches only a set with one usable key.
func (s *keySet) find(kid string, alg jose.SignatureAlgorithm) (jose.JSONWebKey, bool) {
	var found []jose.JSONWebKey
	for _, k := range s.keys {
		if (kid == "" || k.KeyID == kid) && (k.Algorithm == "" || k.Algorithm == string(alg)) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return jose.JSONWebKey{}, false
	}
	return found[0], true
}

func (s *keySet) refresh(ctx context.Context, now time.Time) {
	s.attempted = now
	keys, err := s.fetch(ctx)
	if err != nil {
		return
	}
	s.keys, s.fetched = keys, now
}

func (s *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, reject(ReasonUnavailable, "the JWKS answered other than 200")
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&set); err != nil {
		return nil, err
	}
	// Only public signing keys are kept: a symmetric (oct) key in a public
	// document is never a verification key, and a private key is used by
	// its public half alone.
	var keys []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" || !k.Valid() {
			continue
		}
		if _, sym := k.Key.([]byte); sym {
			continue
		}
		pub := k.Public()
		if !pub.Valid() {
			continue
		}
		keys = append(keys, pub)
	}
	return keys, nil
}
