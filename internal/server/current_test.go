package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/testutil"
)

// currentSelection is the allow example selecting the current generation
// of each snapshot identity and the active version of its policy.
func currentSelection(t *testing.T) client.AuthorizeRequest {
	t.Helper()
	req := example(t, "payment-allow.yaml")
	req.Registry.Generation = client.Current
	req.Policy.SnapshotGeneration = client.Current
	req.Policy.PolicyGeneration = client.Current
	return req
}

// withIdentities gives req fresh decision and Authorization identities.
func withIdentities(req client.AuthorizeRequest, suffix string) client.AuthorizeRequest {
	req.DecisionID += suffix
	req.AuthorizationID += suffix
	req.ReplayID += suffix
	req.ConsumptionID += suffix
	return req
}

// policyGeneration3 is the samples' payments-policy generation 2 published
// again as generation 3, its lifecycles changed by edit.
func policyGeneration3(t *testing.T, edit func(string) string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "config", "samples", "stk_v1alpha1_policysnapshot_generation2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := strings.NewReplacer("name: payments-policy-2", "name: payments-policy-3", `snapshotGeneration: "2"`, `snapshotGeneration: "3"`).Replace(string(data))
	if edit != nil {
		m = edit(m)
	}
	return m
}

func wantSelection(t *testing.T, r response, registry, snapshot, policy string) client.AuthorizeResponse {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	res := decode[client.AuthorizeResponse](t, r)
	want := client.Selection{
		Registry: client.RegistrySelection{SnapshotID: "primary-registry", Generation: registry},
		Policy:   client.PolicySelection{SnapshotID: "payments-policy", SnapshotGeneration: snapshot, PolicyID: "payments-guardrails", PolicyGeneration: policy},
	}
	if diff := cmp.Diff(want, res.Selection); diff != "" {
		t.Fatalf("selection (-want +got):\n%s", diff)
	}
	return res
}

func TestACurrentSelectionBindsTheCurrentGenerationAndTheActiveVersion(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	res := wantSelection(t, s.post(t, "/v1/authorize", agentToken, currentSelection(t)), "1", "2", "2")
	if res.Authorization == nil {
		t.Fatalf("no authorization: %+v", res)
	}
	if !strings.Contains(s.logText(), `"selection":"primary-registry@1 payments-policy@2 payments-guardrails@2"`) {
		t.Errorf("the decision log does not record the selection made:\n%s", s.logText())
	}
	// Version 2's allow rule obliges an evaluation age of 30 seconds
	// (version 1's: 60): the Decision is version 2's.
	if !slices.Contains(res.Decision.Obligations, client.Obligation{Kind: "maximumEvaluationAgeSeconds", Seconds: 30}) {
		t.Errorf("the decision is not the active version's: %+v", res.Decision.Obligations)
	}
	// The artifact binds the exact selection: the executor's validate
	// rebuilds it, which re-runs issuance on exactly these generations.
	if r := s.post(t, "/v1/validate", executorToken, expectations(t, res.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("validate: %d %s", r.status, r.body)
	}
}

func TestAnExplicitSelectionIsCheckedAsBefore(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	req := example(t, "payment-allow.yaml")
	req.Registry.Generation, req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration = "1", "2", "1"
	// The deprecated version, selected by name, still decides.
	wantSelection(t, s.post(t, "/v1/authorize", agentToken, req), "1", "2", "1")
	req = withIdentities(req, "-b")
	req.Policy.SnapshotGeneration = "1"
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, req), http.StatusConflict, "superseded", "policy")
	req.Policy.SnapshotGeneration = "9"
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, req), http.StatusNotFound, "notFound", "policy")
	for _, bad := range []string{"Current", "latest", "02", ""} {
		req := currentSelection(t)
		req.Policy.PolicyGeneration = bad
		if r := s.post(t, "/v1/authorize", agentToken, req); r.status != http.StatusBadRequest {
			t.Errorf("policyGeneration %q: %d %s, want 400", bad, r.status, r.body)
		}
	}
	// A policy the snapshot does not hold is a deny (policyUnknown); its
	// name is caller input and stays out of the decision log.
	unknown := withIdentities(currentSelection(t), "-unknown")
	unknown.Policy.PolicyID, unknown.Policy.PolicyGeneration = "no-such-policy-q7", "1"
	if res := decode[client.AuthorizeResponse](t, s.post(t, "/v1/authorize", agentToken, unknown)); res.Decision.Outcome != "deny" {
		t.Errorf("an unknown policy: %+v, want deny", res.Decision)
	}
	if log := s.logText(); strings.Contains(log, "no-such-policy-q7") || !strings.Contains(log, `"selection":"primary-registry@1 payments-policy@2"`) {
		t.Errorf("the decision log of an unknown policy:\n%s", log)
	}
	for _, bad := range []string{"Current", "latest", "02"} {
		req := currentSelection(t)
		req.Registry.Generation = bad
		wantRefusal(t, s.post(t, "/v1/authorize", agentToken, req), http.StatusNotFound, "notFound", "registry")
	}
}

func TestPublishingAGenerationMovesTheCurrentSelectionAndBreaksNoAuthorization(t *testing.T) {
	t.Parallel()
	keyDir := t.TempDir()
	s := newService(t, keyDir)
	before := wantSelection(t, s.post(t, "/v1/authorize", agentToken, currentSelection(t)), "1", "2", "2")

	s.reload(t, keyDir, samplesWith(t, nil, policyGeneration3(t, nil)))
	after := wantSelection(t, s.post(t, "/v1/authorize", agentToken, withIdentities(currentSelection(t), "-3")), "1", "3", "2")
	if after.Authorization == nil {
		t.Fatalf("the current selection after the rollout issued nothing: %+v", after)
	}
	// The Authorization issued under generation 2 still consumes.
	if r := s.post(t, "/v1/consume", executorToken, expectations(t, before.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("consume of the generation 2 artifact: %d %s", r.status, r.body)
	}
	// An explicit selection of generation 2 is now superseded.
	old := withIdentities(currentSelection(t), "-2")
	old.Policy.SnapshotGeneration = "2"
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, old), http.StatusConflict, "superseded", "policy")
}

func TestACurrentSelectionNeverFallsBackToAnOlderGeneration(t *testing.T) {
	t.Parallel()
	keyDir := t.TempDir()
	s := newService(t, keyDir)
	s.reload(t, keyDir, samplesWith(t, nil, revocation("revoke-2", "  policySnapshot:\n    snapshotID: payments-policy\n    generation: \"2\"\n")))
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, currentSelection(t)), http.StatusConflict, "revoked", "policy")

	// A current generation in which the policy has no active version
	// selects none: the Host selects only what the authors marked active.
	s.reload(t, keyDir, samplesWith(t, nil, policyGeneration3(t, func(m string) string {
		return strings.ReplaceAll(m, "lifecycle: active", "lifecycle: deprecated")
	})))
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, currentSelection(t)), http.StatusUnprocessableEntity, "ineligible", "policy.policyGeneration")
}

// TestARetryIsIdenticalUnderTheSameSelection: identical means identical
// as selected (docs/api.md, "Retries are safe"). A retry whose selection
// resolves as the first one did is the same request, whether it names the
// generations or "current"; one that resolves to another generation is
// another request.
func TestARetryIsIdenticalUnderTheSameSelection(t *testing.T) {
	t.Parallel()
	keyDir := t.TempDir()
	s := newService(t, keyDir)
	first := wantSelection(t, s.post(t, "/v1/authorize", agentToken, currentSelection(t)), "1", "2", "2")

	s.now.Add(5) // a retry a moment later
	explicit := currentSelection(t)
	explicit.Registry.Generation, explicit.Policy.SnapshotGeneration, explicit.Policy.PolicyGeneration = "1", "2", "2"
	again := wantSelection(t, s.post(t, "/v1/authorize", agentToken, explicit), "1", "2", "2")
	if again.Authorization == nil || again.Authorization.Artifact != first.Authorization.Artifact {
		t.Fatalf("the explicit form of the same selection is not answered with the same artifact")
	}
	if !strings.Contains(s.logText(), `"result":"reissued"`) {
		t.Errorf("the retry is not logged as reissued:\n%s", s.logText())
	}

	// Generation 3 is published; a grace keeps generation 2 selectable.
	s.reload(t, keyDir, samplesWith(t, func(ha string) string {
		return strings.Replace(ha, "  maxAuthorizationLifetimeSeconds:", "  supersededGrace:\n    generations: \"1\"\n  maxAuthorizationLifetimeSeconds:", 1)
	}, policyGeneration3(t, nil)))
	// "current" now resolves to generation 3: another request under the
	// same identities, issued as another Authorization (docs/api.md,
	// "Retries are safe"); only one of the two can ever be consumed.
	other := wantSelection(t, s.post(t, "/v1/authorize", agentToken, currentSelection(t)), "1", "3", "2")
	if other.Authorization == nil || other.Authorization.Artifact == first.Authorization.Artifact {
		t.Fatalf("a current selection resolving to another generation is answered with the first artifact")
	}
	// The retry naming generation 2 is the identical request still.
	third := wantSelection(t, s.post(t, "/v1/authorize", agentToken, explicit), "1", "2", "2")
	if third.Authorization == nil || third.Authorization.Artifact != first.Authorization.Artifact {
		t.Fatalf("the explicit retry under the grace is not answered with the same artifact")
	}
	if r := s.post(t, "/v1/consume", executorToken, expectations(t, other.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("consume of the generation 3 artifact: %d %s", r.status, r.body)
	}
	wantRefusal(t, s.post(t, "/v1/consume", executorToken, expectations(t, first.Authorization.Artifact)), http.StatusConflict, "identityReused", "authorizationID")
}

func TestTheCurrentEndpointSaysWhatCurrentResolvesTo(t *testing.T) {
	t.Parallel()
	keyDir := t.TempDir()
	s := newService(t, keyDir)
	ref := client.CurrentRequest{HostAuthority: client.HostAuthorityRef{Namespace: "payments", Name: "payments-host"}}
	want := client.CurrentResponse{
		Registries: []client.CurrentSnapshot{{SnapshotID: "primary-registry", Generation: "1"}},
		Policies: []client.CurrentPolicySnapshot{{SnapshotID: "payments-policy", Generation: "2",
			Active: []client.PolicyVersion{{PolicyID: "payments-guardrails", PolicyGeneration: "2"}}}},
	}
	shipped, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "api", "current.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{agentToken, executorToken} {
		r := s.post(t, "/v1/current", token, shipped)
		if r.status != http.StatusOK {
			t.Fatalf("current: %d %s", r.status, r.body)
		}
		if diff := cmp.Diff(want, decode[client.CurrentResponse](t, r)); diff != "" {
			t.Errorf("current (-want +got):\n%s", diff)
		}
	}
	s.reload(t, keyDir, samplesWith(t, nil, policyGeneration3(t, nil)))
	want.Policies[0].Generation = "3"
	if diff := cmp.Diff(want, decode[client.CurrentResponse](t, s.post(t, "/v1/current", agentToken, ref))); diff != "" {
		t.Errorf("current after generation 3 (-want +got):\n%s", diff)
	}
	if strings.Contains(s.logText(), `"verb":"current"`) {
		t.Errorf("a read reached the decision log:\n%s", s.logText())
	}

	wantRefusal(t, s.post(t, "/v1/current", strangerToken, ref), http.StatusForbidden, "unauthorized", "caller")
	if r := s.post(t, "/v1/current", "", ref); r.status != http.StatusUnauthorized {
		t.Errorf("no token: %d", r.status)
	}
	other := ref
	other.HostAuthority.Name = "elsewhere"
	wantRefusal(t, s.post(t, "/v1/current", agentToken, other), http.StatusNotFound, "notFound", "hostAuthority")
	wantRefusal(t, s.post(t, "/v1/current", agentToken, []byte(`{"hostAuthority":{"namespace":"payments","name":"payments-host"},"generation":"1"}`)),
		http.StatusBadRequest, "unknownField", "")
	wantRefusal(t, s.post(t, "/v1/current", agentToken, []byte(`{"hostAuthority":{"namespace":"payments"}}`)),
		http.StatusBadRequest, "missing", "hostAuthority.name")
}

// TestARolloutGraceOnTheExistingDomain: the grace is set on the domain
// that already serves, in the HostAuthority's rollout (its spec is
// immutable), and the Authorization issued before it keeps consuming.
func TestARolloutGraceOnTheExistingDomain(t *testing.T) {
	t.Parallel()
	keyDir := t.TempDir()
	s := newService(t, keyDir)
	before := wantSelection(t, s.post(t, "/v1/authorize", agentToken, currentSelection(t)), "1", "2", "2")
	d, _ := s.set.ByName("payments", "payments-host")
	keyID := d.KeyID()

	pinned := withIdentities(currentSelection(t), "-pinned")
	pinned.Policy.SnapshotGeneration = "2"
	s.reload(t, keyDir, samplesWith(t, nil, policyGeneration3(t, nil)))
	wantRefusal(t, s.post(t, "/v1/authorize", agentToken, pinned), http.StatusConflict, "superseded", "policy")

	s.reload(t, keyDir, samplesWith(t, func(ha string) string {
		return ha + "rollout:\n  supersededGrace:\n    generations: \"1\"\n"
	}, policyGeneration3(t, nil)))
	wantSelection(t, s.post(t, "/v1/authorize", agentToken, pinned), "1", "2", "2")
	if d, _ := s.set.ByName("payments", "payments-host"); d.KeyID() != keyID {
		t.Error("the grace made a new signing key")
	}
	if r := s.post(t, "/v1/consume", executorToken, expectations(t, before.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("consume of the artifact issued before the grace: %d %s", r.status, r.body)
	}
}
