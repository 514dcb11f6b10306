package mcpgate

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

const testIssuer = "https://issuer.example.com"

// bearer adds one bearer token to every request, and nothing else: the
// agent side is the official SDK client with a stock HTTP client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// authFixture is the gateway fixture with clientAuth: JWTs of testIssuer,
// whose JWKS is served over TLS, for the gateway's own URL as audience.
type authFixture struct {
	*fixture
	srv      *httptest.Server
	resource string
	key      *ecdsa.PrivateKey
}

func newAuthFixture(t *testing.T) *authFixture {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		pub := jose.JSONWebKey{Key: key, KeyID: "k1", Algorithm: "ES256", Use: "sig"}
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub.Public()}})
	}))
	t.Cleanup(jwks.Close)
	ca := filepath.Join(t.TempDir(), "jwks-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: jwks.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	resource := "http://" + srv.Listener.Addr().(*net.TCPAddr).String() + "/mcp"
	f := newFixture(t, func(c *Config) {
		c.ClientAuth = &clientauth.Spec{Resource: resource, AuthorizationServers: []string{testIssuer},
			JWT: &clientauth.JWTSpec{Issuer: testIssuer, JWKSURL: jwks.URL + "/jwks", Algorithms: []string{"ES256"}, CAFile: ca}}
	})
	f.g.Refresh(context.Background())
	srv.Config.Handler = f.g.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return &authFixture{fixture: f, srv: srv, resource: resource, key: key}
}

// token mints an access token of agent-7 for audience.
func (a *authFixture) token(t *testing.T, audience string) string {
	t.Helper()
	return a.tokenOf(t, "agent-7", audience)
}

func (a *authFixture) tokenOf(t *testing.T, subject, audience string) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: a.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Issuer: testIssuer, Subject: subject, Audience: jwt.Audience{audience},
		Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute))}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (a *authFixture) connect(token, version string) (*mcp.ClientSession, error) {
	hc := &http.Client{Transport: http.DefaultTransport}
	if token != "" {
		hc.Transport = bearer{token: token, next: http.DefaultTransport}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.resource, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
}

// TestAClientIsAdmittedOnlyWithAVerifiedTokenForTheGateway: the official
// SDK client, its HTTP client adding only a bearer token, under both
// protocol versions: a valid token for the gateway's resource URI lists
// and calls the tool (and the call path sees who the client is); no token,
// or a valid token for another audience, is answered 401 with a challenge
// naming the RFC 9728 metadata, which is served at its well-known path; and
// no log line holds a token.
func TestAClientIsAdmittedOnlyWithAVerifiedTokenForTheGateway(t *testing.T) {
	a := newAuthFixture(t)
	good := a.token(t, a.resource)
	foreign := a.token(t, "https://other.example.com/mcp")
	metadataURL := strings.Replace(a.resource, "/mcp", clientauth.WellKnownPath+"/mcp", 1)

	for _, version := range []string{ProtocolStateless, ProtocolSessions} {
		t.Run("a valid token under "+version, func(t *testing.T) {
			cs, err := a.connect(good, version)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer func() { _ = cs.Close() }()
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(tools.Tools) != 1 {
				t.Fatalf("tools/list: %v %+v", err, tools)
			}
			calls := a.calls.Load()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "submit_payment",
				Arguments: map[string]any{"amount": 1, "currency": "eur", "debtor-account": "a", "creditor-account": "b"},
				Meta:      mcp.Meta{MetaKey: map[string]any{"artifact": "a"}}})
			if err != nil || res.IsError || a.calls.Load() != calls+1 {
				t.Fatalf("an authorized call: %v %+v, %d upstream calls", err, res, a.calls.Load()-calls)
			}
			// A refused call's log line names the verified client.
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "submit_payment", Arguments: map[string]any{}})
			if err != nil || !res.IsError {
				t.Fatalf("a call without an Authorization: %v %+v", err, res)
			}
			if !strings.Contains(a.logs.String(), "clientSubject=agent-7") || !strings.Contains(a.logs.String(), "clientIssuer="+testIssuer) {
				t.Fatalf("the call path did not see the verified client:\n%s", a.logs.String())
			}
			if version == ProtocolSessions {
				// The session is bound to agent-7: another client's
				// valid token cannot use it.
				req, _ := http.NewRequest(http.MethodPost, a.resource, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
				req.Header.Set("Authorization", "Bearer "+a.tokenOf(t, "agent-8", a.resource))
				req.Header.Set("Mcp-Session-Id", cs.ID())
				req.Header.Set("Mcp-Protocol-Version", version)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusForbidden {
					t.Fatalf("agent-8's token on agent-7's session: %d, want 403", resp.StatusCode)
				}
			}
		})
	}

	for name, token := range map[string]string{"no token": "", "a token for another audience": foreign} {
		t.Run(name, func(t *testing.T) {
			if cs, err := a.connect(token, ProtocolSessions); err == nil {
				_ = cs.Close()
				t.Fatal("the SDK client connected")
			}
			calls, consumes := a.calls.Load(), a.consumes.Load()
			req, _ := http.NewRequest(http.MethodPost, a.resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			challenge := resp.Header.Get("WWW-Authenticate")
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+metadataURL+`"`) {
				t.Fatalf("%d %q, want 401 naming %s", resp.StatusCode, challenge, metadataURL)
			}
			if token != "" && !strings.Contains(challenge, `error="invalid_token"`) {
				t.Fatalf("challenge %q: want invalid_token", challenge)
			}
			if a.calls.Load() != calls || a.consumes.Load() != consumes {
				t.Fatal("an unauthenticated request reached the service or the upstream")
			}
		})
	}

	t.Run("the metadata at its well-known path", func(t *testing.T) {
		resp, err := http.Get(metadataURL)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var m struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %v", resp.StatusCode, err)
		}
		if m.Resource != a.resource || len(m.AuthorizationServers) != 1 || m.AuthorizationServers[0] != testIssuer {
			t.Fatalf("metadata %+v", m)
		}
	})

	t.Run("the probes stay open", func(t *testing.T) {
		resp, err := http.Get(a.srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/healthz %d", resp.StatusCode)
		}
	})

	for _, tok := range []string{good, foreign} {
		if strings.Contains(a.logs.String(), tok) || strings.Contains(a.logs.String(), tok[strings.LastIndexByte(tok, '.')+1:]) {
			t.Fatal("a log line holds a token")
		}
	}
}
