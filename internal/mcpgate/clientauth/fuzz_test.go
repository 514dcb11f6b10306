package clientauth_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

// FuzzVerifyRejectsWithoutEcho: whatever the token, the JWT verifier
// either accepts it (only a token the issuer's key signed) or rejects it
// with a closed reason, and no rejection's text holds the token.
func FuzzVerifyRejectsWithoutEcho(f *testing.F) {
	key := newECKey(f, "key-1")
	keys := newIssuerKeys(f, key.public())
	v := newVerifier(f, keys)
	valid := sign(f, key, good())
	for _, seed := range []string{valid, tamper(valid), "a.b.c", "eyJhbGciOiJub25lIn0.e30.", "", "..", valid + "x"} {
		f.Add(seed)
	}
	reasons := map[clientauth.Reason]bool{
		clientauth.ReasonMalformed: true, clientauth.ReasonAlgorithm: true, clientauth.ReasonUnknownKey: true,
		clientauth.ReasonSignature: true, clientauth.ReasonIssuer: true, clientauth.ReasonAudience: true,
		clientauth.ReasonExpired: true, clientauth.ReasonNotYetValid: true,
	}
	f.Fuzz(func(t *testing.T, token string) {
		_, err := v.Verify(context.Background(), token)
		if err == nil {
			if token != valid && !strings.HasPrefix(token, strings.TrimRight(valid, "=")) {
				// Base64 may decode a changed tail to the same bytes; any
				// other accepted token is a forgery.
				t.Fatalf("a token the test did not sign was accepted")
			}
			return
		}
		if !reasons[reasonOf(err)] {
			t.Fatalf("reason %q is not a token rejection: %v", reasonOf(err), err)
		}
		if len(token) > 6 && strings.Contains(err.Error(), token) {
			t.Fatal("the error echoes the token")
		}
	})
}
