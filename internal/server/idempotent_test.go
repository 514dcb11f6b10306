package server_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/testutil/apifixture"
)

// Idempotent authorize (docs/decisions.md, "The durable write belongs to
// Consumption"): within a domain at most one Authorization naming an
// identity is consumed; an identical authorize on the same replica is
// answered with the same Authorization, without a durable write.

// authorizeRaw posts req as the agent runtime and decodes the answer.
func (s *service) authorizeRaw(t testing.TB, req client.AuthorizeRequest) (response, client.AuthorizeResponse) {
	t.Helper()
	r := s.post(t, "/v1/authorize", agentToken, req)
	var res client.AuthorizeResponse
	if r.status == http.StatusOK {
		res = decode[client.AuthorizeResponse](t, r)
	}
	return r, res
}

func TestIdenticalAuthorizeRepeated64TimesConcurrentlyYieldsOneArtifact(t *testing.T) {
	t.Parallel()
	// Every eighth read of the service clock is a second later, so without
	// the replica's record of what it issued the requests would get
	// several Authorizations; the clock stops once they are answered,
	// within the artifact's lifetime.
	var tick atomic.Int64
	var stopped atomic.Bool
	clock := func() time.Time {
		if stopped.Load() {
			return time.Unix(exampleTime+1+tick.Load()/8, 0)
		}
		return time.Unix(exampleTime+1+tick.Add(1)/8, 0)
	}
	store, err := boltstore.Open(t.TempDir(), boltstore.Options{Clock: clock, SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	s := newServiceWith(t, t.TempDir(), func(c *server.Config) { c.Store, c.Clock = store, clock })

	const n = 64
	req := example(t, "payment-allow.yaml")
	artifacts := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			r, res := s.authorizeRaw(t, req)
			if r.status != http.StatusOK || res.Authorization == nil {
				t.Errorf("authorize %d: %d %s", i, r.status, r.body)
				return
			}
			artifacts[i] = res.Authorization.Artifact
		})
	}
	close(start)
	wg.Wait()
	stopped.Store(true)
	distinct := map[string]bool{}
	for _, a := range artifacts {
		distinct[a] = true
	}
	if len(distinct) != 1 {
		t.Fatalf("%d identical authorizes yielded %d distinct artifacts, want 1", n, len(distinct))
	}

	// Every artifact handed out (here one) is consumed at most once among
	// n concurrent consumes of each.
	var consumed atomic.Int64
	for a := range distinct {
		for range n {
			wg.Go(func() {
				if r := s.post(t, "/v1/consume", executorToken, expectations(t, a)); r.status == http.StatusOK {
					consumed.Add(1)
				}
			})
		}
	}
	wg.Wait()
	if consumed.Load() != 1 {
		t.Fatalf("%d consumes succeeded, want 1", consumed.Load())
	}
}

// TestAnAuthorizeRetryReturnsTheSameArtifact: an identical authorize
// on the same replica before the Authorization expires is answered with
// the same artifact. After it expired, the identical request is issued
// anew under the same identities (the dead artifact is no answer); once
// an Authorization naming them is consumed, it is 409 identityReused.
func TestAnAuthorizeRetryReturnsTheSameArtifact(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	req := example(t, "payment-allow.yaml")
	_, first := s.authorizeRaw(t, req)
	if first.Authorization == nil {
		t.Fatal("the allow example issued no authorization")
	}
	lifetime := int64(first.Authorization.ExpiresAt - first.Authorization.IssuedAt)
	for _, later := range []int64{1, 30, lifetime - 1} {
		s.now.Store(int64(first.Authorization.IssuedAt) + later)
		r, again := s.authorizeRaw(t, req)
		if r.status != http.StatusOK || again.Authorization == nil || *again.Authorization != *first.Authorization {
			t.Fatalf("retry %d s later: %d %s; want the first authorization", later, r.status, r.body)
		}
		if again.Decision.ID != first.Decision.ID || len(again.Decision.Reasons) != len(first.Decision.Reasons) {
			t.Fatalf("retry %d s later: decision %+v, want %+v", later, again.Decision, first.Decision)
		}
	}
	s.now.Store(int64(first.Authorization.IssuedAt) + 1)
	if got := s.logText(); !strings.Contains(got, `"result":"reissued"`) {
		t.Errorf("the decision log does not tell a retry from an issuance:\n%s", got)
	}
	// A retry whose body differs only in layout (member order, white
	// space; the arguments and intent binding byte for byte) is the same
	// request.
	r := s.post(t, "/v1/authorize", agentToken, relaidOut(t, req))
	if again := decode[client.AuthorizeResponse](t, r); r.status != http.StatusOK || again.Authorization == nil || *again.Authorization != *first.Authorization {
		t.Fatalf("the same request laid out differently: %d %s", r.status, r.body)
	}
	// Once it has expired, the identical request is issued anew at the
	// service's clock, under the same identities: a second artifact, of
	// which at most one is ever consumed.
	at := int64(first.Authorization.IssuedAt) + lifetime + 5
	s.now.Store(at)
	r, fresh := s.authorizeRaw(t, req)
	if r.status != http.StatusOK || fresh.Authorization == nil || fresh.Authorization.Artifact == first.Authorization.Artifact ||
		fresh.Authorization.ID != first.Authorization.ID || int64(fresh.Authorization.IssuedAt) != at {
		t.Fatalf("the identical request after expiry: %d %s; want a new artifact issued now under the same identities", r.status, r.body)
	}
	if r := s.post(t, "/v1/consume", executorToken, expectations(t, fresh.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("consume the new artifact: %d %s", r.status, r.body)
	}
	// Consumed and expired, its identities are held: neither artifact
	// again, nor a third.
	s.now.Store(at + lifetime)
	r, _ = s.authorizeRaw(t, req)
	if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusConflict || e.Code != "identityReused" || e.Path != "authorizationID" {
		t.Fatalf("the identical request after its Authorization was consumed and expired: %d %s; want 409 identityReused at authorizationID", r.status, r.body)
	}
}

// TestReusingAnIdentityForAnotherRequestIsRefused: once an Authorization is
// consumed, an authorize of another request naming one of its identities
// is refused at that identity's path.
func TestReusingAnIdentityForAnotherRequestIsRefused(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	req := example(t, "payment-allow.yaml")
	_, first := s.authorizeRaw(t, req)
	if first.Authorization == nil {
		t.Fatal("the allow example issued no authorization")
	}
	if r := s.post(t, "/v1/consume", executorToken, expectations(t, first.Authorization.Artifact)); r.status != http.StatusOK {
		t.Fatalf("consume: %d %s", r.status, r.body)
	}
	s.now.Add(2)
	for name, tc := range identityReuses() {
		t.Run(name, func(t *testing.T) {
			other := example(t, "payment-allow.yaml")
			tc.change(&other)
			r := s.post(t, "/v1/authorize", agentToken, other)
			e := decode[client.ErrorResponse](t, r).Error
			if r.status != http.StatusConflict || e.Code != "identityReused" || e.Path != tc.wantPath {
				t.Fatalf("%d %s; want 409 identityReused at %s", r.status, r.body, tc.wantPath)
			}
			if strings.Contains(string(r.body), "artifact") {
				t.Fatalf("a refused request carries an artifact: %s", r.body)
			}
		})
	}
}

// identityReuses are requests other than payment-allow.yaml's that name
// one or more of its identities, and the path a refusal names.
func identityReuses() map[string]struct {
	change   func(*client.AuthorizeRequest)
	wantPath string
} {
	fresh := func(r *client.AuthorizeRequest, keep string) {
		if keep != "authorizationID" {
			r.AuthorizationID += "-other"
		}
		if keep != "replayID" {
			r.ReplayID += "-other"
		}
		if keep != "consumptionID" {
			r.ConsumptionID += "-other"
		}
	}
	return map[string]struct {
		change   func(*client.AuthorizeRequest)
		wantPath string
	}{
		"every identity, another decision identity": {func(r *client.AuthorizeRequest) { r.DecisionID += "-other" }, "authorizationID"},
		"every identity, a shorter lifetime":        {func(r *client.AuthorizeRequest) { r.MaxLifetimeSeconds-- }, "authorizationID"},
		"every identity, other arguments": {func(r *client.AuthorizeRequest) {
			r.Proposal.Arguments = json.RawMessage(`{"currency":"eur","amount":12501,"debtor-account":"acct-1001","creditor-account":"acct-2002"}`)
		}, "authorizationID"},
		"the Authorization identity only": {func(r *client.AuthorizeRequest) { fresh(r, "authorizationID"); r.DecisionID += "-o" }, "authorizationID"},
		"the replay identity only":        {func(r *client.AuthorizeRequest) { fresh(r, "replayID"); r.DecisionID += "-o" }, "replayID"},
		"the Consumption identity only":   {func(r *client.AuthorizeRequest) { fresh(r, "consumptionID"); r.DecisionID += "-o" }, "consumptionID"},
	}
}

// TestTwoArtifactsNamingOneIdentityPermitOneConsumption: two Authorizations
// naming one identity — another request on the same replica, the
// identical request on another replica (a second later), the identical
// request after a restart — are both issued, and only the first consumed
// is ever consumed: the other is 409 identityReused at the first identity
// they share, on either replica, and stays so; the first one's own
// artifact again is 409 consumed.
func TestTwoArtifactsNamingOneIdentityPermitOneConsumption(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		change   func(*client.AuthorizeRequest)
		replica  bool // the second authorize on the other replica, a second later
		restart  bool // the second authorize on a restarted replica
		wantPath string
	}{
		"the identical request on another replica":        {func(*client.AuthorizeRequest) {}, true, false, "authorizationID"},
		"the identical request after a restart":           {func(*client.AuthorizeRequest) {}, false, true, "authorizationID"},
		"another request naming the consumption identity": {identityReuses()["the Consumption identity only"].change, false, false, "consumptionID"},
		"another request naming every identity":           {identityReuses()["every identity, another decision identity"].change, true, false, "authorizationID"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			keys := t.TempDir()
			a := newService(t, keys)
			share := func(c *server.Config) { c.Store = a.store }
			b := newServiceWith(t, keys, share)
			req := example(t, "payment-allow.yaml")
			_, x := a.authorizeRaw(t, req)
			other := example(t, "payment-allow.yaml")
			tc.change(&other)
			second := a
			switch {
			case tc.replica:
				second = b
			case tc.restart:
				second = newServiceWith(t, keys, share) // nothing issued survives but the key set
			}
			// A second later on another replica or after a restart (in the
			// same second, deterministic issuance gives the same artifact).
			later := a.now.Load() + 1
			for _, s := range []*service{a, b, second} {
				s.now.Store(later)
			}
			_, y := second.authorizeRaw(t, other)
			if x.Authorization == nil || y.Authorization == nil || x.Authorization.Artifact == y.Authorization.Artifact {
				t.Fatalf("want two artifacts: %+v, %+v", x.Authorization, y.Authorization)
			}
			if r := b.post(t, "/v1/consume", executorToken, apifixture.Expectations(other, y.Authorization.Artifact)); r.status != http.StatusOK {
				t.Fatalf("consume the second artifact: %d %s", r.status, r.body)
			}
			for _, s := range []*service{a, b} {
				r := s.post(t, "/v1/consume", executorToken, apifixture.Expectations(req, x.Authorization.Artifact))
				if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusConflict || e.Code != "identityReused" || e.Path != tc.wantPath {
					t.Fatalf("consume the first artifact after the second: %d %s; want 409 identityReused at %s", r.status, r.body, tc.wantPath)
				}
				r = s.post(t, "/v1/consume", executorToken, apifixture.Expectations(other, y.Authorization.Artifact))
				if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusConflict || e.Code != "consumed" {
					t.Fatalf("consume the second artifact again: %d %s; want 409 consumed", r.status, r.body)
				}
			}
		})
	}
}

// TestAuthorizeFailsClosedWhenTheStoreCannotAnswer: an issuing authorize
// asks the store whether an identity is held; when it cannot answer,
// nothing is issued. A deny asks nothing, and an identical retry on the
// same replica is answered from what it issued.
func TestAuthorizeFailsClosedWhenTheStoreCannotAnswer(t *testing.T) {
	t.Parallel()
	s := newService(t, t.TempDir())
	_, first := s.authorizeRaw(t, example(t, "payment-allow.yaml"))
	if first.Authorization == nil {
		t.Fatal("the allow example issued no authorization")
	}
	s.store.setDown(true)
	other := example(t, "payment-allow.yaml")
	other.AuthorizationID, other.ReplayID, other.ConsumptionID = other.AuthorizationID+"-2", other.ReplayID+"-2", other.ConsumptionID+"-2"
	r := s.post(t, "/v1/authorize", agentToken, other)
	if e := decode[client.ErrorResponse](t, r).Error; r.status != http.StatusServiceUnavailable || e.Code != "unavailable" {
		t.Fatalf("%d %s; want 503 unavailable", r.status, r.body)
	}
	// A deny issues nothing and asks nothing: still answered.
	r = s.post(t, "/v1/authorize", agentToken, example(t, "payment-deny.yaml"))
	if res := decode[client.AuthorizeResponse](t, r); r.status != http.StatusOK || res.Decision.Outcome != "deny" {
		t.Fatalf("deny while the store is down: %d %s", r.status, r.body)
	}
	if _, again := s.authorizeRaw(t, example(t, "payment-allow.yaml")); again.Authorization == nil || *again.Authorization != *first.Authorization {
		t.Fatalf("an identical retry while the store is down: %+v, want the first authorization", again.Authorization)
	}
	s.store.setDown(false)
	if _, res := s.authorizeRaw(t, other); res.Authorization == nil {
		t.Fatal("no authorization once the store answers again")
	}
}

// The same-replica retry rests on this: issuance is a function of the
// request and the time, and Ed25519 signatures are deterministic, so two
// services holding the same key issue the same bytes for one request at
// one time (and a replica re-issuing at a recorded time reproduces it).
func TestIssuanceIsDeterministic(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	a, b := newService(t, keys), newService(t, keys)
	_, x := a.authorizeRaw(t, example(t, "payment-allow.yaml"))
	_, y := b.authorizeRaw(t, example(t, "payment-allow.yaml"))
	if x.Authorization == nil || y.Authorization == nil || x.Authorization.Artifact != y.Authorization.Artifact {
		t.Fatalf("one request at one time with one key: artifacts differ:\n%+v\n%+v", x.Authorization, y.Authorization)
	}
	// And the time matters: a second later is another Authorization.
	b2 := newService(t, keys)
	b2.now.Add(1)
	_, z := b2.authorizeRaw(t, example(t, "payment-allow.yaml"))
	if z.Authorization == nil || z.Authorization.Artifact == x.Authorization.Artifact {
		t.Fatal("issuance a second later gave the same artifact: the test would prove nothing")
	}
}

// relaidOut is req's body with its top-level members in reverse order and
// white space between them; every member's value is encoded as before.
func relaidOut(t *testing.T, req client.AuthorizeRequest) []byte {
	t.Helper()
	compact, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(compact, &members); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ,\n")
		}
		b.WriteString("  \"" + k + "\" :  ")
		b.Write(members[k])
	}
	b.WriteString("\n}\n")
	if b.String() == string(compact) {
		t.Fatal("relaidOut changed nothing")
	}
	return []byte(b.String())
}

func TestRequestDigestIsTheRequestAsDecodedAndItsCaller(t *testing.T) {
	t.Parallel()
	base := example(t, "payment-allow.yaml")
	caller := host.Caller{Name: "system:serviceaccount:payments:payments-agent-runtime", Groups: []string{"a", "b"}}
	want := server.RequestDigest(&base, caller)
	if len(want) != 64 {
		t.Fatalf("digest %q: want 64 hex digits", want)
	}
	same := map[string]func(*client.AuthorizeRequest, *host.Caller){
		"the groups in another order": func(_ *client.AuthorizeRequest, c *host.Caller) { c.Groups = []string{"b", "a"} },
		"a group twice":               func(_ *client.AuthorizeRequest, c *host.Caller) { c.Groups = []string{"a", "b", "a"} },
	}
	differ := map[string]func(*client.AuthorizeRequest, *host.Caller){
		"another caller":            func(_ *client.AuthorizeRequest, c *host.Caller) { c.Name += "-2" },
		"another group":             func(_ *client.AuthorizeRequest, c *host.Caller) { c.Groups = []string{"a", "c"} },
		"no groups":                 func(_ *client.AuthorizeRequest, c *host.Caller) { c.Groups = nil },
		"another decision identity": func(r *client.AuthorizeRequest, _ *host.Caller) { r.DecisionID += "x" },
		"another lifetime":          func(r *client.AuthorizeRequest, _ *host.Caller) { r.MaxLifetimeSeconds++ },
		"a requested resource less": func(r *client.AuthorizeRequest, _ *host.Caller) {
			r.RequestedResources = r.RequestedResources[:len(r.RequestedResources)-1]
		},
		"white space in the arguments": func(r *client.AuthorizeRequest, _ *host.Caller) {
			r.Proposal.Arguments = append(json.RawMessage(" "), r.Proposal.Arguments...)
		},
		"white space in the intent binding": func(r *client.AuthorizeRequest, _ *host.Caller) {
			r.Facts.Intent.Binding = append(json.RawMessage(" "), r.Facts.Intent.Binding...)
		},
		// The raw members are length-prefixed: moving octets from one to
		// the other is another request.
		"an octet moved between the raw members": func(r *client.AuthorizeRequest, _ *host.Caller) {
			args := r.Proposal.Arguments
			r.Facts.Intent.Binding = append(json.RawMessage{args[len(args)-1]}, r.Facts.Intent.Binding...)
			r.Proposal.Arguments = args[:len(args)-1]
		},
	}
	for name, change := range same {
		r, c := example(t, "payment-allow.yaml"), caller
		change(&r, &c)
		if got := server.RequestDigest(&r, c); got != want {
			t.Errorf("%s: another digest, want the same", name)
		}
	}
	for name, change := range differ {
		r, c := example(t, "payment-allow.yaml"), caller
		change(&r, &c)
		if got := server.RequestDigest(&r, c); got == want {
			t.Errorf("%s: the same digest, want another", name)
		}
	}
}

// referenceRequestDigest is RequestDigest as first written (idempotent
// authorize's first version), with json.Marshal: the pooled form must
// write the same octets, so that it is the same relation on requests.
func referenceRequestDigest(req *client.AuthorizeRequest, caller host.Caller) string {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte("toolgate.authorize-request/1"))
	field([]byte(caller.Name))
	groups := slices.Compact(slices.Sorted(slices.Values(caller.Groups)))
	var count [8]byte
	binary.BigEndian.PutUint64(count[:], uint64(len(groups)))
	h.Write(count[:])
	for _, g := range groups {
		field([]byte(g))
	}
	rest := *req
	rest.Proposal.Arguments, rest.Facts.Intent.Binding = nil, nil
	body, err := json.Marshal(&rest)
	if err != nil {
		panic(err)
	}
	field(body)
	field(req.Proposal.Arguments)
	field(req.Facts.Intent.Binding)
	return hex.EncodeToString(h.Sum(nil))
}

// randomize sets every string member of v (a struct, reached through
// pointers, structs and slices) to a random string of characters JSON
// quoting treats specially, and fills or empties every list of strings.
func randomize(r *rand.Rand, v reflect.Value) {
	pieces := []string{"", "a", "é", "\"", "\\", "\n", "\x00", "<", "&", "\u2028", "\xff", "😀", "sha256:0a"}
	str := func() string {
		s := ""
		for range r.IntN(4) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			randomize(r, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			randomize(r, v.Field(i))
		}
	case reflect.String:
		if r.IntN(2) == 0 {
			v.SetString(str())
		}
	case reflect.Slice:
		switch v.Type().Elem().Kind() {
		case reflect.String:
			if r.IntN(2) == 0 {
				var list []string
				for range r.IntN(3) {
					list = append(list, str())
				}
				v.Set(reflect.ValueOf(list))
			}
		case reflect.Uint8: // raw JSON: kept as sent
		default:
			for i := range v.Len() {
				randomize(r, v.Index(i))
			}
		}
	case reflect.Uint64:
		if r.IntN(2) == 0 {
			v.SetUint(r.Uint64())
		}
	}
}

// TestRequestDigestIsUnchanged: the pooled RequestDigest writes the same
// digest as the first, json.Marshal-based one, for every shipped example
// and randomized members, callers and groups — including from many
// goroutines at once, which share the pool.
func TestRequestDigestIsUnchanged(t *testing.T) {
	t.Parallel()
	var bases [][]byte // each goroutine decodes its own copy
	for _, name := range []string{"payment-allow.yaml", "payment-deny.yaml"} {
		raw, err := json.Marshal(example(t, name))
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, raw)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(18, uint64(w)))
			for range 500 {
				var req client.AuthorizeRequest
				if err := json.Unmarshal(bases[r.IntN(len(bases))], &req); err != nil {
					t.Error(err)
					return
				}
				if r.IntN(4) > 0 {
					randomize(r, reflect.ValueOf(&req))
				}
				caller := host.Caller{Name: "system:serviceaccount:payments:payments-agent-runtime"}
				for range r.IntN(4) {
					caller.Groups = append(caller.Groups, []string{"a", "b", "c<", "é"}[r.IntN(4)])
				}
				if got, want := server.RequestDigest(&req, caller), referenceRequestDigest(&req, caller); got != want {
					t.Errorf("digest %s, want %s (as before) for %+v", got, want, req)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkRequestDigest: the pooled RequestDigest against the first,
// json.Marshal-based form, on the shipped example.
func BenchmarkRequestDigest(b *testing.B) {
	req := example(b, "payment-allow.yaml")
	caller := host.Caller{Name: "system:serviceaccount:payments:payments-agent-runtime", Groups: []string{"b", "a"}}
	for _, f := range []struct {
		name   string
		digest func(*client.AuthorizeRequest, host.Caller) string
	}{{"pooled", server.RequestDigest}, {"marshal", referenceRequestDigest}} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = f.digest(&req, caller)
			}
		})
	}
}
