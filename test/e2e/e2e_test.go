package e2e_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/api/v1alpha1"
	tgclient "github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/manifest"
)

// example decodes examples/api/name into v.
func example(name string, v any) {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "examples", "api", name))
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(raw, v)).To(Succeed())
}

// saToken creates the ServiceAccount sa in the samples' namespace (once)
// and returns a token for it with the audience toolgate.
func saToken(sa string) string {
	GinkgoHelper()
	_, err := clientset.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	tr, err := clientset.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authnv1.TokenRequest{
		Spec: authnv1.TokenRequestSpec{Audiences: []string{"toolgate"}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return tr.Status.Token
}

// as returns a client of process i's service authenticating with token.
func as(i int, token string) *tgclient.Client {
	return tgclient.New(procs[i].url(), token, httpsClient)
}

// expectStatus asserts err is an API rejection with the HTTP status.
func expectStatus(err error, status int) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	var ae *tgclient.APIError
	Expect(errors.As(err, &ae)).To(BeTrue(), "not an API error: %v", err)
	Expect(ae.Status).To(Equal(status), "%v", err)
}

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// renamed returns the allow example with fresh identities (a new
// Authorization, binding and Consumption) and the matching expectations.
func renamed(suffix string) (tgclient.AuthorizeRequest, tgclient.Expectations) {
	var req tgclient.AuthorizeRequest
	var exp tgclient.Expectations
	example("authorize-allow.json", &req)
	example("expectations-allow.json", &exp)
	req.DecisionID += "-" + suffix
	req.AuthorizationID += "-" + suffix
	req.ReplayID += "-" + suffix
	req.ConsumptionID += "-" + suffix
	exp.AuthorizationID, exp.ReplayID, exp.ConsumptionID = req.AuthorizationID, req.ReplayID, req.ConsumptionID
	return req, exp
}

var _ = Describe("two toolgate manager processes", Ordered, func() {
	var (
		agent, executor string
		artifact        string // the allow example's, consumed in spec 3
		expectations    tgclient.Expectations
	)

	It("publish the samples applied by a policy administrator with kubectl: every object Ready", func() {
		cfg, kc := userConfig("alice", adminGroup)
		if _, err := exec.LookPath("kubectl"); err == nil {
			out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "apply", "-k", filepath.Join(repoRoot, "config", "samples")).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), "kubectl apply -k config/samples: %s", out)
		} else {
			By("kubectl is not on PATH: creating the samples with a client as alice")
			alice, err := client.New(cfg, client.Options{Scheme: scheme})
			Expect(err).NotTo(HaveOccurred())
			Expect(alice.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
			set, err := manifest.LoadPaths(filepath.Join(repoRoot, "config", "samples"))
			Expect(err).NotTo(HaveOccurred())
			for i := range set.HostAuthorities {
				Expect(alice.Create(ctx, &set.HostAuthorities[i])).To(Succeed())
			}
			for i := range set.ToolRegistries {
				Expect(alice.Create(ctx, &set.ToolRegistries[i])).To(Succeed())
			}
			for i := range set.PolicySnapshots {
				Expect(alice.Create(ctx, &set.PolicySnapshots[i])).To(Succeed())
			}
		}

		Eventually(func(g Gomega) {
			var has v1alpha1.HostAuthorityList
			var trs v1alpha1.ToolRegistryList
			var pss v1alpha1.PolicySnapshotList
			g.Expect(admin.List(ctx, &has, client.InNamespace(ns))).To(Succeed())
			g.Expect(admin.List(ctx, &trs, client.InNamespace(ns))).To(Succeed())
			g.Expect(admin.List(ctx, &pss, client.InNamespace(ns))).To(Succeed())
			g.Expect(has.Items).To(HaveLen(1))
			g.Expect(trs.Items).To(HaveLen(1))
			g.Expect(pss.Items).To(HaveLen(2))
			ready := func(kind, name string, gen int64, st v1alpha1.PublicationStatus) {
				c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady)
				g.Expect(c).NotTo(BeNil(), "%s/%s has no Ready condition", kind, name)
				g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s/%s Ready: %s %s", kind, name, c.Reason, c.Message)
				g.Expect(c.ObservedGeneration).To(Equal(gen))
			}
			for _, o := range has.Items {
				ready("HostAuthority", o.Name, o.Generation, o.Status)
			}
			for _, o := range trs.Items {
				ready("ToolRegistry", o.Name, o.Generation, o.Status)
			}
			for _, o := range pss.Items {
				ready("PolicySnapshot", o.Name, o.Generation, o.Status)
			}
		}).WithTimeout(60 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())

		By("both services load the domain")
		for _, p := range procs {
			p.waitUp(true)
		}
	})

	It("authorize the agent runtime's examples over HTTPS: allow with an artifact, deny and requireConfirmation without", func() {
		agent, executor = saToken("payments-agent-runtime"), saToken("payments-executor")

		var allow, deny, confirm tgclient.AuthorizeRequest
		example("authorize-allow.json", &allow)
		example("authorize-deny.json", &deny)
		example("authorize-confirm.json", &confirm)
		example("expectations-allow.json", &expectations)

		res, err := as(0, agent).Authorize(ctx, allow)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Decision.Outcome).To(Equal("allow"))
		Expect(res.Authorization).NotTo(BeNil())
		Expect(res.Authorization.Artifact).NotTo(BeEmpty())
		Expect(res.Authorization.ID).To(Equal(allow.AuthorizationID))
		artifact = res.Authorization.Artifact

		res, err = as(0, agent).Authorize(ctx, deny)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Decision.Outcome).To(Equal("deny"))
		Expect(res.Authorization).To(BeNil())

		res, err = as(0, agent).Authorize(ctx, confirm)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Decision.Outcome).To(Equal("requireConfirmation"))
		Expect(res.Authorization).To(BeNil())

		By("the artifact validates on the other process too")
		v, err := as(1, executor).Validate(ctx, tgclient.ValidateRequest{Artifact: artifact, Expectations: expectations})
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Consumed).To(BeFalse())
	})

	It("consume one artifact exactly once among 64 concurrent calls split across both processes", func() {
		Expect(artifact).NotTo(BeEmpty())
		const n = 64
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer GinkgoRecover()
				<-start
				_, errs[i] = as(i%2, executor).Consume(ctx, tgclient.ValidateRequest{Artifact: artifact, Expectations: expectations})
			}()
		}
		close(start)
		wg.Wait()
		var ok, consumed int
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, tgclient.ErrConsumed):
				consumed++
			default:
				Fail("unexpected consume error: " + err.Error())
			}
		}
		Expect(ok).To(Equal(1), "successful consumes")
		Expect(consumed).To(Equal(n - 1))

		var records v1alpha1.ConsumptionList
		Expect(admin.List(ctx, &records, client.InNamespace(ns))).To(Succeed())
		Expect(records.Items).To(HaveLen(1))
		Expect(string(records.Items[0].Spec.AuthorizationID)).To(Equal(expectations.AuthorizationID))
	})

	It("keep a consumed artifact consumed across a restart of process 2", func() {
		old := procs[1].cmd.Process.Pid
		procs[1].stop(true)
		Expect(procs[1].running()).To(BeFalse())
		procs[1].start()
		Expect(procs[1].cmd.Process.Pid).NotTo(Equal(old))
		procs[1].waitUp(true)
		for i := range procs {
			_, err := as(i, executor).Consume(ctx, tgclient.ValidateRequest{Artifact: artifact, Expectations: expectations})
			Expect(err).To(MatchError(tgclient.ErrConsumed), "process %d", i+1)
		}
	})

	It("reject unauthenticated callers, the agent at consume, a differing expectation and altered artifacts", func() {
		req, exp := renamed("spec5")
		res, err := as(1, agent).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Authorization).NotTo(BeNil())
		fresh := res.Authorization.Artifact
		good := tgclient.ValidateRequest{Artifact: fresh, Expectations: exp}

		By("no token and an unknown token")
		for i := range procs {
			_, err = as(i, "").Consume(ctx, good)
			expectStatus(err, http.StatusUnauthorized)
			_, err = as(i, "not-a-token").Authorize(ctx, req)
			expectStatus(err, http.StatusUnauthorized)
		}
		By("the agent runtime is not an executor")
		_, err = as(0, agent).Consume(ctx, good)
		expectStatus(err, http.StatusForbidden)

		By("expectations differing in one argument")
		changed := exp
		var args map[string]any
		Expect(json.Unmarshal(exp.Arguments, &args)).To(Succeed())
		args["amount"] = 12501
		changed.Arguments, err = json.Marshal(args)
		Expect(err).NotTo(HaveOccurred())
		_, err = as(0, executor).Consume(ctx, tgclient.ValidateRequest{Artifact: fresh, Expectations: changed})
		expectStatus(err, http.StatusUnprocessableEntity)

		By("a truncated artifact and one with a changed character")
		_, err = as(1, executor).Consume(ctx, tgclient.ValidateRequest{Artifact: fresh[:len(fresh)*2/3], Expectations: exp})
		expectStatus(err, http.StatusUnprocessableEntity)
		parts := strings.Split(fresh, ".")
		Expect(parts).To(HaveLen(3))
		mid := []byte(parts[1])
		j := len(mid) / 2
		if mid[j] == 'A' {
			mid[j] = 'B'
		} else {
			mid[j] = 'A'
		}
		altered := parts[0] + "." + string(mid) + "." + parts[2]
		_, err = as(1, executor).Consume(ctx, tgclient.ValidateRequest{Artifact: altered, Expectations: exp})
		expectStatus(err, http.StatusUnprocessableEntity)

		By("nothing was consumed by the rejections: the untouched artifact consumes once")
		done, err := as(1, executor).Consume(ctx, good)
		Expect(err).NotTo(HaveOccurred())
		Expect(done.Consumed).To(BeTrue())
	})

	It("never write an argument value or a bearer token to either process's output", func() {
		memoCanary := "canary-memo-" + nonce()
		tokenCanary := "canary-token-" + nonce()
		for i, p := range procs {
			req, _ := renamed("canary-" + nonce())
			var args map[string]any
			Expect(json.Unmarshal(req.Proposal.Arguments, &args)).To(Succeed())
			args["memo"] = "Invoice " + memoCanary
			var err error
			req.Proposal.Arguments, err = json.Marshal(args)
			Expect(err).NotTo(HaveOccurred())

			_, err = as(i, tokenCanary).Authorize(ctx, req)
			expectStatus(err, http.StatusUnauthorized)
			_, err = as(i, agent+tokenCanary).Authorize(ctx, req)
			expectStatus(err, http.StatusUnauthorized)
			res, err := as(i, agent).Authorize(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Decision.Outcome).To(Equal("allow"))

			// The decision log is asynchronous: once the last call's line
			// is out, the earlier ones are too.
			Eventually(p.out.String).WithTimeout(20*time.Second).Should(ContainSubstring(req.DecisionID), "%s wrote no decision-log line for the call", p.name)
		}
		for _, p := range procs {
			out := p.out.String()
			Expect(out).NotTo(ContainSubstring(memoCanary), "%s wrote an argument value", p.name)
			Expect(out).NotTo(ContainSubstring(tokenCanary), "%s wrote a bearer token", p.name)
			Expect(out).NotTo(ContainSubstring(agent), "%s wrote the agent's token", p.name)
		}
	})
})
