package mcpgate

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
	"github.com/toolgate/toolgate/internal/standalone/standalonetest"
	"github.com/toolgate/toolgate/internal/testutil"
)

const hostGatewayToken = "host-gateway-token-0123456789abcdef"

// hostFixture is a Host-mode gateway in process in front of an SDK
// upstream with the sample's three tools, authorizing and consuming at a
// real toolgate service serving examples/mcp-host-mode/manifests, its
// clients authenticated by JWTs of testIssuer.
type hostFixture struct {
	g        *Gateway
	resource string
	key      *ecdsa.PrivateKey
	outcomes string
	logs     testutil.SyncBuffer

	mu       sync.Mutex
	executed []string // "tool arguments" of every call the upstream ran
}

// newHostFixture builds the fixture; a service handler, if given, stands
// in for the real service.
func newHostFixture(t *testing.T, service ...http.Handler) *hostFixture {
	t.Helper()
	f := &hostFixture{}
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	store, err := boltstore.Open(filepath.Join(dir, "store"), boltstore.Options{SweepInterval: -1, CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	h, err := standalonetest.Service(filepath.Join(dir, "keys"), filepath.Join(root, "examples", "mcp-host-mode", "manifests"))(
		store, time.Now, map[string]string{hostGatewayToken: "system:serviceaccount:coding:host-gateway"})
	if err != nil {
		t.Fatal(err)
	}
	if len(service) > 0 {
		h = service[0]
	}
	svc := httptest.NewServer(h)
	t.Cleanup(svc.Close)

	f.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		pub := jose.JSONWebKey{Key: f.key, KeyID: "k1", Algorithm: "ES256", Use: "sig"}
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub.Public()}})
	}))
	t.Cleanup(jwks.Close)
	ca := filepath.Join(dir, "jwks-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: jwks.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	f.resource = "http://" + srv.Listener.Addr().(*net.TCPAddr).String() + "/mcp"

	// The sample's gateway configuration, with the test's service, token,
	// outcome log and issuer.
	cfg, err := LoadConfig(filepath.Join(root, "examples", "mcp-host-mode", "gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Toolgate = Endpoint{URL: svc.URL, TokenFile: filepath.Join(dir, "token")}
	cfg.OutcomeLog = filepath.Join(dir, "outcomes.jsonl")
	cfg.ClientAuth = &clientauth.Spec{Resource: f.resource, AuthorizationServers: []string{testIssuer},
		JWT: &clientauth.JWTSpec{Issuer: testIssuer, JWKSURL: jwks.URL + "/jwks", Algorithms: []string{"ES256"}, CAFile: ca}}
	for i := range cfg.Host.Identity.Subjects {
		cfg.Host.Identity.Subjects[i].Issuer = testIssuer
	}
	up := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1"}, nil)
	for _, m := range cfg.Tools {
		name := m.Name
		up.AddTool(&mcp.Tool{Name: name, Description: m.Definition.Description, InputSchema: m.Definition.InputSchema},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				f.mu.Lock()
				f.executed = append(f.executed, name+" "+string(req.Params.Arguments))
				f.mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			})
	}
	if errs := cfg.check(); len(errs) > 0 {
		t.Fatalf("the fixture's configuration: %v", errors.Join(errs...))
	}
	if err := os.WriteFile(cfg.Toolgate.TokenFile, []byte(hostGatewayToken), 0o600); err != nil {
		t.Fatal(err)
	}
	f.outcomes = cfg.OutcomeLog
	ctx := context.Background()
	f.g, err = New(cfg, Options{Logger: slog.New(slog.NewTextHandler(&f.logs, nil)), Connect: func() mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := up.Connect(ctx, st, nil); err != nil {
			t.Error(err)
		}
		return ct
	}})
	if err != nil {
		t.Fatal(err)
	}
	f.g.Refresh(ctx)
	srv.Config.Handler = f.g.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return f
}

// token is an access token of subject for the gateway.
func (f *hostFixture) token(t *testing.T, subject string) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: f.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Issuer: testIssuer, Subject: subject, Audience: jwt.Audience{f.resource},
		Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute))}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// connect is the official SDK client whose HTTP client adds only a bearer
// token: no toolgate code on the client side.
func (f *hostFixture) connect(t *testing.T, token, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "unmodified", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.resource, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func (f *hostFixture) executions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.executed...)
}

// records reads the outcome log.
func (f *hostFixture) records(t *testing.T) []Record {
	t.Helper()
	fh, err := os.Open(f.outcomes)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fh.Close() }()
	var out []Record
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func refusalCode(res *mcp.CallToolResult) string {
	m, _ := res.Meta[RefusalMetaKey].(map[string]any)
	code, _ := m["code"].(string)
	return code
}

func callTool(t *testing.T, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// TestHostModeAuthorizesAnUnmodifiedClientsCallsUnderThePolicy: the
// official SDK client with only a bearer token, under both protocol
// versions, against the gateway in Host mode and the real service serving
// examples/mcp-host-mode: a read is allowed and executed once; a write
// outside /workspace, or climbing out of it, is refused deny before the
// upstream; a write under /workspace is executed exactly once; a payment
// is never made; the same call twice is two Authorizations and two
// executions, each consumed once; an Authorization the client attaches is
// refused; no log holds the token or an argument value.
func TestHostModeAuthorizesAnUnmodifiedClientsCallsUnderThePolicy(t *testing.T) {
	f := newHostFixture(t)
	token := f.token(t, "user:alice@example.com")
	for _, version := range []string{ProtocolStateless, ProtocolSessions} {
		t.Run(version, func(t *testing.T) {
			cs := f.connect(t, token, version)
			t.Run("an allowed read is executed once", func(t *testing.T) {
				before := len(f.executions())
				res := callTool(t, cs, "read_text_file", `{"path":"/workspace/notes.txt","head":10}`)
				if res.IsError || len(f.executions()) != before+1 {
					t.Fatalf("refusal %q, %d executions; want one execution", refusalCode(res), len(f.executions())-before)
				}
			})
			for _, tc := range []struct{ rule, args string }{
				{"a write outside /workspace matches no allow rule", `{"path":"/etc/passwd","content":"x"}`},
				{"a write climbing out of /workspace is indeterminate", `{"path":"/workspace/../etc/passwd","content":"x"}`},
			} {
				t.Run(tc.rule+" and is refused deny before the upstream", func(t *testing.T) {
					before := len(f.executions())
					res := callTool(t, cs, "write_file", tc.args)
					if code := refusalCode(res); code != RefusalDeny || len(f.executions()) != before {
						t.Fatalf("refusal %q, %d executions; want deny and none", code, len(f.executions())-before)
					}
				})
			}
			t.Run("a payment is never made", func(t *testing.T) {
				before := len(f.executions())
				res := callTool(t, cs, "submit_payment", `{"amount":100}`)
				text := res.Content[0].(*mcp.TextContent).Text
				if code := refusalCode(res); code != RefusalDeny || !strings.Contains(text, "denyRuleMatched") || len(f.executions()) != before {
					t.Fatalf("refusal %q (%s), %d executions; want deny (denyRuleMatched) and none", code, text, len(f.executions())-before)
				}
			})
			t.Run("an allowed write is executed exactly once, and the same call again is a new Authorization", func(t *testing.T) {
				before, recs := len(f.executions()), len(f.records(t))
				args := `{"path":"/workspace/a.txt","content":"hello\nworld\n"}`
				for range 2 {
					if res := callTool(t, cs, "write_file", args); res.IsError {
						t.Fatalf("refused %q", refusalCode(res))
					}
				}
				got := f.executions()[before:]
				if len(got) != 2 || got[0] != "write_file "+args || got[1] != got[0] {
					t.Fatalf("executions %q; want the exact call twice", got)
				}
				var consumed []string
				for _, r := range f.records(t)[recs:] {
					if r.Event == "consumed" {
						consumed = append(consumed, r.AuthorizationID)
					}
				}
				if len(consumed) != 2 || consumed[0] == consumed[1] {
					t.Fatalf("consumed Authorizations %q; want two distinct ones", consumed)
				}
			})
			t.Run("an Authorization attached by the client is refused", func(t *testing.T) {
				before := len(f.executions())
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: json.RawMessage(`{"path":"/workspace/notes.txt"}`),
					Meta: mcp.Meta{MetaKey: map[string]any{"artifact": "a"}}})
				if err != nil {
					t.Fatal(err)
				}
				if code := refusalCode(res); code != RefusalUnexpectedAuthorization || len(f.executions()) != before {
					t.Fatalf("refusal %q, %d executions; want %s and none", code, len(f.executions())-before, RefusalUnexpectedAuthorization)
				}
			})
		})
	}
	t.Run("a client outside the reviewed mapping is refused identityUnmapped", func(t *testing.T) {
		cs := f.connect(t, f.token(t, "user:mallory@example.com"), ProtocolStateless)
		before := len(f.executions())
		if code := refusalCode(callTool(t, cs, "read_text_file", `{"path":"/workspace/notes.txt","head":10}`)); code != RefusalIdentityUnmapped || len(f.executions()) != before {
			t.Fatalf("refusal %q; want %s and no execution", code, RefusalIdentityUnmapped)
		}
	})
	t.Run("no log line holds the token or an argument value", func(t *testing.T) {
		logs := f.logs.String()
		for _, secret := range []string{token, "/etc/passwd", "hello", "/workspace/a.txt"} {
			if strings.Contains(logs, secret) {
				t.Errorf("the gateway's log holds %q", secret)
			}
		}
		raw, err := os.ReadFile(f.outcomes)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "/workspace") || strings.Contains(string(raw), "hello") {
			t.Error("the outcome log holds an argument value")
		}
	})
}

// TestHostModeRefusesAClientWithoutATokenWith401: without a bearer token
// nothing reaches the service or the upstream; the answer is 401 naming
// the protected resource metadata.
func TestHostModeRefusesAClientWithoutATokenWith401(t *testing.T) {
	f := newHostFixture(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/workspace/notes.txt"}}}`
	req, err := http.NewRequest(http.MethodPost, f.resource, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("status %d, challenge %q; want 401 naming the metadata", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if len(f.executions()) != 0 {
		t.Fatal("a call without a token reached the upstream")
	}
}

// TestHostModeRefusesEveryDecisionButAnIssuedAllow: a requireConfirmation
// or deny Decision, an allow without an Authorization and a service that
// does not answer are refusals naming the outcome (and its reason tokens),
// and nothing is consumed or executed.
func TestHostModeRefusesEveryDecisionButAnIssuedAllow(t *testing.T) {
	var answer atomic.Value
	var consumes atomic.Int64
	svc := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/consume" {
			consumes.Add(1)
		}
		a := answer.Load().([2]string)
		if a[0] != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write([]byte(a[1]))
	})
	f := newHostFixture(t, svc)
	cs := f.connect(t, f.token(t, "user:alice@example.com"), ProtocolStateless)
	for _, tc := range []struct {
		rule, status, body, code, text string
	}{
		{"a requireConfirmation Decision is refused requireConfirmation", "",
			`{"decision":{"id":"d","outcome":"requireConfirmation","reasons":["confirmationRuleMatched"],"matchedRules":["r"],"capabilities":[],"resources":[],"obligations":[]}}`,
			RefusalRequireConfirmation, "confirmationRuleMatched"},
		{"a deny Decision is refused deny", "",
			`{"decision":{"id":"d","outcome":"deny","reasons":["noAllowRuleMatched"],"matchedRules":[],"capabilities":[],"resources":[],"obligations":[]}}`,
			RefusalDeny, "noAllowRuleMatched"},
		{"an allow without an Authorization is refused ineligible", "",
			`{"decision":{"id":"d","outcome":"allow","reasons":["allowRuleMatched"],"matchedRules":["r"],"capabilities":["data.read"],"resources":[],"obligations":[]}}`,
			RefusalIneligible, "allowRuleMatched"},
		{"a service that cannot answer is refused unavailable", "503",
			`{"error":{"code":"unavailable","path":"","message":"store"}}`, "unavailable", ""},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			answer.Store([2]string{tc.status, tc.body})
			res := callTool(t, cs, "read_text_file", `{"path":"/workspace/notes.txt"}`)
			text := res.Content[0].(*mcp.TextContent).Text
			if code := refusalCode(res); code != tc.code || !strings.Contains(text, tc.text) {
				t.Fatalf("refusal %q (%s); want %s naming %q", code, text, tc.code, tc.text)
			}
			if consumes.Load() != 0 || len(f.executions()) != 0 {
				t.Fatalf("%d consumes, %d executions; want none", consumes.Load(), len(f.executions()))
			}
		})
	}
}
