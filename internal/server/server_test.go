package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/apifixture"
)

// The example requests' explicit time; the service's clock reads it.
const exampleTime = 1796083200

const (
	agentToken    = "agent-token-0123456789abcdef"
	executorToken = "executor-token-0123456789abcdef"
	strangerToken = "stranger-token-0123456789abcdef"
)

// memStore is an in-process consume.Store for the service's own tests;
// the durable backends have their own suites. Like them, a Consume
// records its key and holds its three identities in one step.
type memStore struct {
	mu    sync.Mutex
	seen  map[consume.Key]bool
	held  map[[3]string]string // domain, identity index, identity → binding
	helds int                  // calls of Held
	down  bool
	clock func() time.Time // the service's clock
}

func (m *memStore) Held(_ context.Context, domain string, ids [3]string) error {
	if err := consume.ValidateIdentities(domain, ids); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.helds++
	if m.down {
		return consume.ErrUnavailable
	}
	for i, id := range ids {
		if _, ok := m.held[[3]string{domain, strconv.Itoa(i), id}]; ok {
			return consume.Reused(i)
		}
	}
	return nil
}

func (m *memStore) Consume(_ context.Context, r consume.Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.down:
		return consume.ErrUnavailable
	case r.Expired(m.clock()):
		return consume.ErrExpired
	case m.seen[r.Key]:
		return consume.ErrConsumed
	}
	var keys [3][3]string
	for i, id := range r.Identities {
		keys[i] = [3]string{r.Key.Domain, strconv.Itoa(i), id}
		if b, ok := m.held[keys[i]]; ok && b != r.Key.Binding {
			return consume.Reused(i)
		}
	}
	m.seen[r.Key] = true
	for _, k := range keys {
		m.held[k] = r.Key.Binding
	}
	return nil
}

func (m *memStore) Ready(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return consume.ErrUnavailable
	}
	return nil
}

func (m *memStore) Close() error { return nil }

func (m *memStore) setDown(down bool) { m.mu.Lock(); m.down = down; m.mu.Unlock() }

type service struct {
	url   string
	store *memStore
	log   *bytes.Buffer
	logMu *sync.Mutex
	srv   *server.Server
	set   *serving.StaticDomains
	now   *atomic.Int64 // the service clock, Unix seconds
}

// lockedBuffer lets the decision log write while a test reads.
type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// newService serves the shipped samples with a fresh key directory.
func newService(t testing.TB, keyDir string) *service {
	t.Helper()
	return newServiceWith(t, keyDir, func(*server.Config) {})
}

// newServiceWith is newService with its Config changed by change.
func newServiceWith(t testing.TB, keyDir string, change func(*server.Config)) *service {
	t.Helper()
	domains, err := standalone.Load(keyDir, filepath.Join(testutil.RepoRoot(t), "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		t.Fatal(err)
	}
	tokens, err := server.NewTokens([]server.TokenEntry{
		{Token: agentToken, Name: "system:serviceaccount:payments:payments-agent-runtime"},
		{Token: executorToken, Name: "system:serviceaccount:payments:payments-executor"},
		{Token: strangerToken, Name: "system:serviceaccount:payments:someone-else"},
		{Token: approverToken, Name: "carol", Groups: []string{"payments-approvers"}},
		{Token: aliceApproverToken, Name: "alice", Groups: []string{"payments-approvers"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	svc := &service{store: &memStore{seen: map[consume.Key]bool{}, held: map[[3]string]string{}}, log: &bytes.Buffer{}, logMu: &sync.Mutex{},
		set: &set, now: &atomic.Int64{}}
	svc.now.Store(exampleTime + 1)
	svc.store.clock = func() time.Time { return time.Unix(svc.now.Load(), 0) }
	log := server.NewDecisionLog(lockedBuffer{svc.logMu, svc.log}, 1024, true)
	cfg := server.Config{
		Domains: &set, Auth: tokens, Store: svc.store, Log: log,
		Clock: func() time.Time { return time.Unix(svc.now.Load(), 0) },
	}
	change(&cfg)
	svc.srv, err = server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(conforming(t, svc.srv.Handler()))
	t.Cleanup(ts.Close)
	svc.url = ts.URL
	return svc
}

func (s *service) logText() string { s.logMu.Lock(); defer s.logMu.Unlock(); return s.log.String() }

// example reads one shipped example request as the API's body.
func example(t testing.TB, name string) client.AuthorizeRequest {
	t.Helper()
	req, _, err := apifixture.Example(testutil.RepoRoot(t), name)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

type response struct {
	status int
	body   []byte
}

func (s *service) post(t testing.TB, path, token string, body any) response {
	t.Helper()
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(http.MethodPost, s.url+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
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

func decode[T any](t testing.TB, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("response %d %s: %v", r.status, r.body, err)
	}
	return v
}

// authorize issues the allow example and returns its artifact.
func (s *service) authorize(t testing.TB) client.AuthorizeResponse {
	t.Helper()
	r := s.post(t, "/v1/authorize", agentToken, example(t, "payment-allow.yaml"))
	if r.status != http.StatusOK {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	res := decode[client.AuthorizeResponse](t, r)
	if res.Authorization == nil {
		t.Fatalf("the allow example issued no authorization: %s", r.body)
	}
	return res
}

// expectations are the payments executor's own view of the allowed call.
func expectations(t testing.TB, artifact string) client.ValidateRequest {
	t.Helper()
	return apifixture.Expectations(example(t, "payment-allow.yaml"), artifact)
}

func TestAuthorizeOutcomes(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	tests := map[string]struct {
		file, outcome string
		artifact      bool
	}{
		"allow":               {"payment-allow.yaml", "allow", true},
		"deny":                {"payment-deny.yaml", "deny", false},
		"requireConfirmation": {"email-confirm.yaml", "requireConfirmation", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := s.post(t, "/v1/authorize", agentToken, example(t, tc.file))
			res := decode[client.AuthorizeResponse](t, r)
			if r.status != http.StatusOK || res.Decision.Outcome != tc.outcome || (res.Authorization != nil) != tc.artifact {
				t.Errorf("%d %s; want %s, artifact %v", r.status, r.body, tc.outcome, tc.artifact)
			}
		})
	}
}

func TestValidateAndConsume(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	art := s.authorize(t).Authorization.Artifact
	exp := expectations(t, art)

	if r := s.post(t, "/v1/validate", agentToken, exp); r.status != http.StatusForbidden {
		t.Errorf("validate by the agent runtime: %d %s, want 403", r.status, r.body)
	}
	for range 2 { // validation is repeatable
		if r := s.post(t, "/v1/validate", executorToken, exp); r.status != http.StatusOK {
			t.Fatalf("validate: %d %s", r.status, r.body)
		}
	}
	changed := exp
	changed.Expectations.Arguments = json.RawMessage(strings.Replace(string(exp.Expectations.Arguments), "12500", "12501", 1))
	if r := s.post(t, "/v1/consume", executorToken, changed); r.status != http.StatusUnprocessableEntity {
		t.Errorf("consume with one changed argument: %d %s, want 422", r.status, r.body)
	}
	noBinding := exp
	noBinding.Expectations.IntentBinding = nil
	if r := s.post(t, "/v1/consume", executorToken, noBinding); r.status != http.StatusUnprocessableEntity {
		t.Errorf("consume without the intent binding: %d %s, want 422", r.status, r.body)
	}
	first := s.post(t, "/v1/consume", executorToken, exp)
	if first.status != http.StatusOK || !decode[client.ValidateResponse](t, first).Consumed {
		t.Fatalf("consume: %d %s", first.status, first.body)
	}
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusConflict {
		t.Errorf("second consume: %d %s, want 409", r.status, r.body)
	}
}

// TestRebuildCacheSkipsNoCheck: after a validate has put the rebuilt
// Authorization in the cache, a consume of the same envelope still checks
// the clock and the domain: an expired authorization and one whose domain
// was replaced (another key, another Host) reject.
func TestRebuildCacheSkipsNoCheck(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	s := newService(t, keys)
	res := s.authorize(t).Authorization
	exp := expectations(t, res.Artifact)
	if r := s.post(t, "/v1/validate", executorToken, exp); r.status != http.StatusOK {
		t.Fatalf("validate: %d %s", r.status, r.body)
	}
	s.now.Store(int64(res.ExpiresAt))
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusUnprocessableEntity || decode[client.ErrorResponse](t, r).Error.Code != "expired" {
		t.Errorf("consume at the expiry: %d %s, want 422 expired", r.status, r.body)
	}
	s.now.Store(exampleTime + 1)
	if r := s.post(t, "/v1/validate", executorToken, exp); r.status != http.StatusOK {
		t.Fatalf("validate again: %d %s", r.status, r.body)
	}
	reload := func(keys string) {
		domains, err := standalone.Load(keys, filepath.Join(testutil.RepoRoot(t), "config", "samples"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.set.Replace(domains...); err != nil {
			t.Fatal(err)
		}
	}
	// The same key, a new Host: the cached Authorization belongs to the
	// old Host's boundary, so only a fresh rebuild validates.
	reload(keys)
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusOK {
		t.Errorf("consume after a reload with the same key: %d %s, want 200", r.status, r.body)
	}
	reload(t.TempDir())
	if r := s.post(t, "/v1/validate", executorToken, exp); r.status != http.StatusUnprocessableEntity || decode[client.ErrorResponse](t, r).Error.Code != "artifact" {
		t.Errorf("validate after the domain's key was replaced: %d %s, want 422 artifact", r.status, r.body)
	}
}

// TestConsumeConcurrently: 64 executors consuming one artifact at once —
// exactly one succeeds, every other one is told it was consumed.
func TestConsumeConcurrently(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	exp := expectations(t, s.authorize(t).Authorization.Artifact)
	statuses := make(chan int, 64)
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() { statuses <- s.post(t, "/v1/consume", executorToken, exp).status })
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	if count[http.StatusOK] != 1 || count[http.StatusConflict] != 63 {
		t.Errorf("statuses %v, want exactly one 200 and 63 409", count)
	}
}

func TestConsumeFailsClosedWhenTheStoreCannotAnswer(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	exp := expectations(t, s.authorize(t).Authorization.Artifact)
	s.store.setDown(true)
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusServiceUnavailable {
		t.Errorf("consume with the store down: %d %s, want 503", r.status, r.body)
	}
	if r := get(t, s.url+"/readyz"); r != http.StatusServiceUnavailable {
		t.Errorf("readyz with the store down: %d, want 503", r)
	}
	s.store.setDown(false)
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusOK {
		t.Errorf("nothing was consumed while the store was down, so consume now succeeds: %d %s", r.status, r.body)
	}
}

// TestArtifactsFromElsewhereReject: a changed, truncated or foreign
// artifact never validates.
func TestArtifactsFromElsewhereReject(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	other := newService(t, t.TempDir()) // same manifests, another key: a recreated domain
	art := s.authorize(t).Authorization.Artifact
	foreign := other.authorize(t).Authorization.Artifact
	mid := len(art) / 2
	flip := map[byte]byte{'A': 'B'}
	c := art[mid]
	if r, ok := flip[c]; ok {
		c = r
	} else {
		c = 'A'
	}
	tests := map[string]string{
		"a changed character": art[:mid] + string(c) + art[mid+1:],
		"truncated":           art[:len(art)-4],
		"another domain's":    foreign,
		"empty":               "",
	}
	for name, a := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := s.post(t, "/v1/validate", executorToken, expectations(t, a))
			if r.status != http.StatusUnprocessableEntity && r.status != http.StatusBadRequest {
				t.Errorf("%d %s, want a rejection", r.status, r.body)
			}
		})
	}
}

func TestRejectsMalformedRequests(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	good, err := json.Marshal(example(t, "payment-allow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(good)
	tests := map[string]struct {
		token, contentType string
		body               []byte
		status             int
		code               string
	}{
		"no token":              {"", "", good, 401, "unauthenticated"},
		"an unknown token":      {"x" + agentToken, "", good, 401, "unauthenticated"},
		"a text body":           {agentToken, "text/plain", good, 415, "unsupported"},
		"a duplicate key":       {agentToken, "", []byte(`{"decisionID":"a","decisionID":"b"}`), 400, "duplicate"},
		"an unknown field":      {agentToken, "", []byte(`{"surprise":1}`), 400, "unknownField"},
		"a field in other case": {agentToken, "", []byte(strings.Replace(body, `"decisionID"`, `"DecisionID"`, 1)), 400, "unknownField"},
		"a null":                {agentToken, "", []byte(strings.Replace(body, `"decisionID":"decision-20261130-0001"`, `"decisionID":null`, 1)), 400, "kindMismatch"},
		"a string for a number": {agentToken, "", []byte(strings.Replace(body, `"maxLifetimeSeconds":60`, `"maxLifetimeSeconds":"60"`, 1)), 400, "kindMismatch"},
		"trailing data":         {agentToken, "", append(append([]byte{}, good...), []byte(` {}`)...), 400, "malformed"},
		"not JSON":              {agentToken, "", []byte(`{"decisionID":`), 400, "malformed"},
		"oversized":             {agentToken, "", bytes.Repeat([]byte(" "), server.DefaultMaxBodyBytes+1), 413, "limitExceeded"},
		"an unknown HostAuthority": {agentToken, "", []byte(strings.Replace(body, `"name":"payments-host"`, `"name":"other-host"`, 1)),
			404, "notFound"},
		"a caller without the role of a fact": {strangerToken, "", good, 403, "unauthorized"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(http.MethodPost, s.url+"/v1/authorize", bytes.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			b, _ := io.ReadAll(resp.Body)
			e := decode[client.ErrorResponse](t, response{resp.StatusCode, b})
			if resp.StatusCode != tc.status || e.Error.Code != tc.code {
				t.Errorf("%d %s; want %d %s", resp.StatusCode, b, tc.status, tc.code)
			}
		})
	}
}

// TestNothingSecretReachesTheLog: a token and an argument value never
// appear in a decision-log line or an error response.
func TestNothingSecretReachesTheLog(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	const canary = "canary-memo-5f1e"
	req := example(t, "payment-allow.yaml")
	req.Proposal.Arguments = json.RawMessage(strings.Replace(string(req.Proposal.Arguments), "Invoice 2026-114, thank you", canary, 1))
	if !strings.Contains(string(req.Proposal.Arguments), canary) {
		t.Fatal("the example no longer has the memo this test replaces")
	}
	res := decode[client.AuthorizeResponse](t, s.post(t, "/v1/authorize", agentToken, req))
	bad := req
	bad.Proposal.Arguments = json.RawMessage(strings.Replace(string(req.Proposal.Arguments), `"amount":12500`, `"amount":"`+canary+`"`, 1))
	r := s.post(t, "/v1/authorize", agentToken, bad)
	if r.status != http.StatusBadRequest || strings.Contains(string(r.body), canary) {
		t.Errorf("a rejected argument: %d %s", r.status, r.body)
	}
	if res.Authorization != nil {
		exp := expectations(t, res.Authorization.Artifact)
		exp.Expectations.Arguments = req.Proposal.Arguments
		s.post(t, "/v1/consume", executorToken, exp)
	}
	s.post(t, "/v1/authorize", "canary-token-"+canary, req)
	// An unresolved HostAuthority is caller input: it never reaches the log.
	unserved := req
	unserved.HostAuthority.Namespace, unserved.HostAuthority.Name = canary+"-ns", canary+"-name"
	if r := s.post(t, "/v1/authorize", agentToken, unserved); r.status != http.StatusNotFound {
		t.Errorf("an unserved HostAuthority: %d %s, want 404", r.status, r.body)
	}
	log := s.logText()
	if strings.Count(log, "\n") < 5 {
		t.Fatalf("the decision log has too few lines:\n%s", log)
	}
	for _, secret := range []string{canary, agentToken, executorToken} {
		if strings.Contains(log, secret) {
			t.Errorf("the decision log contains %q:\n%s", secret, log)
		}
	}
}

func TestHealthReadinessMetrics(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	s.authorize(t)
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/v2/anything": 404} {
		if got := get(t, s.url+path); got != want {
			t.Errorf("GET %s = %d, want %d", path, got, want)
		}
	}
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	for _, m := range []string{`toolgate_decisions_total{outcome="allow"} 1`, "toolgate_decision_log_dropped_total 0", "toolgate_domains_served 1", "toolgate_request_duration_seconds_bucket",
		"toolgate_rebuild_cache_entries 1", `toolgate_build_info{goversion="` + runtime.Version() + `"`} {
		if !strings.Contains(string(b), m) {
			t.Errorf("metrics lack %q", m)
		}
	}
	if r := s.post(t, "/healthz", agentToken, []byte(`{}`)); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz = %d, want 405", r.status)
	}
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestNonExecutorsLearnNothing: the executor role is checked as soon as
// the envelope names a domain, before the Authorization is rebuilt (issue
// 17). A caller without the role is told only that (403 unauthorized),
// never whether the artifact binds an intent (422 missing), and the
// service does no issuance work for it: nothing is rebuilt into the cache.
// The cache holds one entry, the last artifact issued (B); a rebuild of
// the earlier one (A) for a non-executor would evict B, and the executor's
// validate of B would then miss.
func TestNonExecutorsLearnNothing(t *testing.T) {
	t.Parallel()
	s := newServiceWith(t, t.TempDir(), func(c *server.Config) { c.RebuildCacheEntries = 1 })
	art := s.authorize(t).Authorization.Artifact
	other := example(t, "payment-allow.yaml")
	other.AuthorizationID, other.ReplayID, other.ConsumptionID = other.AuthorizationID+"-b", other.ReplayID+"-b", other.ConsumptionID+"-b"
	r := s.post(t, "/v1/authorize", agentToken, other)
	if r.status != http.StatusOK || decode[client.AuthorizeResponse](t, r).Authorization == nil {
		t.Fatalf("authorize B: %d %s", r.status, r.body)
	}
	artB := decode[client.AuthorizeResponse](t, r).Authorization.Artifact
	noBinding := expectations(t, art)
	noBinding.Expectations.IntentBinding = nil
	tests := map[string]struct {
		path, token string
		body        client.ValidateRequest
	}{
		"the agent runtime consuming without the binding": {"/v1/consume", agentToken, noBinding},
		"a stranger consuming without the binding":        {"/v1/consume", strangerToken, noBinding},
		"a stranger consuming with the binding":           {"/v1/consume", strangerToken, expectations(t, art)},
		"the agent runtime validating":                    {"/v1/validate", agentToken, expectations(t, art)},
	}
	// The group returns when its parallel cases have finished.
	t.Run("callers without the executor role", func(t *testing.T) {
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := s.post(t, tc.path, tc.token, tc.body)
				e := decode[client.ErrorResponse](t, r)
				if r.status != http.StatusForbidden || e.Error.Code != "unauthorized" || e.Error.Path != "expectations.caller" {
					t.Errorf("%d %s; want 403 unauthorized at expectations.caller", r.status, r.body)
				}
			})
		}
	})
	hits := metricLine(t, s, `toolgate_rebuild_cache_total{result="hit"} `)
	if r := s.post(t, "/v1/validate", executorToken, apifixture.Expectations(other, artB)); r.status != http.StatusOK {
		t.Fatalf("the executor validating B: %d %s", r.status, r.body)
	}
	if got := metricLine(t, s, `toolgate_rebuild_cache_total{result="hit"} `); got == hits {
		t.Errorf("the executor's validate of B missed the cache (%q before and after): an Authorization was rebuilt for a non-executor", got)
	}
	if r := s.post(t, "/v1/consume", executorToken, noBinding); r.status != http.StatusUnprocessableEntity || decode[client.ErrorResponse](t, r).Error.Code != "missing" {
		t.Errorf("the executor consuming without the binding: %d %s, want 422 missing", r.status, r.body)
	}
}

// TestIssuedAuthorizationsAreCachedForTheirExecutor: authorize puts what
// it issued in the rebuild cache, so the executor's first consume hits it;
// the answer is the one a service without the cache gives (the same
// binding digest, so the same Authorization), and an envelope edited by
// one octet misses and is refused.
func TestIssuedAuthorizationsAreCachedForTheirExecutor(t *testing.T) {
	t.Parallel()
	consumed := func(s *service, exp client.ValidateRequest) client.ValidateResponse {
		t.Helper()
		r := s.post(t, "/v1/consume", executorToken, exp)
		if r.status != http.StatusOK {
			t.Fatalf("consume: %d %s", r.status, r.body)
		}
		return decode[client.ValidateResponse](t, r)
	}
	keys := t.TempDir()
	cachedSvc := newService(t, keys)
	art := cachedSvc.authorize(t).Authorization.Artifact
	if got := metricLine(t, cachedSvc, "toolgate_rebuild_cache_entries "); got != "toolgate_rebuild_cache_entries 1" {
		t.Errorf("%q after one issuance, want its entry", got)
	}
	edited := []byte(art)
	edited[len(edited)/2] ^= 0x01
	if r := cachedSvc.post(t, "/v1/validate", executorToken, expectations(t, string(edited))); r.status == http.StatusOK {
		t.Errorf("an envelope edited by one octet validated: %s", r.body)
	}
	misses := metricLine(t, cachedSvc, `toolgate_rebuild_cache_total{result="miss"} `)
	withCache := consumed(cachedSvc, expectations(t, art))
	if got := metricLine(t, cachedSvc, `toolgate_rebuild_cache_total{result="miss"} `); got != misses {
		t.Errorf("the executor's first consume missed the cache: %q, then %q", misses, got)
	}
	uncached := newServiceWith(t, keys, func(c *server.Config) { c.RebuildCacheEntries = -1 })
	art2 := uncached.authorize(t).Authorization.Artifact
	if art2 != art {
		t.Fatalf("two services with one key issued different envelopes for one request at one time")
	}
	if without := consumed(uncached, expectations(t, art2)); without != withCache {
		t.Errorf("consume answered %+v from the issued entry, %+v after verifying and rebuilding", withCache, without)
	}
}

// metricLine is the first line of s's /metrics that starts with prefix.
func metricLine(t *testing.T, s *service, prefix string) string {
	t.Helper()
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// TestAgentSafeExecutorNegativeTests: agent-safe.intent/1 asks every
// executor adapter for negative tests on changed parameters, expired
// authority and duplicate execution. Through the service: a binding with
// one changed parameter, a binding whose own expiry has passed while the
// Authorization is still valid, and a second Consumption are each refused.
func TestAgentSafeExecutorNegativeTests(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	req := example(t, "payment-allow.yaml")
	expiry := time.Unix(exampleTime+30, 0).UTC().Format(time.RFC3339)
	req.Facts.Intent.Binding = json.RawMessage(strings.Replace(string(req.Facts.Intent.Binding), "2026-12-01T00:15:00Z", expiry, 1))
	if !strings.Contains(string(req.Facts.Intent.Binding), expiry) {
		t.Fatal("the example's binding no longer has the expiry this test replaces")
	}
	r := s.post(t, "/v1/authorize", agentToken, req)
	res := decode[client.AuthorizeResponse](t, r)
	if r.status != http.StatusOK || res.Authorization == nil {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	exp := expectations(t, res.Authorization.Artifact)
	exp.Expectations.IntentBinding = req.Facts.Intent.Binding

	changed := exp
	changed.Expectations.IntentBinding = json.RawMessage(strings.Replace(string(exp.Expectations.IntentBinding), "12500", "12501", 1))
	if r := s.post(t, "/v1/consume", executorToken, changed); r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `"mismatch"`) {
		t.Errorf("changed parameters: %d %s, want 422 mismatch", r.status, r.body)
	}

	s.now.Store(exampleTime + 30) // the binding's expiry; the Authorization lives until +61
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.body), `"expired"`) || !strings.Contains(string(r.body), "intentBinding.expiry") {
		t.Errorf("expired authority: %d %s, want 422 expired at the binding's expiry", r.status, r.body)
	}

	s.now.Store(exampleTime + 29)
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusOK {
		t.Fatalf("consume before the binding's expiry: %d %s", r.status, r.body)
	}
	if r := s.post(t, "/v1/consume", executorToken, exp); r.status != http.StatusConflict {
		t.Errorf("duplicate execution: %d %s, want 409", r.status, r.body)
	}
}

// TestEmptyBodiesAndMissingMembersAre400Missing: a body that is empty or
// lacks a member the verb looks things up by is a malformed request, 400
// `missing` at the member's path, on every endpoint — never 404 or 422.
func TestEmptyBodiesAndMissingMembersAre400Missing(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	allow := example(t, "payment-allow.yaml")
	noName := allow
	noName.HostAuthority.Name = ""
	noPolicy := allow
	noPolicy.Policy.SnapshotGeneration = ""
	tests := []struct {
		name, path, token string
		body              any
		wantPath          string
	}{
		{"authorize, empty body", "/v1/authorize", agentToken, []byte{}, "body"},
		{"authorize, empty object", "/v1/authorize", agentToken, []byte(`{}`), "hostAuthority.namespace"},
		{"authorize, no HostAuthority name", "/v1/authorize", agentToken, noName, "hostAuthority.name"},
		{"authorize, no policy generation", "/v1/authorize", agentToken, noPolicy, "policy.snapshotGeneration"},
		{"validate, empty body", "/v1/validate", executorToken, []byte{}, "body"},
		{"validate, empty object", "/v1/validate", executorToken, []byte(`{}`), "artifact"},
		{"consume, empty body", "/v1/consume", executorToken, []byte{}, "body"},
		{"consume, empty object", "/v1/consume", executorToken, []byte(`{"expectations":{}}`), "artifact"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := s.post(t, tc.path, tc.token, tc.body)
			e := decode[client.ErrorResponse](t, r)
			if r.status != http.StatusBadRequest || e.Error.Code != "missing" || e.Error.Path != tc.wantPath {
				t.Errorf("%d %s; want 400 missing at %s", r.status, r.body, tc.wantPath)
			}
		})
	}
}

// TestALargeAuthorizeBodyIsNotPinnedByTheCache: the rebuild cache keeps
// the Authorizations authorize issued, whose strings share the request's
// body; an issued Authorization from a body over 64 KiB is not cached, so
// that 4,096 entries cannot pin 4,096 bodies of up to the body limit. The
// bytes still held after a GC, once 8 such requests are answered through
// the durable store, stay well under one of their bodies (they were 8.6 MB
// when every issued Authorization was cached).
func TestALargeAuthorizeBodyIsNotPinnedByTheCache(t *testing.T) {
	s := newKeyedService(t) // the durable store, as serve runs
	const pad, n = 1 << 20, 8
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	bodies := make([][]byte, n)
	for i := range bodies {
		req := example(t, "payment-allow.yaml")
		suffix := fmt.Sprintf("-big%d", i)
		req.DecisionID += suffix
		req.AuthorizationID += suffix
		req.ReplayID += suffix
		req.ConsumptionID += suffix
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		bodies[i] = append(bytes.Repeat([]byte{' '}, pad), raw...)
	}
	for i := range bodies {
		if r := s.post(t, "/v1/authorize", agentToken, bodies[i]); r.status != http.StatusOK {
			t.Fatalf("authorize %d: %d %s", i, r.status, r.body)
		}
		bodies[i] = nil
	}
	if held := int64(heap()) - int64(before); held > pad/2 {
		t.Errorf("%d octets still held after %d authorizes of %d-octet bodies; want under %d", held, n, pad, pad/2)
	}
}
