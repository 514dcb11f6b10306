package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

const (
	codingAgentToken = "coding-agent-token-0123456789abcdef"
	gatewayToken     = "fs-gateway-token-0123456789abcdef"
)

// newFilesService serves examples/mcp-filesystem: a write_file tool whose
// definition carries an argument profile.
func newFilesService(t *testing.T, keyDir string) *service {
	t.Helper()
	root := testutil.RepoRoot(t)
	domains, err := standalone.Load(keyDir, filepath.Join(root, "examples", "mcp-filesystem", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		t.Fatal(err)
	}
	tokens, err := server.NewTokens([]server.TokenEntry{
		{Token: codingAgentToken, Name: "system:serviceaccount:workspace:coding-agent-runtime"},
		{Token: gatewayToken, Name: "system:serviceaccount:workspace:filesystem-gateway"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := &service{store: &memStore{seen: map[consume.Key]bool{}, held: map[[3]string]string{}}, log: &bytes.Buffer{}, logMu: &sync.Mutex{},
		set: &set, now: &atomic.Int64{}}
	s.now.Store(exampleTime + 1)
	s.store.clock = func() time.Time { return time.Unix(s.now.Load(), 0) }
	s.srv, err = server.New(server.Config{
		Domains: &set, Auth: tokens, Store: s.store, Log: server.NewDecisionLog(lockedBuffer{s.logMu, s.log}, 1024, true),
		Clock: func() time.Time { return time.Unix(s.now.Load(), 0) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(conforming(t, s.srv.Handler()))
	t.Cleanup(ts.Close)
	s.url = ts.URL
	return s
}

// filesRequest is the sample write of "hello\nworld\n", its arguments a
// placeholder the test replaces with exact bytes.
func filesRequest(t *testing.T) client.AuthorizeRequest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "mcp-filesystem", "requests", "write-hello.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		client.AuthorizeRequest
		Caller json.RawMessage `json:"caller"`
		Time   uint64          `json:"time"`
	}
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.AuthorizeRequest
}

// withArguments marshals body with its arguments member replaced by raw,
// byte for byte (json.Marshal would compact a RawMessage).
func withArguments(t *testing.T, body any, raw string) []byte {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	const placeholder = `"toolgate-test-arguments"`
	if bytes.Count(b, []byte(placeholder)) != 1 {
		t.Fatalf("the body holds the placeholder %d times", bytes.Count(b, []byte(placeholder)))
	}
	return bytes.Replace(b, []byte(placeholder), []byte(raw), 1)
}

// TestServeProfiledToolOverHTTP: over the API (every exchange checked
// against docs/openapi.yaml), a tool whose definition carries an argument
// profile is authorized with its MCP arguments exactly as the agent sends
// them, validated (on its replica too) and consumed with the bytes the
// executor forwards, and retried idempotently; one changed octet of the content mismatches, and a
// refusal of the profile is located under proposal.arguments (resp.
// expectations.arguments) without echoing the value.
func TestServeProfiledToolOverHTTP(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	s := newFilesService(t, keys)
	req := filesRequest(t)
	req.Proposal.Arguments = json.RawMessage(`"toolgate-test-arguments"`)
	req.RequestedResources = []string{} // the API takes no null
	if req.Facts.Intent.Resources == nil {
		req.Facts.Intent.Resources = []string{}
	}
	args := "{ \"path\": \"/workspace/a.txt\",\n  \"content\": \"hello\\nworld\\n Zo\u00eb \\u00e9\" }"

	body := withArguments(t, req, args)
	r := s.post(t, "/v1/authorize", codingAgentToken, body)
	res := decode[client.AuthorizeResponse](t, r)
	if r.status != http.StatusOK || res.Decision.Outcome != "allow" || res.Authorization == nil {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	if again := s.post(t, "/v1/authorize", codingAgentToken, body); again.status != http.StatusOK || !bytes.Equal(again.body, r.body) {
		t.Errorf("the idempotent retry of the same bytes: %d %s", again.status, again.body)
	}

	exp := client.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: client.Expectations{
		AuthorizationID: req.AuthorizationID, ReplayID: req.ReplayID, ConsumptionID: req.ConsumptionID,
		ProposalID: req.Proposal.ProposalID, ToolID: req.Proposal.ToolID, Version: req.Proposal.Version,
		Arguments: req.Proposal.Arguments, Identity: req.Facts.SecurityContext.Identity,
		Capabilities: []string{"data.write"}, Resources: []string{},
	}}
	if r := s.post(t, "/v1/validate", gatewayToken, withArguments(t, exp, args)); r.status != http.StatusOK {
		t.Fatalf("validate with the forwarded bytes: %d %s", r.status, r.body)
	}
	// Another replica with the same keys rebuilds the Authorization from
	// the artifact's record (the raw arguments, compacted) and derives alike.
	replica := newFilesService(t, keys)
	if r := replica.post(t, "/v1/validate", gatewayToken, withArguments(t, exp, args)); r.status != http.StatusOK {
		t.Fatalf("validate on another replica: %d %s", r.status, r.body)
	}
	if r := replica.post(t, "/v1/validate", gatewayToken, withArguments(t, exp, strings.Replace(args, "hello", "hellO", 1))); r.status != http.StatusUnprocessableEntity {
		t.Errorf("validate on another replica with a changed octet: %d %s, want 422", r.status, r.body)
	}
	changed := strings.Replace(args, "world", "World", 1)
	r = s.post(t, "/v1/consume", gatewayToken, withArguments(t, exp, changed))
	if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusUnprocessableEntity || e.Code != "mismatch" {
		t.Errorf("consume with one changed octet: %d %s, want 422 mismatch", r.status, r.body)
	}
	r = s.post(t, "/v1/consume", gatewayToken, withArguments(t, exp, `{"path":"/workspace/a.txt","content":7}`))
	if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusBadRequest || e.Code != "kindMismatch" || e.Path != "expectations.arguments/content" {
		t.Errorf("consume with a number for the text: %d %s, want 400 kindMismatch at expectations.arguments/content", r.status, r.body)
	}
	if r := s.post(t, "/v1/consume", gatewayToken, withArguments(t, exp, args)); r.status != http.StatusOK || !decode[client.ValidateResponse](t, r).Consumed {
		t.Fatalf("consume with the forwarded bytes: %d %s", r.status, r.body)
	}

	req.AuthorizationID, req.ReplayID, req.ConsumptionID, req.DecisionID = "authz-2", "replay-2", "consumption-2", "decision-2"
	secret := "/etc/shadow-secret"
	r = s.post(t, "/v1/authorize", codingAgentToken, withArguments(t, req, `{"path":"`+secret+`","content":""}`))
	if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusBadRequest || e.Code != "malformed" || e.Path != "proposal.arguments/path" || strings.Contains(string(r.body), secret) {
		t.Errorf("authorize outside /workspace/: %d %s, want 400 malformed at proposal.arguments/path, no echo", r.status, r.body)
	}
}
