package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestClientAgainstTheService plays agent and executor with the client
// against the real service on the shipped samples, with the durable bbolt
// Consumption store.
func TestClientAgainstTheService(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	state := t.TempDir()
	domains, err := standalone.Load(filepath.Join(state, "keys"), filepath.Join(root, "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		t.Fatal(err)
	}
	tokens, err := server.LoadTokens(filepath.Join(root, "examples", "standalone", "tokens.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := boltstore.Open(filepath.Join(state, "consumptions"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	srv, err := server.New(server.Config{Domains: &set, Auth: tokens, Store: store, Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	var req client.AuthorizeRequest
	var exp client.Expectations
	readJSON(t, filepath.Join(root, "examples", "api", "authorize-allow.json"), &req)
	readJSON(t, filepath.Join(root, "examples", "api", "expectations-allow.json"), &exp)

	ctx := context.Background()
	agent := client.New(ts.URL, "dev-agent-runtime-token-4f8b2c1e9d7a", nil)
	cur, err := agent.Current(ctx, req.HostAuthority)
	if err != nil || len(cur.Policies) != 1 || len(cur.Policies[0].Active) != 1 {
		t.Fatalf("Current: %+v, %v", cur, err)
	}
	res, err := agent.Authorize(ctx, req)
	if err != nil || res.Decision.Outcome != "allow" || res.Authorization == nil {
		t.Fatalf("Authorize: %+v, %v", res, err)
	}
	// The example selects "current": the response names what Current
	// reported, the policy's active version.
	if got, want := res.Selection.Policy, (client.PolicySelection{SnapshotID: cur.Policies[0].SnapshotID, SnapshotGeneration: cur.Policies[0].Generation,
		PolicyID: cur.Policies[0].Active[0].PolicyID, PolicyGeneration: cur.Policies[0].Active[0].PolicyGeneration}); got != want {
		t.Errorf("selection %+v, want %+v", got, want)
	}
	executor := client.New(ts.URL, "dev-payments-executor-token-7c3e5a9b1f2d", nil)
	v := client.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp}
	if _, err := executor.Validate(ctx, v); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if done, err := executor.Consume(ctx, v); err != nil || !done.Consumed {
		t.Fatalf("Consume: %+v, %v", done, err)
	}
	if _, err := executor.Consume(ctx, v); !errors.Is(err, client.ErrConsumed) {
		t.Errorf("second Consume: %v, want ErrConsumed", err)
	}
	_, err = client.New(ts.URL, "not-a-token-of-this-service", nil).Authorize(ctx, req)
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || ae.Err.Code != "unauthenticated" {
		t.Errorf("unauthenticated Authorize: %v", err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// TestOnlyConsumedIsErrConsumed: a 409 with another code (superseded,
// revoked) is an *APIError carrying that code, never ErrConsumed, so an
// executor can tell "spent" from "withdrawn".
func TestOnlyConsumedIsErrConsumed(t *testing.T) {
	t.Parallel()
	for code, wantConsumed := range map[string]bool{"consumed": true, "revoked": false, "superseded": false} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":{"code":"` + code + `","path":"artifact","message":"m"}}`))
		}))
		_, err := client.New(ts.URL, "t", nil).Consume(context.Background(), client.ValidateRequest{Artifact: "a"})
		ts.Close()
		var ae *client.APIError
		switch {
		case wantConsumed && !errors.Is(err, client.ErrConsumed):
			t.Errorf("409 %s: %v, want ErrConsumed", code, err)
		case !wantConsumed && (errors.Is(err, client.ErrConsumed) || !errors.As(err, &ae) || ae.Err.Code != code):
			t.Errorf("409 %s: %v, want an *APIError with code %s", code, err, code)
		}
	}
}
