package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestAReloadPutsANewRevocationInForceAndAFailedOneChangesNothing: serve
// reloads its manifest directory on SIGHUP (here, a send on the channel it
// listens to): a Revocation added to the directory refuses an artifact
// issued before it; a directory that no longer loads keeps the domains in
// force.
func TestAReloadPutsANewRevocationInForceAndAFailedOneChangesNothing(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	manifests := t.TempDir()
	for _, f := range []string{"stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml", "stk_v1alpha1_policysnapshot.yaml", "stk_v1alpha1_policysnapshot_generation2.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, "config", "samples", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(manifests, f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o, err := parseServe([]string{"--manifests", manifests, "--state", t.TempDir(),
		"--tokens", filepath.Join(root, "examples", "standalone", "tokens.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := buildServe(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.close)
	ts := httptest.NewServer(svc.srv.Handler())
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hup := make(chan os.Signal)
	go svc.reloadOn(ctx, hup, o, slog.New(slog.NewTextHandler(io.Discard, nil)))

	var req client.AuthorizeRequest
	var exp client.Expectations
	for name, v := range map[string]any{"authorize-allow.json": &req, "expectations-allow.json": &exp} {
		raw, err := os.ReadFile(filepath.Join(root, "examples", "api", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatal(err)
		}
	}
	agent := client.New(ts.URL, "dev-agent-runtime-token-4f8b2c1e9d7a", nil)
	executor := client.New(ts.URL, "dev-payments-executor-token-7c3e5a9b1f2d", nil)
	res, err := agent.Authorize(ctx, req)
	if err != nil || res.Authorization == nil {
		t.Fatalf("authorize: %v", err)
	}
	v := client.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp}

	revocation := "apiVersion: stk.toolgate.dev/v1alpha1\nkind: Revocation\nmetadata:\n  name: r\n  namespace: payments\n" +
		"spec:\n  hostAuthorityRef:\n    name: payments-host\n  reason: test\n  authorization:\n    id: " + res.Authorization.ID + "\n"
	if err := os.WriteFile(filepath.Join(manifests, "revocation.yaml"), []byte(revocation), 0o600); err != nil {
		t.Fatal(err)
	}
	hup <- nil
	var ae *client.APIError
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err = executor.Validate(ctx, v)
		if errors.As(err, &ae) && ae.Err.Code == "revoked" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reload did not put the revocation in force: %v", err)
		}
	}

	// A directory that no longer loads: the domains in force stay.
	if err := os.WriteFile(filepath.Join(manifests, "broken.yaml"), []byte("kind: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hup <- nil
	hup <- nil // the first reload has finished once the second is received
	if _, err := agent.Authorize(ctx, req); !errors.As(err, &ae) || ae.Err.Code != "revoked" {
		t.Fatalf("after a failed reload: %v, want the domain in force (the Authorization identity revoked)", err)
	}
}
