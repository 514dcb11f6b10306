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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

// shadowCreated and shadowUntil open and close the window of the shadow
// generation the shadow tests publish: the service clock starts inside it.
const (
	shadowCreated = exampleTime - 3600
	shadowUntil   = exampleTime + 30 // the example requests' facts are valid for minutes
)

// shadowGeneration writes, in dir, payments-policy generation gen: the
// samples' generation 2 with payments-guardrails version 2 deprecated and a
// version 3 that also denies every payment (deny-payments-under-review),
// as a shadow of gen−1 when shadow is set.
func shadowGeneration(t testing.TB, dir, gen string, shadow bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "config", "samples", "stk_v1alpha1_policysnapshot_generation2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var o v1alpha1.PolicySnapshot
	if err := yaml.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	o.Name, o.Spec.SnapshotGeneration = "payments-policy-"+gen, v1alpha1.Generation(gen)
	o.CreationTimestamp = metav1.Unix(shadowCreated, 0)
	v3 := *o.Spec.Policies[1].DeepCopy()
	o.Spec.Policies[1].Lifecycle = "deprecated"
	v3.Generation = "3"
	v3.Rules = append(v3.Rules, v1alpha1.PolicyRule{
		ID: "deny-payments-under-review", Effect: "deny", Reason: "provenanceInsufficient",
		Condition: apiextensionsv1.JSON{Raw: []byte(`{"predicate":{"name":"exactToolID","identifier":"payments.submit"}}`)},
	})
	o.Spec.Policies = append(o.Spec.Policies, v3)
	if shadow {
		prev := map[string]string{"3": "2", "4": "3"}[gen]
		o.Spec.Shadow = &v1alpha1.PolicyShadow{Of: v1alpha1.Generation(prev), Until: metav1.Unix(shadowUntil, 0)}
	}
	out, err := yaml.Marshal(&o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policysnapshot-"+gen+".yaml"), out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// newShadowService serves the samples and the manifests in extra, as
// newService does.
func newShadowService(t testing.TB, extra string, change ...func(*server.Config)) *service {
	t.Helper()
	domains, err := standalone.Load(t.TempDir(), filepath.Join(testutil.RepoRoot(t), "config", "samples"), extra)
	if err != nil {
		t.Fatal(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		t.Fatal(err)
	}
	tokens, err := server.NewTokens([]server.TokenEntry{
		{Token: agentToken, Name: "system:serviceaccount:payments:payments-agent-runtime"},
	})
	if err != nil {
		t.Fatal(err)
	}
	svc := &service{store: &memStore{seen: map[consume.Key]bool{}, held: map[[3]string]string{}}, log: &bytes.Buffer{}, logMu: &sync.Mutex{},
		set: &set, now: &atomic.Int64{}}
	svc.now.Store(exampleTime + 1)
	svc.store.clock = func() time.Time { return time.Unix(svc.now.Load(), 0) }
	cfg := server.Config{
		Domains: &set, Auth: tokens, Store: svc.store, Log: server.NewDecisionLog(lockedBuffer{svc.logMu, svc.log}, 1024, true),
		Clock: func() time.Time { return time.Unix(svc.now.Load(), 0) },
	}
	for _, c := range change {
		c(&cfg)
	}
	svc.srv, err = server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(svc.srv.Handler())
	t.Cleanup(ts.Close)
	svc.url = ts.URL
	return svc
}

// lastEntry is the service's last decision-log line.
func lastEntry(t *testing.T, s *service) server.Entry {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(s.logText()), "\n")
	var e server.Entry
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func authorizeAs(t *testing.T, s *service, req client.AuthorizeRequest) (int, client.AuthorizeResponse) {
	t.Helper()
	r := s.post(t, "/v1/authorize", agentToken, req)
	var out client.AuthorizeResponse
	if r.status == http.StatusOK {
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatal(err)
		}
	}
	return r.status, out
}

// TestShadowNeverIssuesAndIsNeverSelectable: with generation 3 a shadow
// of generation 2, the current selection stays generation 2, which
// decides and issues; generation 3 is evaluated beside it and logged
// (allow by the live generation, deny by the shadow, and the rule behind
// it), never issues, and an explicit selection of it is not served.
func TestShadowNeverIssuesAndIsNeverSelectable(t *testing.T) {
	dir := t.TempDir()
	shadowGeneration(t, dir, "3", true)
	s := newShadowService(t, dir)

	status, out := authorizeAs(t, s, example(t, "payment-allow.yaml"))
	if status != http.StatusOK || out.Decision.Outcome != "allow" || out.Authorization == nil || out.Selection.Policy.SnapshotGeneration != "2" {
		t.Fatalf("%d %+v: the current generation must decide and issue", status, out)
	}
	e := lastEntry(t, s)
	want := &server.ShadowEntry{Generation: "3", Tool: "payments.submit", Outcome: "deny", Changed: true,
		RulesAdded:   []string{"deny-payments-under-review"},
		ReasonsAdded: []string{"denyRuleMatched", "provenanceInsufficient"},
		// A deny has no scope.
		CapabilitiesRemoved: []string{"data.read", "financial.transfer"}, ResourcesRemoved: []string{"acct-1001", "acct-2002"}}
	if got, _ := json.Marshal(e.Shadow); string(got) != string(mustJSON(t, want)) {
		t.Errorf("shadow entry\n got %s\nwant %s", got, mustJSON(t, want))
	}
	if e.Outcome != "allow" || e.Result != "issued" {
		t.Errorf("live entry %+v", e)
	}
	if m := metricLine(t, s, `toolgate_shadow_decisions_total{live="allow",shadow="deny",tool="payments.submit"}`); !strings.HasSuffix(m, " 1") {
		t.Errorf("metric %q", m)
	}
	if m := metricLine(t, s, `toolgate_shadow_rule_changes_total{change="added",rule="deny-payments-under-review",tool="payments.submit"}`); !strings.HasSuffix(m, " 1") {
		t.Errorf("metric %q", m)
	}

	for _, gen := range []string{"3"} {
		req := example(t, "payment-allow.yaml")
		req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration = gen, "3"
		req.AuthorizationID, req.ReplayID, req.ConsumptionID = "authz-shadow", "replay-shadow", "consumption-shadow"
		if status, _ := authorizeAs(t, s, req); status != http.StatusNotFound {
			t.Errorf("explicit shadow generation %s: %d, want 404 notFound", gen, status)
		}
	}
	// An explicit generation asks for that generation only: no shadow.
	req := example(t, "payment-allow.yaml")
	req.Policy.SnapshotGeneration = "2"
	if status, _ := authorizeAs(t, s, req); status != http.StatusOK || lastEntry(t, s).Shadow != nil {
		t.Errorf("explicit current generation: %d, shadow %+v", status, lastEntry(t, s).Shadow)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShadowExpires: from spec.shadow.until on, the shadow is not
// evaluated.
func TestShadowExpires(t *testing.T) {
	dir := t.TempDir()
	shadowGeneration(t, dir, "3", true)
	s := newShadowService(t, dir)
	s.now.Store(shadowUntil)
	req := example(t, "payment-allow.yaml")
	if status, _ := authorizeAs(t, s, req); status != http.StatusOK || lastEntry(t, s).Shadow != nil {
		t.Errorf("at until: %d, shadow %+v", status, lastEntry(t, s).Shadow)
	}
	s.now.Store(shadowUntil - 1)
	req.AuthorizationID, req.ReplayID, req.ConsumptionID = "authz-2", "replay-2", "consumption-2"
	if status, _ := authorizeAs(t, s, req); status != http.StatusOK || lastEntry(t, s).Shadow == nil {
		t.Errorf("before until: %d, no shadow", status)
	}
}

// TestPromotionIsTheOnlyWayToDecide: publishing generation 4 with the
// shadow's content and no spec.shadow makes it current: it decides (deny,
// by the rule the shadow reported), and the shadow, no longer beside the
// current generation, is not evaluated.
func TestPromotionIsTheOnlyWayToDecide(t *testing.T) {
	dir := t.TempDir()
	shadowGeneration(t, dir, "3", true)
	shadowGeneration(t, dir, "4", false)
	s := newShadowService(t, dir)
	status, out := authorizeAs(t, s, example(t, "payment-allow.yaml"))
	if status != http.StatusOK || out.Selection.Policy.SnapshotGeneration != "4" || out.Decision.Outcome != "deny" || out.Authorization != nil {
		t.Fatalf("%d %+v: the promoted generation must decide", status, out)
	}
	if e := lastEntry(t, s); e.Shadow != nil {
		t.Errorf("a promoted shadow is still evaluated: %+v", e.Shadow)
	}
}

// BenchmarkAuthorizeCurrent and BenchmarkAuthorizeBesideShadow are the
// same current-selection authorize of the payment example, without and
// with a shadow generation evaluated beside it and recorded (docs/shadow.md,
// "Cost"): their cpu-µs/op differ by the shadow's cost.
func BenchmarkAuthorizeCurrent(b *testing.B) { benchmarkShadow(b, false) }

// BenchmarkAuthorizeBesideShadow: see BenchmarkAuthorizeCurrent.
func BenchmarkAuthorizeBesideShadow(b *testing.B) { benchmarkShadow(b, true) }

func benchmarkShadow(b *testing.B, shadow bool) {
	dir := b.TempDir()
	if shadow {
		shadowGeneration(b, dir, "3", true)
	}
	s := newShadowService(b, dir, quietLog)
	body, err := json.Marshal(example(b, "payment-allow.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	benchPost(b, s.srv.Handler(), "/v1/authorize", agentToken, body)
}
