package clientauth_test

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestBuildMakesTheGateASpecDescribes: a jwt block (with the JWKS server's
// CA from a file) and a tokenFile block each build a gate that admits its
// tokens; the jwt verifier's audience is the Spec's resource.
func TestBuildMakesTheGateASpecDescribes(t *testing.T) {
	t.Parallel()
	key := newECKey(t, "key-1")
	keys := newIssuerKeys(t, key.public())
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: keys.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	c := good()
	// The gate built from a Spec reads the real clock.
	c.Expiry, c.NotBefore, c.IssuedAt = 4_000_000_000, 0, 0
	tests := []struct {
		name  string
		spec  clientauth.Spec
		token string
	}{
		{"a jwt block", clientauth.Spec{Resource: resource, AuthorizationServers: []string{issuer},
			JWT: &clientauth.JWTSpec{Issuer: issuer, JWKSURL: keys.srv.URL, Algorithms: []string{"ES256"}, Leeway: "1m", CAFile: ca}}, sign(t, key, c)},
		{"a tokenFile block", clientauth.Spec{Resource: resource, AuthorizationServers: []string{issuer},
			TokenFile: filepath.Join(testutil.RepoRoot(t), "examples", "standalone", "tokens.yaml")}, "dev-agent-runtime-token-4f8b2c1e9d7a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := clientauth.Build(tt.spec, nil, logr.Discard())
			if err != nil {
				t.Fatal(err)
			}
			if got := call(t, g.Handler(whoami), "/mcp", bearer(tt.token)); got.code != http.StatusOK {
				t.Fatalf("got %d %q %q", got.code, got.challenge, got.body)
			}
		})
	}
}

// TestBuildRejectsEveryErrorAtOnce: not exactly one verifier rejects; a
// bad resource, leeway and algorithm are reported together at their Spec
// fields; TokenReview without the API rejects.
func TestBuildRejectsEveryErrorAtOnce(t *testing.T) {
	t.Parallel()
	is := func(err error, field string) bool {
		return errors.Is(err, &clientauth.Error{Reason: clientauth.ReasonInvalidConfig, Field: field})
	}
	_, err := clientauth.Build(clientauth.Spec{Resource: resource, AuthorizationServers: []string{issuer}, TokenFile: "x", TokenReview: true}, nil, logr.Discard())
	if err == nil {
		t.Error("two verifiers were accepted")
	}
	if _, err := clientauth.Build(clientauth.Spec{Resource: resource, AuthorizationServers: []string{issuer}}, nil, logr.Discard()); err == nil {
		t.Error("no verifier was accepted")
	}
	_, err = clientauth.Build(clientauth.Spec{Resource: "https://gateway.example.com/mcp/",
		JWT: &clientauth.JWTSpec{Issuer: issuer, JWKSURL: issuer + "/jwks", Algorithms: []string{"HS256"}, Leeway: "soon"}}, nil, logr.Discard())
	for _, field := range []string{"resource", "authorizationServers", "jwt.leeway", "jwt.algorithms[0]"} {
		if !is(err, field) {
			t.Errorf("no error at %s in %v", field, err)
		}
	}
	if is(err, "jwt.audience") {
		t.Errorf("the resource's error is reported twice: %v", err)
	}
	_, err = clientauth.Build(clientauth.Spec{Resource: resource, AuthorizationServers: []string{issuer}, TokenReview: true}, nil, logr.Discard())
	if !is(err, "tokenReview") {
		t.Errorf("TokenReview without the API: %v", err)
	}
}

// countingReviews counts the TokenReview API's calls.
type countingReviews struct {
	reviews
	calls *int
}

func (c countingReviews) Create(ctx context.Context, tr *authnv1.TokenReview, o metav1.CreateOptions) (*authnv1.TokenReview, error) {
	*c.calls++
	return c.reviews.Create(ctx, tr, o)
}

// TestBuildCachesTokenReviews: a tokenReview block builds a gate that
// admits the API's token and asks the API once for repeated requests.
func TestBuildCachesTokenReviews(t *testing.T) {
	t.Parallel()
	const tok = "projected-service-account-token"
	calls := 0
	g, err := clientauth.Build(clientauth.Spec{Resource: resource, AuthorizationServers: []string{issuer}, TokenReview: true},
		countingReviews{reviews{token: tok}, &calls}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	h := g.Handler(whoami)
	for range 3 {
		if got := call(t, h, "/mcp", bearer(tok)); got.code != http.StatusOK {
			t.Fatalf("got %d %q", got.code, got.body)
		}
	}
	if calls != 1 {
		t.Fatalf("%d TokenReview calls for three requests, want 1", calls)
	}
}
