package server_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/apifixture"
)

const (
	approverToken      = "approver-token-0123456789abcdef"
	aliceApproverToken = "alice-approver-token-0123456789ab"
)

func (s *service) get(t testing.TB, path, token string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, b}
}

// requestConfirmation authorizes the vendor email, which the sample decides
// requireConfirmation, and returns the confirmation request it opened.
func (s *service) requestConfirmation(t *testing.T) client.Confirmation {
	t.Helper()
	r := s.post(t, "/v1/authorize", agentToken, example(t, "email-confirm.yaml"))
	if r.status != http.StatusOK {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	res := decode[client.AuthorizeResponse](t, r)
	if res.Decision.Outcome != "requireConfirmation" || res.Authorization != nil || res.Confirmation == nil {
		t.Fatalf("want requireConfirmation with a confirmation request and no Authorization: %s", r.body)
	}
	if res.Confirmation.State != "pending" || res.Confirmation.Requester != "system:serviceaccount:payments:payments-agent-runtime" {
		t.Fatalf("confirmation request: %+v", res.Confirmation)
	}
	return *res.Confirmation
}

func TestConfirmationsAreListedToWhoMaySeeThem(t *testing.T) {
	svc := newService(t, t.TempDir())
	c := svc.requestConfirmation(t)
	for _, tc := range []struct {
		token string
		want  int
	}{{approverToken, 1}, {agentToken, 1}, {strangerToken, 0}, {executorToken, 0}} {
		r := svc.get(t, "/v1/confirmations", tc.token)
		list := decode[client.ConfirmationList](t, r)
		if r.status != http.StatusOK || len(list.Confirmations) != tc.want {
			t.Errorf("%s sees %d, want %d: %s", tc.token[:8], len(list.Confirmations), tc.want, r.body)
		}
	}
	if r := svc.get(t, "/v1/confirmations/"+c.ID, strangerToken); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "confirmationNotFound") {
		t.Errorf("a caller who may not see it learns nothing: %d %s", r.status, r.body)
	}
	shown := decode[client.Confirmation](t, svc.get(t, "/v1/confirmations/"+c.ID, approverToken))
	if shown.ID != c.ID || shown.ToolID != "email.send" || shown.Decision.Outcome != "requireConfirmation" || !shown.ExcludesRequester {
		t.Errorf("show: %+v", shown)
	}
	if r := svc.get(t, "/v1/confirmations", ""); r.status != http.StatusUnauthorized {
		t.Errorf("unauthenticated list: %d", r.status)
	}
}

func TestConfirmationAnswersAreOneConfirmersOnce(t *testing.T) {
	svc := newService(t, t.TempDir())
	c := svc.requestConfirmation(t)
	path := "/v1/confirmations/" + c.ID
	for _, tc := range []struct {
		name, token, verb string
		status            int
		code              string
	}{
		{"the requester holds no confirmer role", agentToken, "approve", http.StatusForbidden, "confirmerNotAuthorized"},
		{"a stranger does not see it", strangerToken, "approve", http.StatusNotFound, "confirmationNotFound"},
		{"the subject may not confirm its own call", aliceApproverToken, "approve", http.StatusForbidden, "selfConfirmation"},
		{"an approver says no", approverToken, "deny", http.StatusOK, ""},
		{"a no is final", approverToken, "approve", http.StatusConflict, "confirmationAnswered"},
	} {
		r := svc.post(t, path+"/"+tc.verb, tc.token, []byte{})
		if r.status != tc.status || (tc.code != "" && !strings.Contains(string(r.body), `"`+tc.code+`"`)) {
			t.Errorf("%s: %d %s", tc.name, r.status, r.body)
		}
	}
	shown := decode[client.Confirmation](t, svc.get(t, path, approverToken))
	if shown.State != "denied" || shown.Confirmer != "carol" {
		t.Errorf("after a no: %+v", shown)
	}
	if !strings.Contains(svc.logText(), `"verb":"confirmation.deny","caller":"carol"`) || !strings.Contains(svc.logText(), `"result":"denied"`) {
		t.Errorf("the no is not logged:\n%s", svc.logText())
	}
	if list := decode[client.ConfirmationList](t, svc.get(t, "/v1/confirmations", approverToken)); len(list.Confirmations) != 0 {
		t.Error("an answered request is no longer pending")
	}
}

func TestConfirmationApprovedAndExpired(t *testing.T) {
	svc := newService(t, t.TempDir())
	c := svc.requestConfirmation(t)
	r := svc.post(t, "/v1/confirmations/"+c.ID+"/approve", approverToken, []byte{})
	got := decode[client.Confirmation](t, r)
	if r.status != http.StatusOK || got.State != "approved" || got.AnswerExpiresAt <= got.AnsweredAt {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	svc.now.Store(int64(got.AnswerExpiresAt))
	if shown := decode[client.Confirmation](t, svc.get(t, "/v1/confirmations/"+c.ID, approverToken)); shown.State != "expired" {
		t.Errorf("at its expiry an approval is expired, got %s", shown.State)
	}
	// A second request, answered only after the binding closed.
	svc.now.Store(int64(c.RequestedAt) + 1)
	c2 := svc.requestConfirmation(t)
	svc.now.Store(int64(c2.ExpiresAt))
	r = svc.post(t, "/v1/confirmations/"+c2.ID+"/approve", approverToken, []byte{})
	if r.status != http.StatusConflict || !strings.Contains(string(r.body), "confirmationExpired") {
		t.Errorf("an answer after the binding's expiry: %d %s", r.status, r.body)
	}
}

func TestConfirmationStepsAreLogged(t *testing.T) {
	svc := newService(t, t.TempDir())
	c := svc.requestConfirmation(t)
	svc.post(t, "/v1/confirmations/"+c.ID+"/approve", approverToken, []byte{})
	log := svc.logText()
	for _, want := range []string{
		`"verb":"authorize"`, `"confirmation":"` + c.Binding + `"`, `"requester":"system:serviceaccount:payments:payments-agent-runtime"`,
		`"verb":"confirmation.approve","caller":"carol"`, `"result":"approved"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the decision log lacks %s:\n%s", want, log)
		}
	}
	for _, secret := range []string{"Invoice 2026-114", "Thank you", approverToken} {
		if strings.Contains(log, secret) {
			t.Errorf("the decision log holds a raw value")
		}
	}
}

// The payments sample's vendor email: decided requireConfirmation,
// confirmed by a second person, authorized from a fresh evaluation,
// consumed exactly once; the confirmation cannot be used again nor for a
// changed argument.
func TestVendorEmailConfirmedBySecondPersonExecutesOnce(t *testing.T) {
	keys := t.TempDir()
	svc := newService(t, keys)
	c := svc.requestConfirmation(t)
	if r := svc.post(t, "/v1/confirmations/"+c.ID+"/approve", approverToken, []byte{}); r.status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	svc.now.Add(30) // the agent retries later: a fresh evaluation
	req := example(t, "email-confirm.yaml")
	req.Confirmation = c.ID

	changed := req
	changed.Proposal.Arguments = []byte(strings.Replace(string(req.Proposal.Arguments), "2026-114", "2026-115", 1))
	if r := svc.post(t, "/v1/authorize", agentToken, changed); r.status != http.StatusConflict || !strings.Contains(string(r.body), `"confirmationMismatch"`) {
		t.Fatalf("a changed argument: %d %s", r.status, r.body)
	}
	if r := svc.post(t, "/v1/authorize", approverToken, req); r.status != http.StatusNotFound && r.status != http.StatusForbidden {
		t.Fatalf("the confirmer does not proceed on the requester's behalf: %d %s", r.status, r.body)
	}

	r := svc.post(t, "/v1/authorize", agentToken, req)
	res := decode[client.AuthorizeResponse](t, r)
	if r.status != http.StatusOK || res.Authorization == nil || res.Decision.Outcome != "requireConfirmation" {
		t.Fatalf("confirmed authorize: %d %s", r.status, r.body)
	}
	exp := expectationsFor(t, "email-confirm.yaml", res.Authorization.Artifact)
	// Another replica of the domain (same keys, no cache of this artifact)
	// verifies and rebuilds it, checking the confirmation again.
	other := newService(t, keys)
	other.now.Store(svc.now.Load())
	if r := other.post(t, "/v1/validate", executorToken, exp); r.status != http.StatusOK {
		t.Fatalf("validate on another replica: %d %s", r.status, r.body)
	}
	if r := svc.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusOK {
		t.Fatalf("consume: %d %s", r.status, r.body)
	}
	if r := svc.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusConflict || !strings.Contains(string(r.body), `"consumed"`) {
		t.Fatalf("a second consume: %d %s", r.status, r.body)
	}
	if r := svc.post(t, "/v1/authorize", agentToken, req); r.status != http.StatusConflict || !strings.Contains(string(r.body), `"confirmationUsed"`) {
		t.Fatalf("a second use of the confirmation: %d %s", r.status, r.body)
	}
	if shown := decode[client.Confirmation](t, svc.get(t, "/v1/confirmations/"+c.ID, approverToken)); shown.State != "used" {
		t.Errorf("state after use: %s", shown.State)
	}
	if !strings.Contains(svc.logText(), `"confirmation":"`+c.Binding+`"`) {
		t.Error("the use is not logged with its binding")
	}
}

// expectationsFor is the executor's own view of the example call name.
func expectationsFor(t testing.TB, name, artifact string) client.ValidateRequest {
	t.Helper()
	req := example(t, name)
	v := apifixture.Expectations(req, artifact)
	v.Expectations.Capabilities, v.Expectations.Resources = req.RequestedCapabilities, req.RequestedResources
	return v
}

// With the extension off (the sample domain without spec.confirmations),
// the vendor email's authorize answer is exactly Phase 1–6's: a Decision,
// no Authorization, no confirmation; nothing can be listed or confirmed.
func TestConfirmationsOffTheAPIIsPhase1to6(t *testing.T) {
	samples := filepath.Join(testutil.RepoRoot(t), "config", "samples")
	dir := t.TempDir()
	entries, err := os.ReadDir(samples)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") || e.Name() == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(samples, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(string(b), "  confirmations:\n"); i >= 0 && e.Name() == "stk_v1alpha1_hostauthority.yaml" {
			b = b[:i]
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	domains, err := standalone.Load(t.TempDir(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		t.Fatal(err)
	}
	if d, _ := set.ByName("payments", "payments-host"); d == nil || d.ConfirmationsEnabled() {
		t.Fatal("the stripped sample must not take confirmations")
	}
	svc := newServiceWith(t, t.TempDir(), func(c *server.Config) { c.Domains = &set })
	r := svc.post(t, "/v1/authorize", agentToken, example(t, "email-confirm.yaml"))
	if r.status != http.StatusOK || strings.Contains(string(r.body), "confirmation\":") || strings.Contains(string(r.body), "authorization") {
		t.Fatalf("off: %d %s", r.status, r.body)
	}
	if list := decode[client.ConfirmationList](t, svc.get(t, "/v1/confirmations", approverToken)); len(list.Confirmations) != 0 {
		t.Fatal("nothing to list with the extension off")
	}
	req := example(t, "email-confirm.yaml")
	req.Confirmation = strings.Repeat("0", 64)
	if r := svc.post(t, "/v1/authorize", agentToken, req); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "confirmationNotFound") {
		t.Fatalf("a confirmed authorize with the extension off: %d %s", r.status, r.body)
	}
}

func TestNamedConfirmersNarrowWhoMayConfirm(t *testing.T) {
	svc := newService(t, t.TempDir())
	req := example(t, "email-confirm.yaml")
	req.Confirmers = []string{"dave"}
	res := decode[client.AuthorizeResponse](t, svc.post(t, "/v1/authorize", agentToken, req))
	if res.Confirmation == nil || len(res.Confirmation.NamedConfirmers) != 1 || res.Confirmation.NamedConfirmers[0] != "dave" {
		t.Fatalf("named confirmers: %+v", res.Confirmation)
	}
	r := svc.post(t, "/v1/confirmations/"+res.Confirmation.ID+"/approve", approverToken, []byte{})
	if r.status != http.StatusForbidden || !strings.Contains(string(r.body), `"confirmerNotAuthorized"`) {
		t.Fatalf("a confirmer not named: %d %s", r.status, r.body)
	}
}
