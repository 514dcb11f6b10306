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
		Expect(replicas[0].Consume(ctx, consume.Record{Key: k, Identities: [3]string{"authz-42", "replay-42", "consumption-42"}, ExpiresAt: exp})).To(Succeed())
		var got v1alpha1.Consumption
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: k.Domain + "." + k.Binding}, &got)).To(Succeed())
		Expect(got.Spec.Domain).To(BeEquivalentTo(k.Domain))
		Expect(got.Spec.BindingDigest).To(BeEquivalentTo(k.Binding))
		Expect(got.Spec.AuthorizationID).To(BeEquivalentTo("authz-42"))
		Expect(got.Spec.ExpiresAt.Time.Unix()).To(Equal(int64(1_900_000_001)))
	})

	It("rejects a malformed Authorization identity with a KeyError that does not echo it", func() {
		k := consumetest.NewKey(consumetest.NewDomain())
		err := replicas[0].Consume(ctx, consume.Record{Key: k, Identities: [3]string{"Echo-Canary", "replay-1", "consumption-1"}, ExpiresAt: time.Now().Add(time.Hour)})
		var ke *consume.KeyError
		Expect(errors.As(err, &ke)).To(BeTrue(), "got %v", err)
		Expect(ke.Field).To(Equal("authorizationID"))
		Expect(err.Error()).NotTo(ContainSubstring("anary"))
		Expect(replicas[0].Consume(ctx, consumetest.RecordAt(k, time.Now().Add(time.Hour)))).To(Succeed(), "the rejected call wrote nothing")
	})

	It("refuses another binding naming a consumed identity, on every replica", func() {
		Expect(consumetest.CheckIdentityReuse(ctx, replicas)).To(Succeed())
	})
	It("gives 64 concurrent bindings sharing a consumption identity one yes", func() {
		Expect(consumetest.CheckIdentityConcurrently(ctx, replicas)).To(Succeed())
	})
	It("rejects malformed identities without echo", func() {
		Expect(consumetest.CheckInvalidIdentities(ctx, replicas[0])).To(Succeed())
	})

	It("writes one IdentityClaim per identity, named <domain>.<identity>.<value>, holding it for the binding an hour past the Consumption", func() {
		r := consumetest.NewRecord(consumetest.NewDomain())
		before := time.Now()
		Expect(replicas[0].Consume(ctx, r)).To(Succeed())
		var list v1alpha1.IdentityClaimList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		var names []string
		for _, o := range list.Items {
			if string(o.Spec.Domain) != r.Key.Domain {
				continue
			}
			names = append(names, o.Name)
			Expect(o.Spec.BindingDigest).To(BeEquivalentTo(r.Key.Binding))
			Expect(o.Spec.ExpiresAt.Time).To(BeTemporally(">=", before.Add(consume.MaxAuthorizationLifetime).Truncate(time.Second)))
			Expect([3]string{string(o.Spec.AuthorizationID), string(o.Spec.ReplayID), string(o.Spec.ConsumptionID)}).To(Equal(r.Identities))
		}
		Expect(names).To(ConsistOf(
			r.Key.Domain+".authorization."+r.Identities[0], r.Key.Domain+".replay."+r.Identities[1], r.Key.Domain+".consumption."+r.Identities[2]))
	})

	It("completes a Consume a failed call left half made, and never lets another binding finish it", func() {
		// The first identity's object alone: what a Consume that lost the
		// apiserver after its first Create leaves.
		r := consumetest.NewRecord(consumetest.NewDomain())
		half := apistore.New(newClient(), ns, apistore.Options{})
		Expect(k8s.Create(ctx, claimObject(ns, r, 0))).To(Succeed())
		// Another binding naming the replay and consumption identities
		// only gets them: the half-made Consume does not hold them.
		other := consumetest.NewRecord(r.Key.Domain)
		other.Identities[1], other.Identities[2] = r.Identities[1], r.Identities[2]
		Expect(half.Consume(ctx, other)).To(Succeed())
		// The half-made Consume's retry is refused at the replay identity,
		// and still holds its Authorization identity.
		err := half.Consume(ctx, r)
		Expect(err).To(MatchError(consume.ErrIdentityReused))
		Expect(err.Error()).To(HaveSuffix("replayID"))
		third := consumetest.NewRecord(r.Key.Domain)
		third.Identities[0] = r.Identities[0]
		err = half.Consume(ctx, third)
		Expect(err).To(MatchError(consume.ErrIdentityReused))
		Expect(half.Held(ctx, r.Key.Domain, third.Identities)).To(MatchError(consume.ErrIdentityReused))

		// A Consume whose first object alone exists completes on retry,
		// once, on any replica.
		d := consumetest.NewRecord(r.Key.Domain)
		Expect(k8s.Create(ctx, claimObject(ns, d, 0))).To(Succeed())
		Expect(replicas[1].Consume(ctx, d)).To(Succeed())
		Expect(replicas[0].Consume(ctx, d)).To(MatchError(consume.ErrConsumed))
	})
})

// claimObject is the IdentityClaim apistore writes for identity i of r.
func claimObject(ns string, r consume.Record, i int) *v1alpha1.IdentityClaim {
	kinds := [3]string{"authorization", "replay", "consumption"}
	return &v1alpha1.IdentityClaim{
		ObjectMeta: metav1.ObjectMeta{Name: apistore.ClaimName(r.Key.Domain, i, r.Identities[i]), Namespace: ns},
		Spec: v1alpha1.IdentityClaimSpec{
			Domain: v1alpha1.LowerToken(r.Key.Domain), Identity: kinds[i],
			AuthorizationID: v1alpha1.LowerToken(r.Identities[0]), ReplayID: v1alpha1.LowerToken(r.Identities[1]),
			ConsumptionID: v1alpha1.LowerToken(r.Identities[2]),
			BindingDigest: v1alpha1.SHA256Hex(r.Key.Binding), ExpiresAt: metav1.NewTime(r.ExpiresAt.Truncate(time.Second)),
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

	It("deletes IdentityClaims past their hold and retention too, freeing the identities", func() {
		r := consumetest.RecordAt(consumetest.NewKey(consumetest.NewDomain()), t0.Add(10*time.Second))
		Expect(store.Consume(ctx, r)).To(Succeed())
		claims := func() int {
			var list v1alpha1.IdentityClaimList
			Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
			return len(list.Items)
		}
		gc := apistore.NewCollector(k8s, ns, apistore.CollectorOptions{Clock: clock, PageSize: 2, Retention: 5 * time.Second})
		hold := t0.Add(consume.MaxAuthorizationLifetime)
		// The record goes after its own expiry; the identities stay held
		// for the longest lifetime past the Consumption.
		now.Store(t0.Add(15 * time.Second).Unix())
		Expect(gc.Collect(ctx)).To(Equal(1))
		Expect(claims()).To(Equal(3))
		now.Store(hold.Add(4 * time.Second).Unix())
		Expect(gc.Collect(ctx)).To(Equal(0))
		Expect(claims()).To(Equal(3))
		other := consumetest.RecordAt(consumetest.NewKey(r.Key.Domain), hold.Add(time.Minute))
		other.Identities = r.Identities
		Expect(store.Consume(ctx, other)).To(MatchError(consume.ErrIdentityReused))

		now.Store(hold.Add(5 * time.Second).Unix())
		Expect(gc.Collect(ctx)).To(Equal(3))
		Expect(claims()).To(Equal(0))
		Expect(store.Held(ctx, r.Key.Domain, r.Identities)).To(Succeed())
		Expect(store.Consume(ctx, other)).To(Succeed())
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
