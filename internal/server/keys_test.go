package server_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// keyedService is the standalone service on the samples with a key
// directory, the durable bbolt Consumption store and a settable clock: what
// `toolgate serve` runs, with reload standing in for its next start.
type keyedService struct {
	*service
	keyDir, samples string
	clock           func() time.Time
}

func newKeyedService(t *testing.T) *keyedService {
	t.Helper()
	now := &atomic.Int64{}
	now.Store(exampleTime + 1)
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	k := &keyedService{keyDir: t.TempDir(), samples: filepath.Join(testutil.RepoRoot(t), "config", "samples"), clock: clock}
	k.service = &service{set: &serving.StaticDomains{}, now: now}
	k.reload(t)
	bolt, err := boltstore.Open(t.TempDir(), boltstore.Options{Clock: clock, SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bolt.Close() })
	tokens, err := server.NewTokens([]server.TokenEntry{
		{Token: agentToken, Name: "system:serviceaccount:payments:payments-agent-runtime"},
		{Token: executorToken, Name: "system:serviceaccount:payments:payments-executor"},
	})
	if err != nil {
		t.Fatal(err)
	}
	k.srv, err = server.New(server.Config{Domains: k.set, Auth: tokens, Store: bolt, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(conforming(t, k.srv.Handler()))
	t.Cleanup(ts.Close)
	k.url = ts.URL
	return k
}

// reload serves the domains the key directory holds now, as the next start
// of serve would.
func (k *keyedService) reload(t *testing.T, revoked ...string) {
	t.Helper()
	ds, err := standalone.LoadAt(k.keyDir, k.clock, k.samples)
	if err != nil {
		t.Fatal(err)
	}
	if len(revoked) > 0 {
		keys, err := standalone.ReadKeys(k.keyDir, "payments", "payments-host")
		if err != nil {
			t.Fatal(err)
		}
		if ds[0], err = ds[0].WithKeys(keys.KeySet(k.clock, revoked)); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.set.Replace(ds...); err != nil {
		t.Fatal(err)
	}
}

func (k *keyedService) rotate(t *testing.T) {
	t.Helper()
	if _, err := standalone.Rotate(k.keyDir, "payments", "payments-host", k.clock(), k.samples); err != nil {
		t.Fatal(err)
	}
}

// issue authorizes the allow example under the identities of number n and
// returns the executor's consume request for it.
func (k *keyedService) issue(t *testing.T, n int) client.ValidateRequest {
	t.Helper()
	req := example(t, "payment-allow.yaml")
	suffix := fmt.Sprintf("-k%04d", n)
	req.DecisionID += suffix
	req.AuthorizationID += suffix
	req.ReplayID += suffix
	req.ConsumptionID += suffix
	r := k.post(t, "/v1/authorize", agentToken, req)
	if r.status != http.StatusOK {
		t.Fatalf("authorize %d: %d %s", n, r.status, r.body)
	}
	res := decode[client.AuthorizeResponse](t, r)
	if res.Authorization == nil {
		t.Fatalf("authorize %d issued nothing: %s", n, r.body)
	}
	return apifixture.Expectations(req, res.Authorization.Artifact)
}

// keyOf is the key identity an envelope's header names.
func keyOf(t *testing.T, envelope string) string {
	t.Helper()
	h, _, _ := strings.Cut(envelope, ".")
	raw, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	_, id, _ := strings.Cut(string(raw), " ")
	return id
}

// TestAThousandArtifactsIssuedBeforeARotationConsumeAfterIt is the issue's
// bar: 1,000 artifacts issued before a key rotation all consume after it,
// through the real service and the durable store; artifacts issued after
// it carry the new key.
func TestAThousandArtifactsIssuedBeforeARotationConsumeAfterIt(t *testing.T) {
	k := newKeyedService(t)
	const n = 1000
	pending := make([]client.ValidateRequest, n)
	for i := range pending {
		pending[i] = k.issue(t, i)
	}
	old := keyOf(t, pending[0].Artifact)

	k.rotate(t)
	k.reload(t)
	after := k.issue(t, n)
	if keyOf(t, after.Artifact) == old {
		t.Fatal("an artifact issued after the rotation is signed by the old key")
	}
	consumed := 0
	for i, v := range append(pending, after) {
		r := k.post(t, "/v1/consume", executorToken, v)
		if r.status != http.StatusOK {
			t.Errorf("artifact %d: consume after the rotation: %d %s", i, r.status, r.body)
			continue
		}
		consumed++
	}
	if consumed != n+1 {
		t.Fatalf("%d of %d artifacts consumed after the rotation", consumed, n+1)
	}
}

// TestRetiredAndRevokedKeysReject: the rotated-out key verifies until its
// retire time (the domain's 300 s lifetime plus the 30 s clock skew after
// the rotation) and not from then on; a revoked key rejects everything it
// signed at once with 409 revoked (as every revocation), and a domain whose active key is
// revoked issues nothing.
func TestRetiredAndRevokedKeysReject(t *testing.T) {
	k := newKeyedService(t)
	early := k.issue(t, 1)
	k.rotate(t)
	k.reload(t)
	validate := func(v client.ValidateRequest) response { return k.post(t, "/v1/validate", executorToken, v) }

	// Revoked: at once, whatever its retire time.
	k.reload(t, keyOf(t, early.Artifact))
	if r := validate(early); r.status != http.StatusConflict || !strings.Contains(string(r.body), `"code":"revoked"`) {
		t.Errorf("an artifact of a revoked key: %d %s, want 409 revoked", r.status, r.body)
	}
	// The active key revoked: nothing is signed with it.
	keys, err := standalone.ReadKeys(k.keyDir, "payments", "payments-host")
	if err != nil {
		t.Fatal(err)
	}
	k.reload(t, keys.ActiveID())
	if r := k.post(t, "/v1/authorize", agentToken, example(t, "payment-allow.yaml")); r.status == http.StatusOK {
		t.Errorf("a domain whose active key is revoked issued: %s", r.body)
	}

	// Not revoked: the old key verifies until its retire time (the
	// artifact's own expiry is moved out of the way by validating before
	// it), then it is unknown.
	k.reload(t)
	retire := keys.Keys()[1].RetireAt
	if got, want := retire.Sub(time.Unix(exampleTime+1, 0)), 330*time.Second; got < want {
		t.Fatalf("retire time %v after the rotation, want at least %v", got, want)
	}
	k.now.Store(retire.Unix() - 1)
	k.reload(t)
	if d, _ := k.set.ByName("payments", "payments-host"); !d.HasKey(keyOf(t, early.Artifact)) {
		t.Error("the rotated-out key was removed before its retire time")
	}
	k.now.Store(retire.Unix())
	if r := validate(early); r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `"code":"artifact"`) {
		t.Errorf("an artifact of a retired key: %d %s, want 422 artifact", r.status, r.body)
	}
	k.reload(t)
	if d, _ := k.set.ByName("payments", "payments-host"); d.HasKey(keyOf(t, early.Artifact)) {
		t.Error("a retired key is still in the key set after its retire time")
	}
}

// TestARetryAfterARotationIsTheSameAuthorizationResigned: an identical
// authorize after a key rotation is answered with the same Authorization
// (identities, issuance and expiry) signed by the new active key, so its
// text differs; the two artifacts share one Consumption: consuming one
// leaves the other 409 consumed (docs/api.md, "Retries are safe").
func TestARetryAfterARotationIsTheSameAuthorizationResigned(t *testing.T) {
	k := newKeyedService(t)
	req := example(t, "payment-allow.yaml")
	authorize := func() client.AuthorizeResponse {
		t.Helper()
		r := k.post(t, "/v1/authorize", agentToken, req)
		res := decode[client.AuthorizeResponse](t, r)
		if r.status != http.StatusOK || res.Authorization == nil {
			t.Fatalf("authorize: %d %s", r.status, r.body)
		}
		return res
	}
	first := authorize()
	k.rotate(t)
	k.reload(t)
	again := authorize()
	a, b := *first.Authorization, *again.Authorization
	if keyOf(t, b.Artifact) == keyOf(t, a.Artifact) {
		t.Fatal("the retry after the rotation is signed by the rotated-out key")
	}
	a.Artifact, b.Artifact = "", ""
	if a != b {
		t.Fatalf("the retry after the rotation is another Authorization: %+v, want %+v", b, a)
	}
	if r := k.post(t, "/v1/consume", executorToken, apifixture.Expectations(req, again.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("consume the re-signed artifact: %d %s", r.status, r.body)
	}
	r := k.post(t, "/v1/consume", executorToken, apifixture.Expectations(req, first.Authorization.Artifact))
	if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusConflict || e.Code != "consumed" {
		t.Fatalf("consume the first artifact after its re-signed twin: %d %s; want 409 consumed", r.status, r.body)
	}
}
