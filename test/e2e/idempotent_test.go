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

// idempotentSpecs are idempotent authorize (docs/decisions.md, "The
// durable write belongs to Consumption") on the real processes: one
// authorize sent at once to both processes sharing a Consumption store
// writes nothing durable; each process answers its identical requests with
// one artifact; of all the artifacts naming the identities, exactly one
// consumes, and the identities are then refused to any other request.
// They run inside the ordered container (after the samples are served),
// with its agent and executor tokens.
func idempotentSpecs(agent, executor *string) {
	DescribeTable("answer one authorize sent 32 times at once across two processes with artifacts of which exactly one consumes, then refuse its identities to another request",
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
			var artifacts []string
			seen := map[string]bool{}
			for i, err := range errs {
				Expect(err).NotTo(HaveOccurred(), "authorize %d", i)
				Expect(res[i].Authorization).NotTo(BeNil(), "authorize %d", i)
				Expect(res[i].Authorization.ID).To(Equal(req.AuthorizationID))
				if a := res[i].Authorization.Artifact; !seen[a] {
					seen[a] = true
					artifacts = append(artifacts, a)
				}
			}
			// Each process answers its identical requests with one
			// artifact; the two may differ (their clocks, read apart).
			Expect(len(artifacts)).To(BeNumerically("<=", 2), "distinct artifacts among %d identical authorizes", n)

			By("an issuing authorize writes nothing durable")
			Expect(apiserverClaims(req.AuthorizationID)).To(Equal(0), "IdentityClaim objects")
			Expect(etcdClaims(req.AuthorizationID, req.ReplayID, req.ConsumptionID)).To(Equal(0), "etcd claim keys")

			By("of every artifact, consumed by 16 callers at once, exactly one consumption in all")
			yes := 0
			for _, a := range artifacts {
				got, errs := consumeAll(pair[:], *executor, tgclient.ValidateRequest{Artifact: a, Expectations: exp}, 16)
				for i, err := range errs {
					switch {
					case err == nil:
						Expect(got[i].Consumed).To(BeTrue())
						yes++
					case errors.Is(err, tgclient.ErrConsumed) || hasCode(err, 409, "identityReused"):
					default:
						Fail("unexpected consume error: " + err.Error())
					}
				}
			}
			Expect(yes).To(Equal(1), "consumptions among %d artifacts naming one identity", len(artifacts))

			By("the Consumption holds the identities in this pair's store only")
			Expect(apiserverClaims(req.AuthorizationID)).To(Equal(claimsInAPIServer), "IdentityClaim objects")
			Expect(etcdClaims(req.AuthorizationID, req.ReplayID, req.ConsumptionID)).To(Equal(claimsInEtcd), "etcd claim keys")

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

			By("the identical request, later, on the process that issued the first artifact, still gets it")
			time.Sleep(1100 * time.Millisecond) // the service clock has whole seconds
			again, err := asP(pair[0], *agent).Authorize(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Authorization).NotTo(BeNil())
			Expect(again.Authorization.Artifact).To(Equal(res[0].Authorization.Artifact))
		},
		Entry("on the apiserver store", &procs, 3, 0),
		Entry("on the etcd store", &etcdProcs, 0, 3),
	)
}

// apiserverClaims counts the IdentityClaim objects of the Authorization
// identity id (three per Consumption: one per identity).
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
