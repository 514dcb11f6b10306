package e2e_test

import (
	"errors"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/api/v1alpha1"
	tgclient "github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume/etcdstore"
)

// idempotentSpecs are idempotent authorize (docs/decisions.md, "Idempotent
// authorize and durable identities") on the real processes: one
// authorize sent at once to both processes sharing a Consumption store is
// answered with one artifact, consumable once, and its identities are
// refused to any other request. They run inside the ordered container
// (after the samples are served), with its agent and executor tokens.
func idempotentSpecs(agent, executor *string) {
	DescribeTable("answer one authorize sent 32 times at once across two processes with one artifact, consumable once, and refuse its identities to another request",
		func(pair *[2]*managerProc, claimsInAPIServer, claimsInEtcd int) {
			req, exp := renamed("idem-" + pair[0].name)
			const n = 32
			res, errs := make([]*tgclient.AuthorizeResponse, n), make([]error, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					res[i], errs[i] = asP(pair[i%2], *agent).Authorize(ctx, req)
				})
			}
			close(start)
			wg.Wait()
			artifacts := map[string]bool{}
			for i, err := range errs {
				Expect(err).NotTo(HaveOccurred(), "authorize %d", i)
				Expect(res[i].Authorization).NotTo(BeNil(), "authorize %d", i)
				artifacts[res[i].Authorization.Artifact] = true
			}
			Expect(artifacts).To(HaveLen(1), "distinct artifacts among %d identical authorizes", n)

			By("the identities are claimed in this pair's store only")
			Expect(apiserverClaims(req.AuthorizationID)).To(Equal(claimsInAPIServer), "IdentityClaim objects")
			Expect(etcdClaims(req.AuthorizationID, req.ReplayID, req.ConsumptionID)).To(Equal(claimsInEtcd), "etcd claim keys")

			By("the one artifact consumes once")
			v := tgclient.ValidateRequest{Artifact: res[0].Authorization.Artifact, Expectations: exp}
			ok, consumed := consumeRace(pair[:], *executor, v, 16)
			Expect(ok).To(HaveLen(1))
			Expect(consumed).To(Equal(15))

			By("another request naming the replay identity is refused on both processes")
			other, _ := renamed("idem-other-" + nonce())
			other.ReplayID = req.ReplayID
			for _, p := range pair {
				_, err := asP(p, *agent).Authorize(ctx, other)
				var ae *tgclient.APIError
				Expect(errors.As(err, &ae)).To(BeTrue(), "%v", err)
				Expect(ae.Status).To(Equal(409))
				Expect(ae.Err.Code).To(Equal("identityReused"))
				Expect(ae.Err.Path).To(Equal("replayID"))
			}

			By("the identical request, later, still gets the same artifact")
			time.Sleep(1100 * time.Millisecond) // the service clock has whole seconds
			again, err := asP(pair[1], *agent).Authorize(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Authorization).NotTo(BeNil())
			Expect(again.Authorization.Artifact).To(Equal(res[0].Authorization.Artifact))
		},
		Entry("on the apiserver store", &procs, 3, 0),
		Entry("on the etcd store", &etcdProcs, 0, 3),
	)
}

// apiserverClaims counts the IdentityClaim objects of the Authorization
// identity id (three per claim: one per identity).
func apiserverClaims(id string) int {
	GinkgoHelper()
	var claims v1alpha1.IdentityClaimList
	Expect(admin.List(ctx, &claims, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, c := range claims.Items {
		if string(c.Spec.AuthorizationID) == id {
			n++
		}
	}
	return n
}

// etcdClaims counts the etcd store's claim keys of the three identities
// (<prefix><domain>/claim/<index>/<identity>).
func etcdClaims(ids ...string) int {
	GinkgoHelper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdServer.url()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = cli.Close() }()
	resp, err := cli.Get(ctx, etcdstore.DefaultPrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	Expect(err).NotTo(HaveOccurred())
	n := 0
	for _, kv := range resp.Kvs {
		for i, id := range ids {
			if strings.HasSuffix(string(kv.Key), "/claim/"+string(rune('0'+i))+"/"+id) {
				n++
			}
		}
	}
	return n
}
