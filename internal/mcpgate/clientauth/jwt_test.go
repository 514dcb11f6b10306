package clientauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

const (
	resource = "https://gateway.example.com/mcp"
	issuer   = "https://issuer.example.com"
)

// base is the test's fixed clock: tokens are minted relative to it.
var base = time.Unix(1_900_000_000, 0)

// issuerKeys is a JWKS server over TLS whose keys a test can change.
type issuerKeys struct {
	srv     *httptest.Server
	mu      sync.Mutex
	set     jose.JSONWebKeySet
	fetches atomic.Int32
	down    atomic.Bool
}

func newIssuerKeys(t testing.TB, keys ...jose.JSONWebKey) *issuerKeys {
	t.Helper()
	k := &issuerKeys{}
	k.set.Keys = keys
	k.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.fetches.Add(1)
		if k.down.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		_ = json.NewEncoder(w).Encode(k.set)
	}))
	t.Cleanup(k.srv.Close)
	return k
}

func (k *issuerKeys) add(key jose.JSONWebKey) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.set.Keys = append(k.set.Keys, key)
}

type signingKey struct {
	priv any
	alg  jose.SignatureAlgorithm
	kid  string
}

func (s signingKey) public() jose.JSONWebKey {
	k := jose.JSONWebKey{Key: s.priv, KeyID: s.kid, Algorithm: string(s.alg), Use: "sig"}
	return k.Public()
}

func newECKey(t testing.TB, kid string) signingKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{priv: priv, alg: jose.ES256, kid: kid}
}

var rsaOnce = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// claims are a test token's claims; zero fields are left out.
type claims struct {
	Issuer    string   `json:"iss,omitempty"`
	Subject   string   `json:"sub,omitempty"`
	Audience  []string `json:"aud,omitempty"`
	Expiry    int64    `json:"exp,omitempty"`
	NotBefore int64    `json:"nbf,omitempty"`
	IssuedAt  int64    `json:"iat,omitempty"`
	Scope     string   `json:"scope,omitempty"`
	Groups    any      `json:"groups,omitempty"`
}

func good() claims {
	return claims{Issuer: issuer, Subject: "user-1", Audience: []string{resource},
		Expiry: base.Add(time.Hour).Unix(), NotBefore: base.Add(-time.Minute).Unix(), IssuedAt: base.Add(-time.Minute).Unix(),
		Scope: "mcp:tools mcp:read", Groups: []string{"agents"}}
}

func sign(t testing.TB, k signingKey, c claims) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if k.kid != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), k.kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// handMade builds a compact JWS with the given header and signature
// function, for algorithms go-jose refuses to produce.
func handMade(t *testing.T, header map[string]any, c claims, sig func(input string) []byte) string {
	t.Helper()
	h, _ := json.Marshal(header)
	p, _ := json.Marshal(c)
	in := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p)
	return in + "." + base64.RawURLEncoding.EncodeToString(sig(in))
}

func newVerifier(t testing.TB, keys *issuerKeys, algs ...string) *clientauth.JWTVerifier {
	t.Helper()
	if len(algs) == 0 {
		algs = []string{"ES256"}
	}
	v, err := clientauth.NewJWTVerifier(clientauth.JWTConfig{
		Issuer: issuer, Audience: resource, JWKSURL: keys.srv.URL + "/jwks", Algorithms: algs,
		Leeway: 30 * time.Second, HTTPClient: keys.srv.Client(), Now: func() time.Time { return base },
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func reasonOf(err error) clientauth.Reason {
	var e *clientauth.Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// TestJWTVerifierRules: each rule of an access token (RFC 9068, RFC 8707,
// RFC 7519 Section 4.1, the pinned algorithms) accepts or rejects with its
// reason.
func TestJWTVerifierRules(t *testing.T) {
	t.Parallel()
	key := newECKey(t, "key-1")
	other := newECKey(t, "key-1") // same kid, different key: a forged signature
	rsaKey := signingKey{priv: rsaOnce(), alg: jose.RS256, kid: "rsa-1"}
	keys := newIssuerKeys(t, key.public(), rsaKey.public())
	v := newVerifier(t, keys)
	rsaPub, err := x509.MarshalPKIXPublicKey(&rsaOnce().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(*claims)) claims { c := good(); f(&c); return c }

	tests := []struct {
		name  string
		token string
		want  clientauth.Reason
	}{
		{"a valid token is accepted", sign(t, key, good()), ""},
		{"a token within the leeway of exp is accepted", sign(t, key, with(func(c *claims) { c.Expiry = base.Add(-10 * time.Second).Unix() })), ""},
		{"a token for another audience rejects", sign(t, key, with(func(c *claims) { c.Audience = []string{"https://other.example.com/mcp"} })), clientauth.ReasonAudience},
		{"a token for the resource with a trailing slash rejects", sign(t, key, with(func(c *claims) { c.Audience = []string{resource + "/"} })), clientauth.ReasonAudience},
		{"a token from another issuer rejects", sign(t, key, with(func(c *claims) { c.Issuer = "https://evil.example.com" })), clientauth.ReasonIssuer},
		{"an expired token rejects", sign(t, key, with(func(c *claims) { c.Expiry = base.Add(-time.Minute).Unix() })), clientauth.ReasonExpired},
		{"a token not yet valid rejects", sign(t, key, with(func(c *claims) { c.NotBefore = base.Add(time.Minute).Unix() })), clientauth.ReasonNotYetValid},
		{"a token issued in the future rejects", sign(t, key, with(func(c *claims) { c.IssuedAt = base.Add(time.Minute).Unix() })), clientauth.ReasonNotYetValid},
		{"a token without exp rejects", sign(t, key, with(func(c *claims) { c.Expiry = 0 })), clientauth.ReasonMalformed},
		{"a token without sub rejects", sign(t, key, with(func(c *claims) { c.Subject = "" })), clientauth.ReasonMalformed},
		{"a token without aud rejects", sign(t, key, with(func(c *claims) { c.Audience = nil })), clientauth.ReasonMalformed},
		{"a groups claim that is not a string array rejects", sign(t, key, with(func(c *claims) { c.Groups = "agents" })), clientauth.ReasonMalformed},
		{"alg none rejects", handMade(t, map[string]any{"alg": "none", "kid": "key-1"}, good(), func(string) []byte { return nil }), clientauth.ReasonAlgorithm},
		{"an algorithm not pinned rejects, even with a key in the JWKS", sign(t, rsaKey, good()), clientauth.ReasonAlgorithm},
		{"HS256 keyed with the public key rejects", handMade(t, map[string]any{"alg": "HS256", "kid": "rsa-1"}, good(), func(in string) []byte {
			m := hmac.New(sha256.New, rsaPub)
			m.Write([]byte(in))
			return m.Sum(nil)
		}), clientauth.ReasonAlgorithm},
		{"a bad signature rejects", sign(t, other, good()), clientauth.ReasonSignature},
		{"a tampered payload rejects", tamper(sign(t, key, good())), clientauth.ReasonSignature},
		{"a token that is not a JWS rejects", "not-a-jwt", clientauth.ReasonMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			id, err := v.Verify(context.Background(), tt.token)
			if got := reasonOf(err); got != tt.want || (tt.want == "") != (err == nil) {
				t.Fatalf("Verify: %v (reason %q), want reason %q", err, got, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), tt.token) {
				t.Error("the error echoes the token")
			}
			if tt.want == "" && (id.Subject != "user-1" || id.Issuer != issuer || len(id.Scopes) != 2 || len(id.Groups) != 1 || id.Expiry.IsZero()) {
				t.Errorf("identity = %+v", id)
			}
		})
	}
}

// tamper changes the payload's subject, keeping the signature.
func tamper(tok string) string {
	parts := strings.Split(tok, ".")
	c := good()
	c.Subject = "admin"
	p, _ := json.Marshal(c)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(p) + "." + parts[2]
}

// TestUnknownKeyRefreshesOnceThenRejects: a token with a kid the cached
// JWKS lacks triggers one refresh; when the refreshed set lacks it too the
// token rejects, and a second such token within the rate limit fetches
// nothing more.
func TestUnknownKeyRefreshesOnceThenRejects(t *testing.T) {
	t.Parallel()
	_, keys, v := warmVerifier(t)
	if n := keys.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches after the first token, want 1", n)
	}
	stranger := newECKey(t, "key-unknown")
	for i, wantFetches := range []int32{2, 2} {
		_, err := v.Verify(context.Background(), sign(t, stranger, good()))
		if reasonOf(err) != clientauth.ReasonUnknownKey {
			t.Fatalf("try %d: %v, want %s", i, err, clientauth.ReasonUnknownKey)
		}
		if n := keys.fetches.Load(); n != wantFetches {
			t.Fatalf("try %d: %d fetches, want %d", i, n, wantFetches)
		}
	}
}

// TestRotatedKeyIsFoundByRefresh: a key the issuer added after the JWKS
// was cached verifies after the refresh its unknown kid triggers.
func TestRotatedKeyIsFoundByRefresh(t *testing.T) {
	t.Parallel()
	_, keys, v := warmVerifier(t)
	rotated := newECKey(t, "key-2")
	keys.add(rotated.public())
	if _, err := v.Verify(context.Background(), sign(t, rotated, good())); err != nil {
		t.Fatalf("the rotated key: %v", err)
	}
	if n := keys.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
}

// TestUnreachableJWKSFailsClosed: with no JWKS fetched nothing verifies,
// and the reason is verifier_unavailable, not a token fault.
func TestUnreachableJWKSFailsClosed(t *testing.T) {
	t.Parallel()
	key := newECKey(t, "key-1")
	keys := newIssuerKeys(t, key.public())
	keys.down.Store(true)
	v := newVerifier(t, keys)
	if _, err := v.Verify(context.Background(), sign(t, key, good())); reasonOf(err) != clientauth.ReasonUnavailable {
		t.Fatalf("Verify: %v, want %s", err, clientauth.ReasonUnavailable)
	}
}

// TestJWTConfigRejectsEveryErrorAtOnce: a plain-http issuer or JWKS, a
// non-canonical audience, HS256, none, a repeated algorithm and a leeway
// past the bound are each reported, at their field, in one error.
func TestJWTConfigRejectsEveryErrorAtOnce(t *testing.T) {
	t.Parallel()
	_, err := clientauth.NewJWTVerifier(clientauth.JWTConfig{
		Issuer: "http://issuer.example.com", Audience: "https://gateway.example.com/mcp/", JWKSURL: "http://issuer.example.com/jwks",
		Algorithms: []string{"ES256", "HS256", "none", "ES256"}, Leeway: time.Hour,
	})
	for _, field := range []string{"jwt.issuer", "jwt.audience", "jwt.jwksURL", "jwt.algorithms[1]", "jwt.algorithms[2]", "jwt.algorithms[3]", "jwt.leeway"} {
		if !errors.Is(err, &clientauth.Error{Reason: clientauth.ReasonInvalidConfig, Field: field}) {
			t.Errorf("no error at %s in %v", field, err)
		}
	}
	if _, err := clientauth.NewJWTVerifier(clientauth.JWTConfig{Issuer: issuer, Audience: resource, JWKSURL: issuer + "/jwks"}); !errors.Is(err, &clientauth.Error{Reason: clientauth.ReasonInvalidConfig, Field: "jwt.algorithms"}) {
		t.Errorf("no pinned algorithm: %v", err)
	}
}

// TestTokenWithoutKeyIDNeedsOneCandidate: a token without a kid verifies
// with the one key of its algorithm in the JWKS, and rejects as
// unknown_key when two could be meant.
func TestTokenWithoutKeyIDNeedsOneCandidate(t *testing.T) {
	t.Parallel()
	a, b := newECKey(t, "key-a"), newECKey(t, "key-b")
	anon := signingKey{priv: a.priv, alg: a.alg}
	one := newVerifier(t, newIssuerKeys(t, a.public()))
	if _, err := one.Verify(context.Background(), sign(t, anon, good())); err != nil {
		t.Fatalf("one candidate: %v", err)
	}
	two := newVerifier(t, newIssuerKeys(t, a.public(), b.public()))
	if _, err := two.Verify(context.Background(), sign(t, anon, good())); reasonOf(err) != clientauth.ReasonUnknownKey {
		t.Fatalf("two candidates: %v, want %s", err, clientauth.ReasonUnknownKey)
	}
}

// TestAccessTokenTypeWhenRequired: with RequireAccessTokenType a token
// typed at+jwt (either spelling) passes and one typed JWT rejects; without
// it both pass.
func TestAccessTokenTypeWhenRequired(t *testing.T) {
	t.Parallel()
	key := newECKey(t, "key-1")
	keys := newIssuerKeys(t, key.public())
	strict, err := clientauth.NewJWTVerifier(clientauth.JWTConfig{
		Issuer: issuer, Audience: resource, JWKSURL: keys.srv.URL, Algorithms: []string{"ES256"},
		RequireAccessTokenType: true, HTTPClient: keys.srv.Client(), Now: func() time.Time { return base },
	})
	if err != nil {
		t.Fatal(err)
	}
	lax := newVerifier(t, keys)
	typed := func(typ string) string {
		opts := (&jose.SignerOptions{}).WithType(jose.ContentType(typ)).WithHeader(jose.HeaderKey("kid"), key.kid)
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: key.alg, Key: key.priv}, opts)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(s).Claims(good()).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	tests := []struct {
		typ        string
		wantStrict clientauth.Reason
	}{
		{"at+jwt", ""},
		{"application/at+jwt", ""},
		{"JWT", clientauth.ReasonMalformed},
	}
	for _, tt := range tests {
		tok := typed(tt.typ)
		if _, err := strict.Verify(context.Background(), tok); reasonOf(err) != tt.wantStrict {
			t.Errorf("typ %s, required: %v, want %q", tt.typ, err, tt.wantStrict)
		}
		if _, err := lax.Verify(context.Background(), tok); err != nil {
			t.Errorf("typ %s, not required: %v", tt.typ, err)
		}
	}
}

// TestConcurrentUnknownKeysCostOneFetch: many requests at once with
// made-up key IDs cause one refresh between them, not one each.
func TestConcurrentUnknownKeysCostOneFetch(t *testing.T) {
	t.Parallel()
	_, keys, v := warmVerifier(t)
	var tokens []string
	for i := range 16 {
		tokens = append(tokens, sign(t, newECKey(t, "made-up-"+string(rune('a'+i))), good()))
	}
	var wg sync.WaitGroup
	for _, tok := range tokens {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), tok); reasonOf(err) != clientauth.ReasonUnknownKey {
				t.Errorf("Verify: %v", err)
			}
		})
	}
	wg.Wait()
	if n := keys.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
}

// warmVerifier is a verifier whose JWKS (one key, "key-1") was fetched by
// one valid token.
func warmVerifier(t *testing.T) (signingKey, *issuerKeys, *clientauth.JWTVerifier) {
	t.Helper()
	key := newECKey(t, "key-1")
	keys := newIssuerKeys(t, key.public())
	v := newVerifier(t, keys)
	if _, err := v.Verify(context.Background(), sign(t, key, good())); err != nil {
		t.Fatal(err)
	}
	return key, keys, v
}
