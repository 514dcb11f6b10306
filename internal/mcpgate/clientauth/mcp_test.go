package clientauth_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
	"github.com/toolgate/toolgate/internal/tokenfile"
)

// withToken adds a bearer token to every request.
type withToken struct {
	token string
	next  http.RoundTripper
}

func (t withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(r)
}

type whoamiOut struct {
	UserID string `json:"userID"`
}

// TestSDKClientThroughTheGate: the MCP Go SDK's own server behind the gate
// and its own client in front: without a token the client cannot connect;
// with one it calls a tool whose handler sees the verified user in the
// SDK's TokenInfo; and the SDK binds the session to that user, so another
// client's valid token cannot use the session (403).
func TestSDKClientThroughTheGate(t *testing.T) {
	t.Parallel()
	const alice, bob = "alice-token-0123456789abcdef", "bob-token-0123456789abcdef0"
	tab, err := tokenfile.New([]tokenfile.Entry{{Token: alice, Name: "alice"}, {Token: bob, Name: "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := clientauth.NewTokenFileVerifier(tab)
	if err != nil {
		t.Fatal(err)
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoamiOut, error) {
		if req.Extra == nil || req.Extra.TokenInfo == nil {
			return nil, whoamiOut{}, nil
		}
		return nil, whoamiOut{UserID: req.Extra.TokenInfo.UserID}, nil
	})
	srv := httptest.NewUnstartedServer(nil)
	resourceURI := "http://" + srv.Listener.Addr().(*net.TCPAddr).String() + "/mcp"
	gate, err := clientauth.New(clientauth.Config{Resource: resourceURI, AuthorizationServers: []string{issuer}}, v, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = gate.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv.Start()
	defer srv.Close()

	connect := func(token string) (*mcp.ClientSession, error) {
		hc := &http.Client{Transport: http.DefaultTransport}
		if token != "" {
			hc.Transport = withToken{token: token, next: http.DefaultTransport}
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
		return client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: resourceURI, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	}

	if cs, err := connect(""); err == nil {
		_ = cs.Close()
		t.Fatal("a client without a token connected")
	}
	cs, err := connect(alice)
	if err != nil {
		t.Fatalf("a client with a token: %v", err)
	}
	defer func() { _ = cs.Close() }()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	if got, _ := res.StructuredContent.(map[string]any)["userID"].(string); got != clientauth.IssuerTokenFile+" alice" {
		t.Fatalf("the tool saw user %q", got)
	}

	req, err := http.NewRequest(http.MethodPost, resourceURI, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+bob)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another user's token on alice's session: %d, want 403", resp.StatusCode)
	}
}
