package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

// samplesWith copies the shipped samples to a new directory, applies edit
// to the HostAuthority manifest, adds extra manifests, and returns the
// directory.
func samplesWith(t *testing.T, editHostAuthority func(string) string, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(testutil.RepoRoot(t), "config", "samples")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "kustomization.yaml" || e.IsDir() { // serviceaccounts/: not toolgate manifests
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "stk_v1alpha1_hostauthority.yaml" && editHostAuthority != nil {
			data = []byte(editHostAuthority(string(data)))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range extra {
		if err := os.WriteFile(filepath.Join(dir, "extra-"+string(rune('a'+i))+".yaml"), []byte(m), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// reload serves the manifests of dir in s, as a standalone reload does.
func (s *service) reload(t *testing.T, keyDir, dir string) {
	t.Helper()
	domains, err := standalone.Load(keyDir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.set.Replace(domains...); err != nil {
		t.Fatal(err)
	}
}

func wantRefusal(t *testing.T, r response, status int, code, path string) {
	t.Helper()
	e := decode[client.ErrorResponse](t, r).Error
	if r.status != status || e.Code != code || e.Path != path {
		t.Fatalf("got %d %s at %q, want %d %s at %q: %s", r.status, e.Code, e.Path, status, code, path, r.body)
	}
}

func TestAnAuthorizeSelectingASupersededGenerationIsRefused(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir()) // the samples serve payments-policy generations 1 and 2
	req := example(t, "payment-allow.yaml")
	req.Policy.SnapshotGeneration = "1"
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, req), http.StatusConflict, "superseded", "policy")
	if !strings.Contains(s.logText(), `"result":"rejected","code":"superseded","path":"policy"`) {
		t.Errorf("the refusal is not in the decision log:\n%s", s.logText())
	}
	req.Policy.SnapshotGeneration = "2"
	if r := s.post(t, "/v1/authorize", agentToken, req); r.status != http.StatusOK {
		t.Fatalf("the current generation: %d %s", r.status, r.body)
	}
}

func TestAHostAuthorityGraceKeepsTheRecentGenerationSelectable(t *testing.T) {
	t.Parallel()
	keyDir := t.TempDir()
	s := newService(t, keyDir)
	s.reload(t, keyDir, samplesWith(t, func(ha string) string {
		return strings.Replace(ha, "  maxAuthorizationLifetimeSeconds:", "  supersededGrace:\n    generations: \"1\"\n  maxAuthorizationLifetimeSeconds:", 1)
	}))
	req := example(t, "payment-allow.yaml")
	req.Policy.SnapshotGeneration = "1"
	r := s.post(t, "/v1/authorize", agentToken, req)
	if r.status != http.StatusOK || decode[client.AuthorizeResponse](t, r).Authorization == nil {
		t.Fatalf("generation 1 within a grace of one generation: %d %s", r.status, r.body)
	}
}

// revocation is a Revocation manifest in the samples' domain.
func revocation(name, target string) string {
	return "apiVersion: stk.toolgate.dev/v1alpha1\nkind: Revocation\nmetadata:\n  name: " + name +
		"\n  namespace: payments\nspec:\n  hostAuthorityRef:\n    name: payments-host\n  reason: test\n" + target
}

func TestARevocationRefusesWhatItNamesAtValidateConsumeAndAuthorize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// target is the RevocationSpec member; %AUTH% and %KEY% stand for
		// the issued Authorization's identity and the domain's key.
		target string
		// authorizePath is where a new authorize of the same example is
		// refused.
		authorizePath string
	}{
		{"the policy generation it was issued under", "  policySnapshot:\n    snapshotID: payments-policy\n    generation: \"2\"\n", "policy"},
		{"the registry generation it was issued under", "  toolRegistry:\n    snapshotID: primary-registry\n    generation: \"1\"\n", "registry"},
		{"its tool version", "  tool:\n    toolID: payments.submit\n    version: \"1\"\n", "artifact"},
		{"the Authorization itself", "  authorization:\n    id: %AUTH%\n", "artifact"},
		// The domain's only key revoked: it never signs again, so authorize
		// issues nothing until the key is rotated (keys_test.go).
		{"the key that signed it", "  signingKey:\n    keyID: %KEY%\n", "signingKey"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			keyDir := filepath.Join(t.TempDir(), "keys")
			s := newService(t, keyDir)
			issued := s.authorize(t)
			exp := expectations(t, issued.Authorization.Artifact)
			if r := s.post(t, "/v1/validate", executorToken, exp); r.status != http.StatusOK {
				t.Fatalf("before the revocation: %d %s", r.status, r.body)
			}
			d, _ := s.set.ByName("payments", "payments-host")
			target := strings.NewReplacer("%AUTH%", issued.Authorization.ID, "%KEY%", d.KeyID()).Replace(tc.target)
			s.reload(t, keyDir, samplesWith(t, nil, revocation("revoke-it", target)))

			wantRefusal(t, s.post(t, "/v1/validate", executorToken, exp), http.StatusConflict, "revoked", "artifact")
			wantRefusal(t, s.post(t, "/v1/consume", executorToken, exp), http.StatusConflict, "revoked", "artifact")
			s.store.mu.Lock()
			consumed := len(s.store.seen)
			s.store.mu.Unlock()
			if consumed != 0 {
				t.Error("a revoked Authorization reached the Consumption store")
			}
			if tc.authorizePath == "signingKey" {
				wantRefusal(t, s.post(t, "/v1/authorize", agentToken, example(t, "payment-allow.yaml")), http.StatusUnprocessableEntity, "ineligible", "signingKey")
			} else {
				wantRefusal(t, s.post(t, "/v1/authorize", agentToken, example(t, "payment-allow.yaml")), http.StatusConflict, "revoked", tc.authorizePath)
			}

			// Append-only: the manifest gone, the ledger keeps it in force.
			s.reload(t, keyDir, samplesWith(t, nil))
			wantRefusal(t, s.post(t, "/v1/consume", executorToken, exp), http.StatusConflict, "revoked", "artifact")
		})
	}
}

func TestARevocationOfAnotherDomainOrThingChangesNothing(t *testing.T) {
	t.Parallel()
	keyDir := filepath.Join(t.TempDir(), "keys")
	s := newService(t, keyDir)
	issued := s.authorize(t)
	s.reload(t, keyDir, samplesWith(t, nil,
		revocation("other-tool", "  tool:\n    toolID: email.send\n    version: \"1\"\n"),
		revocation("other-auth", "  authorization:\n    id: authz-someone-else\n"),
		strings.Replace(revocation("other-domain", "  policySnapshot:\n    snapshotID: payments-policy\n    generation: \"2\"\n"), "name: payments-host", "name: other-host", 1),
	))
	if r := s.post(t, "/v1/consume", executorToken, expectations(t, issued.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("consume after unrelated revocations: %d %s", r.status, r.body)
	}
	d, _ := s.set.ByName("payments", "payments-host")
	if serving.ReasonOf(d.Selectable(serving.Selection{RegistryID: "primary-registry", RegistryGeneration: "1", PolicyID: "payments-policy", PolicyGeneration: "2"}, fixedNow(s))) != 0 {
		t.Error("a revocation in another domain refused this one's current generation")
	}
}

func fixedNow(s *service) time.Time { return time.Unix(s.now.Load(), 0) }

// TestARevokedIdentityIsRefusedBeforeAnyClaim: an Authorization identity
// revoked ahead of its issuance is refused at authorize before the
// Consumption store is asked anything (no identity is looked up for an
// artifact that is never handed out), and the request leaves nothing
// behind.
func TestARevokedIdentityIsRefusedBeforeAnyClaim(t *testing.T) {
	t.Parallel()
	keyDir := filepath.Join(t.TempDir(), "keys")
	s := newService(t, keyDir)
	req := example(t, "payment-allow.yaml")
	s.reload(t, keyDir, samplesWith(t, nil, revocation("ahead", "  authorization:\n    id: "+req.AuthorizationID+"\n")))
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, req), http.StatusConflict, "revoked", "artifact")
	s.store.mu.Lock()
	asked, held := s.store.helds, len(s.store.held)
	s.store.mu.Unlock()
	if asked != 0 || held != 0 {
		t.Errorf("a refused issuance asked the store %d times and left %d identities held", asked, held)
	}
}
