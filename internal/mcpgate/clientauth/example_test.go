package clientauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-logr/logr"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
	"github.com/toolgate/toolgate/internal/tokenfile"
)

// The gateway puts the Gate's Handler in front of its MCP handler: the
// metadata is public, everything else needs a verified bearer token.
func ExampleGate_Handler() {
	table, err := tokenfile.New([]tokenfile.Entry{{Token: "example-token-0123456789abcdef", Name: "system:serviceaccount:payments:agent"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	verifier, err := clientauth.NewTokenFileVerifier(table)
	if err != nil {
		fmt.Println(err)
		return
	}
	gate, err := clientauth.New(clientauth.Config{
		Resource:             "https://gateway.example.com/mcp",
		AuthorizationServers: []string{"https://issuer.example.com"},
	}, verifier, logr.Discard())
	if err != nil {
		fmt.Println(err)
		return
	}
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := clientauth.IdentityFrom(r.Context())
		fmt.Fprintln(w, id.Subject)
	})
	h := gate.Handler(mcp)

	for _, token := range []string{"", "example-token-0123456789abcdef"} {
		req := httptest.NewRequest(http.MethodPost, "https://gateway.example.com/mcp", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body.String())
	}
	// Output:
	// 401 Bearer resource_metadata="https://gateway.example.com/.well-known/oauth-protected-resource/mcp" missing_token
	//
	// 200  system:serviceaccount:payments:agent
}

// A JWT verifier for an authorization server: tokens must name the
// gateway's resource as audience and be signed with a pinned algorithm by
// a key of the issuer's JWKS.
func ExampleNewJWTVerifier() {
	_, err := clientauth.NewJWTVerifier(clientauth.JWTConfig{
		Issuer:     "https://issuer.example.com",
		Audience:   "https://gateway.example.com/mcp",
		JWKSURL:    "https://issuer.example.com/.well-known/jwks.json",
		Algorithms: []string{"RS256", "ES256"},
		Leeway:     30 * time.Second,
	})
	fmt.Println(err)
	_, err = clientauth.NewJWTVerifier(clientauth.JWTConfig{
		Issuer:     "https://issuer.example.com",
		Audience:   "https://gateway.example.com/mcp",
		JWKSURL:    "https://issuer.example.com/.well-known/jwks.json",
		Algorithms: []string{"HS256"},
	})
	fmt.Println(err)
	// Output:
	// <nil>
	// clientauth: invalid_config at jwt.algorithms[0]: not a public-key JWS algorithm this verifier accepts
}

// In cluster, the TokenReview API vouches for projected ServiceAccount
// tokens requested for the gateway's resource; here a stand-in API that
// knows one token (client-go's AuthenticationV1().TokenReviews() in the
// gateway).
func ExampleNewTokenReviewVerifier() {
	v, err := clientauth.NewTokenReviewVerifier(reviews{token: "projected-token"}, "https://gateway.example.com/mcp")
	if err != nil {
		fmt.Println(err)
		return
	}
	id, err := v.Verify(context.Background(), "projected-token")
	fmt.Println(id.Issuer, id.Subject, id.Audience, err)
	_, err = v.Verify(context.Background(), "another-token")
	fmt.Println(err)
	// Output:
	// urn:toolgate:kubernetes-tokenreview system:serviceaccount:payments:agent [https://gateway.example.com/mcp] <nil>
	// clientauth: unknown_token: the TokenReview API did not authenticate the token
}

// The gateway's configuration carries a Spec; Build makes the Gate with
// exactly one verifier (here the standalone token file).
func ExampleBuild() {
	gate, err := clientauth.Build(clientauth.Spec{
		Resource:             "https://gateway.example.com/mcp",
		AuthorizationServers: []string{"https://issuer.example.com"},
		TokenFile:            "../../../examples/standalone/tokens.yaml",
	}, nil, logr.Discard())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(gate.MetadataURL())
	fmt.Println(gate.MetadataPaths())
	// Output:
	// https://gateway.example.com/.well-known/oauth-protected-resource/mcp
	// [/.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource]
}
