package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/apifixture"
)

// confirmingService serves the samples (whose domain takes confirmations)
// with an agent's and an approver's token, at the email example's time.
func confirmingService(t *testing.T) (url string, agent *client.Client, approverTokenFile string) {
	t.Helper()
	root := testutil.RepoRoot(t)
	state := t.TempDir()
	domains, err := standalone.Load(state, filepath.Join(root, "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		t.Fatal(err)
	}
	tokens, err := server.NewTokens([]server.TokenEntry{
		{Token: "agent-token-0123456789abcdef", Name: "system:serviceaccount:payments:payments-agent-runtime"},
		{Token: "carol-token-0123456789abcdef", Name: "carol", Groups: []string{"payments-approvers"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	store, err := boltstore.Open(filepath.Join(state, "consumptions"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	req, at, err := apifixture.Example(root, "email-confirm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Domains: &set, Auth: tokens, Store: store, Clock: func() time.Time { return time.Unix(int64(at), 0) }})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	agent = client.New(ts.URL, "agent-token-0123456789abcdef", ts.Client())
	if _, err := agent.Authorize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	approverTokenFile = filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(approverTokenFile, []byte("carol-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ts.URL, agent, approverTokenFile
}

func runConfirmCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestConfirmationsVerbsListShowApproveOnce(t *testing.T) {
	url, agent, tokenFile := confirmingService(t)
	flags := []string{"--server", url, "--token-file", tokenFile}
	code, out, errOut := runConfirmCLI(append([]string{"confirmations", "list"}, flags...)...)
	if code != 0 || !strings.Contains(out, "email.send@1") || !strings.Contains(out, "alice") {
		t.Fatalf("list: %d %q %q", code, out, errOut)
	}
	prefix := strings.Fields(strings.Split(out, "\n")[1])[0]
	code, out, errOut = runConfirmCLI(append([]string{"confirmations", "show", prefix}, flags...)...)
	if code != 0 || !strings.Contains(out, "confirm-email-vendors") || !strings.Contains(out, "state:") || strings.Contains(out, "Invoice") {
		t.Fatalf("show: %d %q %q", code, out, errOut)
	}
	code, out, errOut = runConfirmCLI(append([]string{"confirmations", "approve", prefix, "-o", "json"}, flags...)...)
	if code != 0 || !strings.Contains(out, `"state": "approved"`) || !strings.Contains(out, `"confirmer": "carol"`) {
		t.Fatalf("approve: %d %q %q", code, out, errOut)
	}
	list, err := agent.Confirmations(context.Background())
	if err != nil || len(list.Confirmations) != 0 {
		t.Fatalf("an answered request is not pending: %v %v", list, err)
	}
	// The full identity from the JSON answer: a second answer is refused.
	id := out[strings.Index(out, `"id": "`)+7:][:64]
	code, _, errOut = runConfirmCLI(append([]string{"confirmations", "deny", id}, flags...)...)
	if code != 1 || !strings.Contains(errOut, "confirmationAnswered") {
		t.Fatalf("a second answer: %d %q", code, errOut)
	}
	// The agent sees the approval.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if got, err := agent.WaitForConfirmation(ctx, id, 10*time.Millisecond); err != nil || got.Confirmer != "carol" {
		t.Fatalf("wait: %v %v", got, err)
	}
}

func TestConfirmationsVerbsNeedAToken(t *testing.T) {
	t.Setenv("TOOLGATE_TOKEN", "")
	code, _, errOut := runConfirmCLI("confirmations", "list", "--server", "http://127.0.0.1:1")
	if code != 2 || !strings.Contains(errOut, "bearer token") {
		t.Fatalf("%d %q", code, errOut)
	}
	code, _, errOut = runConfirmCLI("confirmations", "approve", "--server", "http://127.0.0.1:1")
	if code != 2 || !strings.Contains(errOut, "one confirmation request ID") {
		t.Fatalf("%d %q", code, errOut)
	}
}
