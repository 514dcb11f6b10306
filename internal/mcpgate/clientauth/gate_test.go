package clientauth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
	"github.com/toolgate/toolgate/internal/tokenfile"
)

const metadataURL = "https://gateway.example.com/.well-known/oauth-protected-resource/mcp"

// whoami answers with the identity and the SDK's TokenInfo the middleware
// put in the request's context.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	id, ok := clientauth.IdentityFrom(r.Context())
	ti := auth.TokenInfoFromContext(r.Context())
	if !ok || ti == nil {
		http.Error(w, "no identity", http.StatusInternalServerError)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"subject": id.Subject, "issuer": id.Issuer, "userID": ti.UserID})
})

// logBuffer is a logr sink that keeps every line, at every verbosity.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.buf.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 10})
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newGate(t testing.TB, v clientauth.Verifier, log logr.Logger, scopes ...string) *clientauth.Gate {
	t.Helper()
	g, err := clientauth.New(clientauth.Config{
		Resource: resource, AuthorizationServers: []string{issuer}, Scopes: scopes, ResourceName: "toolgate MCP gateway",
	}, v, log)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type response struct {
	code      int
	challenge string
	body      string
}

func call(t *testing.T, h http.Handler, path string, header http.Header) response {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), body: string(b)}
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

// TestMiddlewareAnswersAsRFC6750Asks: a missing token answers 401 with a
// challenge naming the metadata and no error code; an invalid one 401
// invalid_token; a missing scope 403 insufficient_scope; a malformed
// request 400 invalid_request; a verifier that cannot vouch 503 without a
// challenge; a valid token reaches the handler with its identity.
func TestMiddlewareAnswersAsRFC6750Asks(t *testing.T) {
	t.Parallel()
	key := newECKey(t, "key-1")
	keys := newIssuerKeys(t, key.public())
	v := newVerifier(t, keys)
	valid := sign(t, key, good())
	expired := good()
	expired.Expiry = base.Add(-time.Hour).Unix()
	down := newIssuerKeys(t, key.public())
	down.down.Store(true)

	meta := `resource_metadata="` + metadataURL + `"`
	tests := []struct {
		name          string
		verifier      clientauth.Verifier
		scopes        []string
		header        http.Header
		path          string
		wantCode      int
		wantChallenge string
	}{
		{"a valid token reaches the handler", v, nil, bearer(valid), "/mcp", http.StatusOK, ""},
		{"a valid token with the required scope reaches the handler", v, []string{"mcp:tools"}, bearer(valid), "/mcp", http.StatusOK, ""},
		{"a missing token answers 401 naming the metadata", v, nil, nil, "/mcp", http.StatusUnauthorized, "Bearer " + meta},
		{"a missing token answers 401 with the required scope", v, []string{"mcp:tools"}, nil, "/mcp", http.StatusUnauthorized, "Bearer " + meta + `, scope="mcp:tools"`},
		{"a Basic credential answers as a missing token", v, nil, http.Header{"Authorization": {"Basic YTpi"}}, "/mcp", http.StatusUnauthorized, "Bearer " + meta},
		{"an expired token answers 401 invalid_token", v, nil, bearer(sign(t, key, expired)), "/mcp", http.StatusUnauthorized, "Bearer " + meta + `, error="invalid_token", error_description="expired"`},
		{"a missing scope answers 403 insufficient_scope", v, []string{"mcp:admin"}, bearer(valid), "/mcp", http.StatusForbidden, "Bearer " + meta + `, error="insufficient_scope", scope="mcp:admin"`},
		{"two Authorization headers answer 400 invalid_request", v, nil, http.Header{"Authorization": {"Bearer " + valid, "Bearer " + valid}}, "/mcp", http.StatusBadRequest, "Bearer " + meta + `, error="invalid_request"`},
		{"a token in the query answers 400 invalid_request", v, nil, bearer(valid), "/mcp?access_token=x", http.StatusBadRequest, "Bearer " + meta + `, error="invalid_request"`},
		{"a credential that is not a b64token answers 400", v, nil, bearer("a b"), "/mcp", http.StatusBadRequest, "Bearer " + meta + `, error="invalid_request"`},
		{"an unreachable JWKS answers 503 without a challenge", newVerifier(t, down), nil, bearer(valid), "/mcp", http.StatusServiceUnavailable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := call(t, newGate(t, tt.verifier, logr.Discard(), tt.scopes...).Handler(whoami), tt.path, tt.header)
			if got.code != tt.wantCode || got.challenge != tt.wantChallenge {
				t.Fatalf("got %d %q, want %d %q (body %q)", got.code, got.challenge, tt.wantCode, tt.wantChallenge, got.body)
			}
			if got.code == http.StatusOK && !strings.Contains(got.body, `"subject":"user-1"`) {
				t.Errorf("body %q lacks the identity", got.body)
			}
		})
	}
}

// TestMetadataDocument: the RFC 9728 document is served at the
// path-suffixed well-known URI and at the root form, and names the
// canonical resource, the authorization servers, the supported scopes and
// the header bearer method; the challenge's URL is the path-suffixed one.
func TestMetadataDocument(t *testing.T) {
	t.Parallel()
	g := newGate(t, fileVerifier(t), logr.Discard(), "mcp:tools")
	if g.MetadataURL() != metadataURL {
		t.Errorf("MetadataURL = %q, want %q", g.MetadataURL(), metadataURL)
	}
	want := map[string]any{
		"resource":                 resource,
		"authorization_servers":    []any{issuer},
		"scopes_supported":         []any{"mcp:tools"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "toolgate MCP gateway",
	}
	srv := httptest.NewServer(g.Handler(whoami))
	defer srv.Close()
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		err = json.NewDecoder(resp.Body).Decode(&got)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, diff)
		}
	}
}

// TestMetadataPathOfARootResource: a resource without a path has its
// metadata at the well-known path alone.
func TestMetadataPathOfARootResource(t *testing.T) {
	t.Parallel()
	g, err := clientauth.New(clientauth.Config{Resource: "https://gateway.example.com", AuthorizationServers: []string{issuer}}, fileVerifier(t), logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/.well-known/oauth-protected-resource"}, g.MetadataPaths()); diff != "" {
		t.Error(diff)
	}
	if g.MetadataURL() != "https://gateway.example.com/.well-known/oauth-protected-resource" {
		t.Errorf("MetadataURL = %q", g.MetadataURL())
	}
}

// TestConfigRejectsEveryErrorAtOnce: a non-canonical resource, no
// authorization server, a plain-http one, a bad scope and no verifier are
// each reported at their field in one error.
func TestConfigRejectsEveryErrorAtOnce(t *testing.T) {
	t.Parallel()
	_, err := clientauth.New(clientauth.Config{Resource: "https://Gateway.example.com/mcp#x", Scopes: []string{"a b"}}, nil, logr.Discard())
	for _, field := range []string{"resource", "authorizationServers", "scopes[0]", "verifier"} {
		if !errors.Is(err, &clientauth.Error{Reason: clientauth.ReasonInvalidConfig, Field: field}) {
			t.Errorf("no error at %s in %v", field, err)
		}
	}
	for _, res := range []string{"http://gateway.example.com/mcp", "https://gateway.example.com/{mcp}", "https://gateway.example.com/m%20cp", "https://gateway.example.com/mcp/", "https://gateway.example.com/mcp?x=1", "https://u@gateway.example.com/mcp", "gateway.example.com/mcp", ""} {
		_, err := clientauth.New(clientauth.Config{Resource: res, AuthorizationServers: []string{issuer}}, fileVerifier(t), logr.Discard())
		if !errors.Is(err, &clientauth.Error{Reason: clientauth.ReasonInvalidConfig, Field: "resource"}) {
			t.Errorf("resource %q: %v", res, err)
		}
	}
	_, err = clientauth.New(clientauth.Config{Resource: "http://127.0.0.1:8080/mcp", AuthorizationServers: []string{"http://issuer.example.com"}}, fileVerifier(t), logr.Discard())
	if !errors.Is(err, &clientauth.Error{Reason: clientauth.ReasonInvalidConfig, Field: "authorizationServers[0]"}) || errors.Is(err, &clientauth.Error{Reason: clientauth.ReasonInvalidConfig, Field: "resource"}) {
		t.Errorf("a loopback http resource is accepted, a plain-http issuer is not: %v", err)
	}
}

const fileToken = "clientauth-file-token-0123456789"

func fileVerifier(t *testing.T) *clientauth.TokenFileVerifier {
	t.Helper()
	tab, err := tokenfile.New([]tokenfile.Entry{{Token: fileToken, Name: "system:serviceaccount:payments:agent", Groups: []string{"agents"}}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := clientauth.NewTokenFileVerifier(tab)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTokenFileVerifier: a listed token yields its caller as subject and
// groups; an unlisted one rejects as unknown_token.
func TestTokenFileVerifier(t *testing.T) {
	t.Parallel()
	v := fileVerifier(t)
	id, err := v.Verify(context.Background(), fileToken)
	want := clientauth.Identity{Issuer: clientauth.IssuerTokenFile, Subject: "system:serviceaccount:payments:agent", Groups: []string{"agents"}}
	if err != nil || !cmp.Equal(id, want) {
		t.Fatalf("Verify = %+v, %v", id, err)
	}
	if _, err := v.Verify(context.Background(), fileToken+"x"); reasonOf(err) != clientauth.ReasonUnknownToken {
		t.Fatalf("an unlisted token: %v", err)
	}
}

// reviews is a TokenReview API that authenticates one token for the
// audiences it is asked about, or only for another audience, or fails.
type reviews struct {
	token     string
	audiences []string // nil: echo the requested ones
	fail      bool
}

func (r reviews) Create(_ context.Context, tr *authnv1.TokenReview, _ metav1.CreateOptions) (*authnv1.TokenReview, error) {
	if r.fail {
		return nil, errors.New("apiserver said: token " + tr.Spec.Token + " is odd")
	}
	out := tr.DeepCopy()
	if tr.Spec.Token != r.token {
		out.Status = authnv1.TokenReviewStatus{Error: "invalid bearer token"}
		return out, nil
	}
	aud := r.audiences
	if aud == nil {
		aud = tr.Spec.Audiences
	}
	out.Status = authnv1.TokenReviewStatus{Authenticated: true, Audiences: aud,
		User: authnv1.UserInfo{Username: "system:serviceaccount:payments:agent", Groups: []string{"system:serviceaccounts"}}}
	return out, nil
}

// TestTokenReviewVerifier: the API is asked about the gateway's resource
// as audience; an authenticated answer for it yields the user; an
// unauthenticated one, one for another audience and a failed call reject.
func TestTokenReviewVerifier(t *testing.T) {
	t.Parallel()
	const tok = "projected-service-account-token"
	tests := []struct {
		name string
		api  reviews
		want clientauth.Reason
	}{
		{"an authenticated token for the resource is accepted", reviews{token: tok}, ""},
		{"an unauthenticated token rejects", reviews{token: "another"}, clientauth.ReasonUnknownToken},
		{"a token for another audience rejects", reviews{token: tok, audiences: []string{"toolgate"}}, clientauth.ReasonAudience},
		{"a failed review fails closed without echoing the token", reviews{fail: true}, clientauth.ReasonUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := clientauth.NewTokenReviewVerifier(tt.api, resource)
			if err != nil {
				t.Fatal(err)
			}
			id, err := v.Verify(context.Background(), tok)
			if reasonOf(err) != tt.want || (tt.want == "") != (err == nil) {
				t.Fatalf("Verify: %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), tok) {
				t.Error("the error echoes the token")
			}
			if tt.want == "" && (id.Subject != "system:serviceaccount:payments:agent" || id.Issuer != clientauth.IssuerTokenReview || !cmp.Equal(id.Audience, []string{resource})) {
				t.Errorf("identity = %+v", id)
			}
		})
	}
}

// TestNoTokenInLogsOrErrors: across every rejection and acceptance of the
// gate, at every log verbosity, no token appears in a log line, a response
// body, a response header or an error's text.
func TestNoTokenInLogsOrErrors(t *testing.T) {
	t.Parallel()
	key := newECKey(t, "key-1")
	keys := newIssuerKeys(t, key.public())
	v := newVerifier(t, keys)
	expired := good()
	expired.Expiry = base.Add(-time.Hour).Unix()
	wrongAud := good()
	wrongAud.Audience = []string{"https://other.example.com"}
	stranger := newECKey(t, "key-unknown")
	tokens := []string{
		sign(t, key, good()), sign(t, key, expired), sign(t, key, wrongAud), sign(t, stranger, good()),
		tamper(sign(t, key, good())), "secret-looking-opaque-token-0123456789",
	}
	var logs logBuffer
	h := newGate(t, v, logs.logger(), "mcp:admin").Handler(whoami)
	var seen strings.Builder
	for _, tok := range tokens {
		got := call(t, h, "/mcp", bearer(tok))
		if got.code == http.StatusOK {
			t.Fatalf("a token passed a gate that requires a scope no token has")
		}
		seen.WriteString(got.body + got.challenge)
		if _, err := v.Verify(context.Background(), tok); err != nil {
			seen.WriteString(err.Error())
		}
	}
	if !strings.Contains(logs.String(), "reason") {
		t.Fatalf("nothing was logged: the check cannot fail (log %q)", logs.String())
	}
	for i, tok := range tokens {
		sig := tok[strings.LastIndex(tok, ".")+1:]
		for what, text := range map[string]string{"the log": logs.String(), "a response or error": seen.String()} {
			if strings.Contains(text, tok) || len(sig) > 8 && strings.Contains(text, sig) {
				t.Errorf("token %d appears in %s", i, what)
			}
		}
	}
}
