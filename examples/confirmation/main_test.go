package main

import (
	"bytes"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

// The example end to end against a real service on the shipped samples
// and development tokens: the vendor email is held for a human, approved
// by a second person, authorized from a fresh evaluation and executed
// once.
func TestVendorEmailConfirmedAndExecutedOnce(t *testing.T) {
	root := testutil.RepoRoot(t)
	t.Chdir(root)
	state := t.TempDir()
	domains, err := standalone.Load(state, filepath.Join(root, "config", "samples"))
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
	srv, err := server.New(server.Config{Domains: &set, Auth: tokens, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	var out bytes.Buffer
	if err := run(&out, ts.URL, "dev-agent-runtime-token-4f8b2c1e9d7a", "dev-payments-approver-token-2d9e6b4a8c1f", "dev-payments-executor-token-7c3e5a9b1f2d"); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"agent: requireConfirmation [confirmationRuleMatched] by [confirm-email-vendors]",
		"approver carol: approved email.send for alice",
		"agent: authorized authz-20261130-0003 after the confirmation",
		"confirmationUsed",
		"executor, attempt 1: consumed sha256:",
		"executor, attempt 2: already consumed — no email",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the example's output lacks %q:\n%s", want, out.String())
		}
	}
}
