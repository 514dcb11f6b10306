package apistore_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/consume"
	"github.com/toolgate/toolgate/internal/consume/apistore"
	"github.com/toolgate/toolgate/internal/consume/consumetest"
	"github.com/toolgate/toolgate/internal/standalone/standalonetest"
)

var _ = Describe("Store", func() {
	var (
		ns       string
		replicas []consume.Store
	)
	BeforeEach(func() {
		ns = newNamespace()
		// Two replicas: two clients, one apiserver.
		replicas = []consume.Store{apistore.New(newClient(), ns, apistore.Options{}), apistore.New(newClient(), ns, apistore.Options{})}
	})

	It("answers Ready", func() {
		for _, s := range replicas {
			Expect(s.Ready(ctx)).To(Succeed())
		}
	})
	It("consumes a key once, then says ErrConsumed on every replica", func() {
		Expect(consumetest.CheckOnce(ctx, replicas)).To(Succeed())
	})
	It("gives 64 concurrent callers of one key one nil and 63 ErrConsumed", func() {
		Expect(consumetest.CheckOneKeyConcurrently(ctx, replicas)).To(Succeed())
	})
	It("consumes many distinct keys each once", func() {
		Expect(consumetest.CheckDistinctKeys(ctx, replicas)).To(Succeed())
	})
	It("rejects malformed keys without echo and writes nothing for them", func() {
		Expect(consumetest.CheckInvalidKeys(ctx, replicas[0])).To(Succeed())
		var list v1alpha1.ConsumptionList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		Expect(list.Items).To(HaveLen(1), "only the valid key after the rejected ones")
	})

	It("writes the Consumption object named <domain>.<binding> with the Authorization identity and expiry rounded up", func() {
		k := consumetest.NewKey(consumetest.NewDomain())
		exp := time.Unix(1_900_000_000, 250_000_000)
		Expect(replicas[0].Consume(ctx, consume.Record{Key: k, AuthorizationID: "authz-42", ExpiresAt: exp})).To(Succeed())
		var got v1alpha1.Consumption
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: k.Domain + "." + k.Binding}, &got)).To(Succeed())
		Expect(got.Spec.Domain).To(BeEquivalentTo(k.Domain))
		Expect(got.Spec.BindingDigest).To(BeEquivalentTo(k.Binding))
		Expect(got.Spec.AuthorizationID).To(BeEquivalentTo("authz-42"))
		Expect(got.Spec.ExpiresAt.Time.Unix()).To(Equal(int64(1_900_000_001)))
	})

	It("rejects a malformed Authorization identity with a KeyError that does not echo it", func() {
		k := consumetest.NewKey(consumetest.NewDomain())
		err := replicas[0].Consume(ctx, consume.Record{Key: k, AuthorizationID: "Echo-Canary", ExpiresAt: time.Now().Add(time.Hour)})
		var ke *consume.KeyError
		Expect(errors.As(err, &ke)).To(BeTrue(), "got %v", err)
		Expect(ke.Field).To(Equal("authorizationID"))
		Expect(err.Error()).NotTo(ContainSubstring("anary"))
		Expect(replicas[0].Consume(ctx, consumetest.RecordAt(k, time.Now().Add(time.Hour)))).To(Succeed(), "the rejected call wrote nothing")
	})

	It("returns a claim to every retry of its request, on every replica", func() {
		Expect(consumetest.CheckClaimRetry(ctx, replicas)).To(Succeed())
	})
	It("refuses another request naming a claimed identity", func() {
		Expect(consumetest.CheckClaimReuse(ctx, replicas)).To(Succeed())
	})
	It("gives 64 concurrent retries one claim, and 64 requests sharing an identity one winner", func() {
		Expect(consumetest.CheckClaimConcurrently(ctx, replicas)).To(Succeed())
	})
	It("rejects malformed claims without echo", func() {
		Expect(consumetest.CheckInvalidClaims(ctx, replicas[0])).To(Succeed())
	})

	It("writes one IdentityClaim per identity, named <domain>.<identity>.<value>, each holding the whole claim", func() {
		c := consumetest.NewClaim(consumetest.NewDomain())
		Expect(replicas[0].Claim(ctx, c)).To(Satisfy(c.Same))
		var list v1alpha1.IdentityClaimList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		var names []string
		for _, o := range list.Items {
			names = append(names, o.Name)
			Expect(o.Spec.RequestDigest).To(BeEquivalentTo(c.Request))
			Expect(o.Spec.BindingDigest).To(BeEquivalentTo(c.Binding))
			Expect(o.Spec.IssuedAt.Unix()).To(Equal(c.IssuedAt.Unix()))
			Expect(o.Spec.ExpiresAt.Unix()).To(Equal(c.ExpiresAt.Unix()))
			Expect([3]string{string(o.Spec.AuthorizationID), string(o.Spec.ReplayID), string(o.Spec.ConsumptionID)}).To(Equal(c.Identities))
		}
		Expect(names).To(ConsistOf(
			c.Domain+".authorization."+c.Identities[0], c.Domain+".replay."+c.Identities[1], c.Domain+".consumption."+c.Identities[2]))
	})

	It("completes a claim a failed request left half made, and never lets another request finish it", func() {
		// The first identity's object alone: what a request that lost the
		// apiserver after its first Create leaves.
		c := consumetest.NewClaim(consumetest.NewDomain())
		half := apistore.New(newClient(), ns, apistore.Options{})
		Expect(k8s.Create(ctx, claimObject(ns, c, 0))).To(Succeed())
		// Another request naming the replay and consumption identities
		// only gets them: the half claim does not hold them.
		other := consumetest.NewClaim(c.Domain)
		other.Identities[1] = c.Identities[1]
		Expect(half.Claim(ctx, other)).To(Satisfy(other.Same))
		// The half-made request's retry is refused at the replay identity,
		// and still holds its Authorization identity.
		_, err := half.Claim(ctx, c)
		Expect(err).To(MatchError(consume.ErrIdentityReused))
		Expect(err.Error()).To(HaveSuffix("replayID"))
		third := consumetest.NewClaim(c.Domain)
		third.Identities[0] = c.Identities[0]
		_, err = half.Claim(ctx, third)
		Expect(err).To(MatchError(consume.ErrIdentityReused))

		// A request whose first object alone exists completes the claim on
		// retry, at the time that object holds.
		d := consumetest.NewClaim(c.Domain)
		Expect(k8s.Create(ctx, claimObject(ns, d, 0))).To(Succeed())
		retry := d
		retry.IssuedAt, retry.ExpiresAt = d.IssuedAt.Add(time.Minute), d.ExpiresAt.Add(time.Minute)
		Expect(replicas[1].Claim(ctx, retry)).To(Satisfy(d.Same))
		Expect(replicas[0].Claim(ctx, d)).To(Satisfy(d.Same))
	})
})

// claimObject is the IdentityClaim apistore writes for identity i of c.
func claimObject(ns string, c consume.Claim, i int) *v1alpha1.IdentityClaim {
	kinds := [3]string{"authorization", "replay", "consumption"}
	return &v1alpha1.IdentityClaim{
		ObjectMeta: metav1.ObjectMeta{Name: apistore.ClaimName(c.Domain, i, c.Identities[i]), Namespace: ns},
		Spec: v1alpha1.IdentityClaimSpec{
			Domain: v1alpha1.LowerToken(c.Domain), Identity: kinds[i],
			AuthorizationID: v1alpha1.LowerToken(c.Identities[0]), ReplayID: v1alpha1.LowerToken(c.Identities[1]),
			ConsumptionID: v1alpha1.LowerToken(c.Identities[2]),
			RequestDigest: v1alpha1.SHA256Hex(c.Request), BindingDigest: v1alpha1.SHA256Hex(c.Binding),
			IssuedAt: metav1.NewTime(c.IssuedAt), ExpiresAt: metav1.NewTime(c.ExpiresAt),
		},
	}
}

var _ = Describe("A store that cannot answer", func() {
	It("fails closed when the apiserver is unreachable", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		dead := rest.CopyConfig(cfg)
		dead.Host = "https://" + l.Addr().String()
		Expect(l.Close()).To(Succeed())
		c, err := client.New(dead, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		s := apistore.New(c, newNamespace(), apistore.Options{Timeout: 2 * time.Second})
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		Expect(consumetest.CheckUnavailable(cctx, s, consume.Key{})).To(Succeed())
	})

	It("fails closed when the caller may not create Consumptions, and keeps the apiserver's message out of Error()", func() {
		ns := newNamespace()
		owner := apistore.New(k8s, ns, apistore.Options{})
		k := consumetest.NewKey(consumetest.NewDomain())
		Expect(owner.Consume(ctx, consumetest.RecordAt(k, time.Now().Add(time.Hour)))).To(Succeed())

		user, err := testEnv.AddUser(envtest.User{Name: "no-rights"}, nil)
		Expect(err).NotTo(HaveOccurred())
		c, err := client.New(user.Config(), client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		s := apistore.New(c, ns, apistore.Options{})
		Expect(consumetest.CheckUnavailable(ctx, s, k)).To(Succeed())

		err = s.Consume(ctx, consumetest.RecordAt(k, time.Now().Add(time.Hour)))
		var apiErr *apistore.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue())
		Expect(apiErr.Reason).To(Equal("Forbidden"))
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the original error stays reachable")
		Expect(err.Error()).NotTo(ContainSubstring(k.Binding))
	})

	It("fails closed after Close", func() {
		s := apistore.New(k8s, newNamespace(), apistore.Options{})
		k := consumetest.NewKey(consumetest.NewDomain())
		Expect(s.Consume(ctx, consumetest.RecordAt(k, time.Now().Add(time.Hour)))).To(Succeed())
		Expect(s.Close()).To(Succeed())
		Expect(consumetest.CheckUnavailable(ctx, s, k)).To(Succeed())
	})

	It("fails closed when the namespace does not exist", func() {
		s := apistore.New(k8s, "no-such-namespace", apistore.Options{})
		err := s.Consume(ctx, consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), time.Now().Add(time.Hour)))
		Expect(err).To(MatchError(consume.ErrUnavailable))
	})
})

var _ = Describe("Collector", func() {
	var (
		ns    string
		store *apistore.Store
		now   atomic.Int64
		t0    = time.Unix(1_900_000_000, 0)
	)
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	BeforeEach(func() {
		ns = newNamespace()
		store = apistore.New(k8s, ns, apistore.Options{Clock: clock})
		now.Store(t0.Unix())
	})
	names := func() []string {
		var list v1alpha1.ConsumptionList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		var out []string
		for _, c := range list.Items {
			out = append(out, c.Name)
		}
		return out
	}

	It("deletes exactly the records whose expiresAt lies more than the retention in the past, across pages", func() {
		domain := consumetest.NewDomain()
		var early, late []consume.Record
		for i := range 7 {
			if i%2 == 0 {
				r := consumetest.RecordAt(consumetest.NewKey(domain), t0.Add(10*time.Second))
				early = append(early, r)
				Expect(store.Consume(ctx, r)).To(Succeed())
			} else {
				r := consumetest.RecordAt(consumetest.NewKey(domain), t0.Add(20*time.Second))
				late = append(late, r)
				Expect(store.Consume(ctx, r)).To(Succeed())
			}
		}
		gc := apistore.NewCollector(k8s, ns, apistore.CollectorOptions{Clock: clock, PageSize: 2, Retention: 5 * time.Second})

		now.Store(t0.Add(14 * time.Second).Unix()) // expired, but within the retention
		Expect(gc.Collect(ctx)).To(Equal(0))
		Expect(names()).To(HaveLen(7))

		now.Store(t0.Add(15 * time.Second).Unix())
		Expect(gc.Collect(ctx)).To(Equal(len(early)))
		var want []string
		for _, r := range late {
			want = append(want, r.Key.String())
		}
		Expect(names()).To(ConsistOf(want))
		for _, r := range late {
			Expect(store.Consume(ctx, r)).To(MatchError(consume.ErrConsumed))
		}
		// A removed record's Authorization has expired: refused, never
		// consumed again.
		Expect(store.Consume(ctx, early[0])).To(MatchError(consume.ErrExpired))
		Expect(names()).To(ConsistOf(want))
	})

	It("refuses a consume trickled across a collection (consumetest.CheckTrickledConsume)", func() {
		fake := consumetest.NewClock(t0)
		trickled := apistore.New(k8s, ns, apistore.Options{Clock: fake.Now})
		gc := apistore.NewCollector(k8s, ns, apistore.CollectorOptions{Clock: fake.Now, Retention: time.Second})
		sweep := func(ctx context.Context) error { _, err := gc.Collect(ctx); return err }
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		root := filepath.Join("..", "..", "..")
		service := standalonetest.Service(GinkgoT().TempDir(), filepath.Join(root, "config", "samples"))
		Expect(consumetest.CheckTrickledConsume(cctx, root, service, trickled, fake, 2*time.Second, sweep)).To(Succeed())
	})

	It("runs as a Runnable until its context ends, and asks for leader election", func() {
		Expect(store.Consume(ctx, consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), t0.Add(time.Second)))).To(Succeed())
		gc := apistore.NewCollector(k8s, ns, apistore.CollectorOptions{Clock: clock, Interval: 20 * time.Millisecond, Retention: time.Second})
		Expect(gc.NeedLeaderElection()).To(BeTrue())
		rctx, stop := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- gc.Start(rctx) }()
		Consistently(names, 200*time.Millisecond, 20*time.Millisecond).Should(HaveLen(1))
		now.Store(t0.Add(2 * time.Second).Unix())
		Eventually(names, 10*time.Second, 20*time.Millisecond).Should(BeEmpty())
		stop()
		Eventually(done, 5*time.Second).Should(Receive(BeNil()))
	})

	It("deletes IdentityClaims past their retention too, freeing the identities", func() {
		c := consumetest.NewClaim(consumetest.NewDomain())
		c.IssuedAt, c.ExpiresAt = t0, t0.Add(10*time.Second)
		Expect(store.Claim(ctx, c)).To(Satisfy(c.Same))
		claims := func() int {
			var list v1alpha1.IdentityClaimList
			Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
			return len(list.Items)
		}
		gc := apistore.NewCollector(k8s, ns, apistore.CollectorOptions{Clock: clock, PageSize: 2, Retention: 5 * time.Second})
		now.Store(t0.Add(14 * time.Second).Unix())
		Expect(gc.Collect(ctx)).To(Equal(0))
		Expect(claims()).To(Equal(3))
		other := consumetest.NewClaim(c.Domain)
		other.Identities = c.Identities
		other.IssuedAt, other.ExpiresAt = t0.Add(20*time.Second), t0.Add(30*time.Second)
		_, err := store.Claim(ctx, other)
		Expect(err).To(MatchError(consume.ErrIdentityReused))

		now.Store(t0.Add(15 * time.Second).Unix())
		Expect(gc.Collect(ctx)).To(Equal(3))
		Expect(claims()).To(Equal(0))
		Expect(store.Claim(ctx, other)).To(Satisfy(other.Same))
	})

	It("fails closed on a List it may not do", func() {
		user, err := testEnv.AddUser(envtest.User{Name: "no-rights-gc"}, nil)
		Expect(err).NotTo(HaveOccurred())
		c, err := client.New(user.Config(), client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		_, err = apistore.NewCollector(c, ns, apistore.CollectorOptions{}).Collect(ctx)
		Expect(err).To(MatchError(consume.ErrUnavailable))
	})
})
