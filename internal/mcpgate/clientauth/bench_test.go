package clientauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
)

// BenchmarkJWTVerify is one ES256 access token verified against a cached
// JWKS: the per-request cost the gate adds.
func BenchmarkJWTVerify(b *testing.B) {
	key := newECKey(b, "key-1")
	v := newVerifier(b, newIssuerKeys(b, key.public()))
	tok := sign(b, key, good())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMiddleware is the whole gate in front of a handler that does
// nothing: header parsing, verification, the SDK's TokenInfo.
func BenchmarkMiddleware(b *testing.B) {
	key := newECKey(b, "key-1")
	v := newVerifier(b, newIssuerKeys(b, key.public()))
	g := newGate(b, v, logr.Discard())
	h := g.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest(http.MethodPost, "https://gateway.example.com/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+sign(b, key, good()))
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
