package e2e_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	authnv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
	tgclient "github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume/etcdstore"
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
func as(i int, token string) *tgclient.Client { return asP(procs[i], token) }

// asP returns a client of process p's service authenticating with token.
func asP(p *managerProc, token string) *tgclient.Client {
	return tgclient.New(p.url(), token, httpsClient)
}

// expectStatus asserts err is an API rejection with the HTTP status.
func expectStatus(err error, status int) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	var ae *tgclient.APIError
	Expect(errors.As(err, &ae)).To(BeTrue(), "not an API error: %v", err)
	Expect(ae.Status).To(Equal(status), "%v", err)
}

// hasCode reports whether err is an API error with the status and code.
func hasCode(err error, status int, code string) bool {
	var ae *tgclient.APIError
	return errors.As(err, &ae) && ae.Status == status && ae.Err.Code == code
}

// expectCode asserts err is an API error with the status and code.
func expectCode(err error, status int, code string) {
	GinkgoHelper()
	Expect(hasCode(err, status, code)).To(BeTrue(), "want %d %s: %v", status, code, err)
}

// revocationOf is a Revocation named name in the samples' domain with the
// target of spec.
func revocationOf(name string, spec *v1alpha1.RevocationSpec) *v1alpha1.Revocation {
	spec.HostAuthorityRef = v1alpha1.HostAuthorityReference{Name: "payments-host"}
	spec.Reason = "e2e"
	return &v1alpha1.Revocation{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: *spec}
}

// consumeRace consumes v n times at once, call i at ps[i%len(ps)], and
// returns the successes (the client's nil: a 200 saying consumed) and the
// conflicts (ErrConsumed: a 409); any other answer fails.
func consumeRace(ps []*managerProc, token string, v tgclient.ValidateRequest, n int) (ok []*tgclient.ValidateResponse, consumed int) {
	GinkgoHelper()
	res, errs := consumeAll(ps, token, v, n)
	for i, err := range errs {
		switch {
		case err == nil:
			Expect(res[i].Consumed).To(BeTrue())
			ok = append(ok, res[i])
		case errors.Is(err, tgclient.ErrConsumed):
			consumed++
		default:
			Fail("unexpected consume error: " + err.Error())
		}
	}
	return ok, consumed
}

// consumeAll consumes v n times at once, call i at ps[i%len(ps)].
func consumeAll(ps []*managerProc, token string, v tgclient.ValidateRequest, n int) ([]*tgclient.ValidateResponse, []error) {
	res, errs := make([]*tgclient.ValidateResponse, n), make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res[i], errs[i] = asP(ps[i%len(ps)], token).Consume(ctx, v)
		}()
	}
	close(start)
	wg.Wait()
	return res, errs
}

// apiserverRecords counts the Consumption objects of the Authorization id.
func apiserverRecords(id string) int {
	GinkgoHelper()
	var records v1alpha1.ConsumptionList
	Expect(admin.List(ctx, &records, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, r := range records.Items {
		if string(r.Spec.AuthorizationID) == id {
			n++
		}
	}
	return n
}

// etcdRecords counts the etcd store's keys of the binding "sha256:<hex>"
// (the key is <prefix><domain>/<hex>).
func etcdRecords(binding string) int {
	GinkgoHelper()
	Expect(binding).To(HavePrefix("sha256:"))
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdServer.url()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = cli.Close() }()
	resp, err := cli.Get(ctx, etcdstore.DefaultPrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	Expect(err).NotTo(HaveOccurred())
	n := 0
	for _, kv := range resp.Kvs {
		if strings.HasSuffix(string(kv.Key), "/"+strings.TrimPrefix(binding, "sha256:")) {
			n++
		}
	}
	return n
}

// serviceReady returns the status of the service's /readyz, or an error.
func serviceReady(p *managerProc) (int, error) { return get(p.url() + "/readyz") }

// leaseHolder returns the holder of the managers' leader-election Lease.
func leaseHolder() string {
	GinkgoHelper()
	var lease coordinationv1.Lease
	Expect(admin.Get(ctx, client.ObjectKey{Namespace: systemNS, Name: leaseName}, &lease)).To(Succeed())
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

// leaders returns the running processes that acquired the Lease in their
// current life: the holder identity (hostname and a random id) names no
// process, so the acquisition controller-runtime logs does.
func leaders() []*managerProc {
	var ls []*managerProc
	for _, p := range allProcs() {
		if p.running() && strings.Contains(p.life(), acquiredLease) {
			ls = append(ls, p)
		}
	}
	return ls
}

// leader waits until exactly one running process holds the Lease and
// returns it.
func leader() *managerProc {
	GinkgoHelper()
	var l *managerProc
	Eventually(func(g Gomega) {
		ls := leaders()
		g.Expect(ls).To(HaveLen(1), "processes that acquired the Lease")
		l = ls[0]
	}).WithTimeout(30 * time.Second).Should(Succeed())
	return l
}

// successor returns PolicySnapshot prev's successor generation gen: every
// policy version of prev kept (an active one deprecated), plus version gen
// of prev's last policy with deny prepended.
func successor(prev *v1alpha1.PolicySnapshot, gen string, deny v1alpha1.PolicyRule) *v1alpha1.PolicySnapshot {
	next := &v1alpha1.PolicySnapshot{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PolicySnapshot"},
		ObjectMeta: metav1.ObjectMeta{Name: string(prev.Spec.SnapshotID) + "-" + gen, Namespace: ns},
		Spec:       *prev.Spec.DeepCopy(),
	}
	next.Spec.SnapshotGeneration = v1alpha1.Generation(gen)
	last := next.Spec.Policies[len(next.Spec.Policies)-1]
	for i := range next.Spec.Policies {
		if next.Spec.Policies[i].Lifecycle == v1alpha1.PolicyLifecycleActive {
			next.Spec.Policies[i].Lifecycle = v1alpha1.PolicyLifecycleDeprecated
		}
	}
	version := *last.DeepCopy()
	version.Generation, version.Lifecycle = v1alpha1.Generation(gen), v1alpha1.PolicyLifecycleActive
	version.Rules = append([]v1alpha1.PolicyRule{deny}, version.Rules...)
	next.Spec.Policies = append(next.Spec.Policies, version)
	return next
}

// denyPaymentsTo is a deny rule for payments.submit naming the account.
func denyPaymentsTo(account string) v1alpha1.PolicyRule {
	return v1alpha1.PolicyRule{
		ID: v1alpha1.LowerToken("deny-payments-to-" + account), Effect: v1alpha1.EffectDeny, Reason: v1alpha1.PolicyReasonDenyRuleMatched,
		Condition: apiextensionsv1.JSON{Raw: []byte(`{"all":[` +
			`{"predicate":{"name":"exactToolID","identifier":"payments.submit"}},` +
			`{"predicate":{"name":"requestedResourcesInclude","values":["` + account + `"]}}]}`)},
	}
}

// applyAs applies obj as the user of cfg and kubeconfig kc: with kubectl,
// or where kubectl is not on PATH (as in the samples spec) with a client.
func applyAs(cfg *rest.Config, kc string, obj client.Object) {
	GinkgoHelper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		By("kubectl is not on PATH: creating " + obj.GetName() + " with a client")
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Create(ctx, obj.DeepCopyObject().(client.Object))).To(Succeed())
		return
	}
	y, err := yaml.Marshal(obj)
	Expect(err).NotTo(HaveOccurred())
	file := filepath.Join(workDir, obj.GetName()+".yaml")
	Expect(os.WriteFile(file, y, 0o600)).To(Succeed())
	out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "apply", "-f", file).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "kubectl apply -f %s: %s", obj.GetName(), out)
}

// expectReady waits until ps's Ready condition is True for its generation.
func expectReady(ps *v1alpha1.PolicySnapshot) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var got v1alpha1.PolicySnapshot
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(ps), &got)).To(Succeed())
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(c).NotTo(BeNil(), "%s has no Ready condition", ps.Name)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s Ready: %s %s", ps.Name, c.Reason, c.Message)
		g.Expect(c.ObservedGeneration).To(Equal(got.Generation))
	}).WithTimeout(60*time.Second).WithPolling(250*time.Millisecond).Should(Succeed(), "%s not Ready", ps.Name)
}

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// currentGeneration is the payments-policy generation renamed selects:
// the current one (the examples' "2" until the suite applies generation 3).
var currentGeneration = "2"

// renamed returns the allow example with fresh identities (a new
// Authorization, binding and Consumption) and the matching expectations,
// selecting the current payments-policy generation and policy version 1.
func renamed(suffix string) (tgclient.AuthorizeRequest, tgclient.Expectations) {
	var req tgclient.AuthorizeRequest
	var exp tgclient.Expectations
	example("authorize-allow.json", &req)
	example("expectations-allow.json", &exp)
	req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration = currentGeneration, "1"
	req.DecisionID += "-" + suffix
	req.AuthorizationID += "-" + suffix
	req.ReplayID += "-" + suffix
	req.ConsumptionID += "-" + suffix
	exp.AuthorizationID, exp.ReplayID, exp.ConsumptionID = req.AuthorizationID, req.ReplayID, req.ConsumptionID
	return req, exp
}

var _ = Describe("toolgate manager processes", Ordered, func() {
	var (
		agent, executor string
		aliceCfg        *rest.Config // the policy administrator, as a client
		aliceKC         string       // and as a kubeconfig file
		gen3            *v1alpha1.PolicySnapshot
	)
	// aliceClient is a client acting as alice, the policy administrator.
	aliceClient := func() client.Client {
		GinkgoHelper()
		c, err := client.New(aliceCfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		return c
	}

	It("publish the samples applied by a policy administrator with kubectl: every object Ready", func() {
		cfg, kc := userConfig("alice", adminGroup)
		aliceCfg, aliceKC = cfg, kc
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

		By("every service loads the domain")
		for _, p := range allProcs() {
			p.waitUp(true)
		}
	})

	It("authorize the agent runtime's examples over HTTPS: allow with an artifact, deny and requireConfirmation without", func() {
		agent, executor = saToken("payments-agent-runtime"), saToken("payments-executor")

		var allow, deny, confirm tgclient.AuthorizeRequest
		var expectations tgclient.Expectations
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
		artifact := res.Authorization.Artifact

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

	// The same race and restart on each Consumption store, each store's
	// pair of processes sharing it: exactly one 200, 63 409.
	DescribeTable("consume one artifact exactly once among 64 concurrent calls split across two processes, and keep it consumed across a restart",
		func(pair *[2]*managerProc, inAPIServer, inEtcd int) {
			req, exp := renamed("race-" + pair[0].name)
			res, err := asP(pair[0], agent).Authorize(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Authorization).NotTo(BeNil())
			v := tgclient.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp}

			ok, consumed := consumeRace(pair[:], executor, v, 64)
			Expect(len(ok)).To(Equal(1), "successful consumes")
			Expect(consumed).To(Equal(63), "conflicts")
			By("one record, in this pair's store only")
			Expect(apiserverRecords(exp.AuthorizationID)).To(Equal(inAPIServer), "Consumption objects")
			Expect(etcdRecords(ok[0].Binding)).To(Equal(inEtcd), "etcd keys")

			// A follower: leadership changes only in the failover spec.
			restarted := pair[1]
			if leader() == restarted {
				restarted = pair[0]
			}
			By("restarting " + restarted.name)
			restarted.restart()
			for _, p := range pair {
				_, err := asP(p, executor).Consume(ctx, v)
				Expect(err).To(MatchError(tgclient.ErrConsumed), p.name)
			}
		},
		Entry("on the apiserver store (Consumption objects)", &procs, 1, 0),
		Entry("on the etcd store", &etcdProcs, 0, 1),
	)

	idempotentSpecs(&agent, &executor) // idempotent_test.go

	It("fail closed while the etcd store cannot answer: every consume 503 unavailable, /readyz not ready; afterwards the artifact consumes exactly once", func() {
		req, exp := renamed("outage")
		res, err := asP(etcdProcs[0], agent).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Authorization).NotTo(BeNil())
		v := tgclient.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp}

		By("killing etcd")
		etcdServer.kill()
		for _, p := range etcdProcs {
			Eventually(serviceReady).WithArguments(p).WithTimeout(20*time.Second).Should(Equal(http.StatusServiceUnavailable), "%s /readyz", p.name)
		}
		_, errs := consumeAll(etcdProcs[:], executor, v, 8)
		for _, err := range errs {
			Expect(err).To(HaveOccurred(), "a consume succeeded without the store")
			var ae *tgclient.APIError
			Expect(errors.As(err, &ae)).To(BeTrue(), "not an API error: %v", err)
			Expect(ae.Status).To(Equal(http.StatusServiceUnavailable), "%v", err)
			Expect(ae.Err.Code).To(Equal("unavailable"), "%v", err)
		}
		for _, p := range etcdProcs {
			Expect(serviceReady(p)).To(Equal(http.StatusServiceUnavailable), "%s /readyz after the consumes", p.name)
		}
		By("the apiserver-backed processes are unaffected")
		for _, p := range procs {
			Expect(serviceReady(p)).To(Equal(http.StatusOK), "%s /readyz", p.name)
		}

		By("restarting etcd on its data directory")
		etcdServer.start()
		for _, p := range etcdProcs {
			p.waitUp(true)
		}
		ok, consumed := consumeRace(etcdProcs[:], executor, v, 8)
		Expect(len(ok)).To(Equal(1), "successful consumes: the outage consumed nothing")
		Expect(consumed).To(Equal(7))
		Expect(etcdRecords(ok[0].Binding)).To(Equal(1))
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

	It("serve a new PolicySnapshot generation applied with kubectl without a restart; the superseded ones refused for new authorizations, their artifacts still consumed", func() {
		pids := map[string]int{}
		for _, p := range allProcs() {
			pids[p.name] = p.cmd.Process.Pid
		}
		set, err := manifest.LoadPaths(filepath.Join(repoRoot, "config", "samples"))
		Expect(err).NotTo(HaveOccurred())
		Expect(set.PolicySnapshots).To(HaveLen(2))
		gen2 := &set.PolicySnapshots[1]
		Expect(string(gen2.Spec.SnapshotGeneration)).To(Equal("2"))
		// Generation 3's new policy version denies what versions 1 and 2
		// allow: a payment to acct-2002 (the allow example).
		deny := denyPaymentsTo("acct-2002")
		rule := string(deny.ID)
		gen3 = successor(gen2, "3", deny)
		selecting := func(snapshot, policy string) (tgclient.AuthorizeRequest, tgclient.Expectations) {
			req, exp := renamed("gen" + snapshot + "-" + nonce())
			req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration = snapshot, policy
			return req, exp
		}

		By("generation 3 is not served before it is applied; generation 1 is already superseded by 2")
		for _, p := range allProcs() {
			req, _ := selecting("3", "3")
			_, err := asP(p, agent).Authorize(ctx, req)
			expectStatus(err, http.StatusNotFound)
			req, _ = selecting("1", "1")
			_, err = asP(p, agent).Authorize(ctx, req)
			expectCode(err, http.StatusConflict, "superseded")
		}
		// current is the allow example leaving the selection to the service.
		current := func() tgclient.AuthorizeRequest {
			req, _ := renamed("current-" + nonce())
			req.Registry.Generation, req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration = tgclient.Current, tgclient.Current, tgclient.Current
			return req
		}
		By("an agent selecting \"current\" gets generation 2's active version 2 and an artifact")
		for _, p := range allProcs() {
			res, err := asP(p, agent).Authorize(ctx, current())
			Expect(err).NotTo(HaveOccurred(), p.name)
			Expect(res.Selection.Policy.SnapshotGeneration+"/"+res.Selection.Policy.PolicyGeneration).To(Equal("2/2"), p.name)
			Expect(res.Authorization).NotTo(BeNil(), p.name)
		}
		By("an artifact is issued under generation 2 while it is current")
		req2, exp2 := selecting("2", "2")
		issued, err := as(0, agent).Authorize(ctx, req2)
		Expect(err).NotTo(HaveOccurred())
		Expect(issued.Authorization).NotTo(BeNil())

		By("alice applies generation 3 with kubectl")
		applyAs(aliceCfg, aliceKC, gen3)
		expectReady(gen3)
		currentGeneration = "3"

		By("the agent selecting \"current\" is refused nothing: every process decides with generation 3's active version 3")
		for _, p := range allProcs() {
			Eventually(func(g Gomega) {
				res, err := asP(p, agent).Authorize(ctx, current())
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(res.Selection.Policy.SnapshotGeneration + "/" + res.Selection.Policy.PolicyGeneration).To(Equal("3/3"))
				g.Expect(res.Decision.MatchedRules).To(ContainElement(ContainSubstring(rule)))
			}).WithTimeout(30*time.Second).WithPolling(250*time.Millisecond).Should(Succeed(), p.name)
		}
		By("every process decides with generation 3 when it is selected")
		for _, p := range allProcs() {
			Eventually(func(g Gomega) {
				req, _ := selecting("3", "3")
				res, err := asP(p, agent).Authorize(ctx, req)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(res.Decision.Outcome).To(Equal("deny"))
				g.Expect(res.Decision.Reasons).To(ContainElement("denyRuleMatched"))
				g.Expect(res.Decision.MatchedRules).To(ContainElement(ContainSubstring(rule)))
				g.Expect(res.Authorization).To(BeNil())
			}).WithTimeout(30*time.Second).WithPolling(250*time.Millisecond).Should(Succeed(), p.name)
		}
		By("generation 3 keeps the earlier policy versions: version 1 still decides as before")
		for _, p := range allProcs() {
			req, _ := selecting("3", "1")
			res, err := asP(p, agent).Authorize(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Decision.Outcome).To(Equal("allow"), p.name)
			Expect(res.Decision.MatchedRules).NotTo(ContainElement(ContainSubstring(rule)))
		}
		By("every process refuses new authorizations on the superseded generations 1 and 2")
		for _, p := range allProcs() {
			for _, sel := range [][2]string{{"1", "1"}, {"2", "2"}} {
				req, _ := selecting(sel[0], sel[1])
				_, err := asP(p, agent).Authorize(ctx, req)
				expectCode(err, http.StatusConflict, "superseded")
			}
		}
		By("the artifact issued under generation 2 before it was superseded still validates everywhere and consumes once")
		v := tgclient.ValidateRequest{Artifact: issued.Authorization.Artifact, Expectations: exp2}
		for _, p := range allProcs() {
			_, err := asP(p, executor).Validate(ctx, v)
			Expect(err).NotTo(HaveOccurred(), p.name)
		}
		done, err := as(1, executor).Consume(ctx, v)
		Expect(err).NotTo(HaveOccurred())
		Expect(done.Consumed).To(BeTrue())
		By("a selection is exact: generation 3 holds no policy version 4")
		for _, p := range allProcs() {
			req, _ := selecting("3", "4")
			res, err := asP(p, agent).Authorize(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Decision.Outcome).To(Equal("deny"), p.name)
			Expect(res.Decision.Reasons).To(ConsistOf("policyUnknown"), p.name)
		}
		By("no process restarted")
		for _, p := range allProcs() {
			Expect(p.running()).To(BeTrue(), p.name)
			Expect(p.cmd.Process.Pid).To(Equal(pids[p.name]), p.name)
		}
	})

	It("converge on a new generation and on a revocation on every process: measured, from the create's response to the first refusal", func() {
		// A snapshot identity of its own, so the payments-policy
		// generations later specs select stay as they are.
		base := gen3.DeepCopy()
		base.Spec.SnapshotID = "converge-policy"
		var lat []time.Duration
		measure := func(refused func(p *managerProc) bool) {
			GinkgoHelper()
			t1 := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			for _, p := range allProcs() {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					for !refused(p) {
						Expect(time.Since(t1)).To(BeNumerically("<", 20*time.Second), "%s never converged", p.name)
						time.Sleep(2 * time.Millisecond)
					}
					mu.Lock()
					lat = append(lat, time.Since(t1))
					mu.Unlock()
				}()
			}
			wg.Wait()
		}
		selecting := func(gen string) tgclient.AuthorizeRequest {
			req, _ := renamed("converge-" + nonce())
			req.Policy.SnapshotID, req.Policy.SnapshotGeneration, req.Policy.PolicyGeneration = "converge-policy", gen, "1"
			return req
		}
		const n = 12
		for g := 1; g <= n; g++ {
			ps := base.DeepCopy()
			ps.ResourceVersion, ps.UID, ps.Status = "", "", v1alpha1.PublicationStatus{}
			ps.Spec.SnapshotGeneration = v1alpha1.Generation(fmt.Sprint(g))
			ps.Name = "converge-policy-" + fmt.Sprint(g)
			Expect(aliceClient().Create(ctx, ps)).To(Succeed())
			if g == 1 {
				expectReady(ps)
				continue
			}
			prev := fmt.Sprint(g - 1)
			measure(func(p *managerProc) bool {
				_, err := asP(p, agent).Authorize(ctx, selecting(prev))
				return hasCode(err, http.StatusConflict, "superseded")
			})
		}
		By("a revocation of the current generation")
		generations := len(lat)
		Expect(aliceClient().Create(ctx, revocationOf("converge-revoke", &v1alpha1.RevocationSpec{
			PolicySnapshot: &v1alpha1.SnapshotGenerationRef{SnapshotID: "converge-policy", Generation: v1alpha1.Generation(fmt.Sprint(n))},
		}))).To(Succeed())
		measure(func(p *managerProc) bool {
			_, err := asP(p, agent).Authorize(ctx, selecting(fmt.Sprint(n)))
			return hasCode(err, http.StatusConflict, "revoked")
		})
		q := func(d []time.Duration, p float64) time.Duration {
			s := slices.Sorted(slices.Values(d))
			return s[int(p*float64(len(s)-1)+0.5)].Round(100 * time.Microsecond)
		}
		line := fmt.Sprintf("convergence on every process after the create's response (n=%d: %d generations x %d processes): p50 %v, p99 %v, max %v; a revocation: max %v over %d processes",
			generations, n-1, len(allProcs()), q(lat[:generations], 0.5), q(lat[:generations], 0.99), q(lat[:generations], 1), q(lat[generations:], 1), len(allProcs()))
		AddReportEntry("convergence", line)
		fmt.Fprintln(os.Stdout, line)
	})

	It("refuse a revoked Authorization and a revoked generation on every process; a Revocation is Ready and can be neither edited nor deleted", func() {
		By("two artifacts: one under a generation of its own, one under the current payments generation")
		own := gen3.DeepCopy()
		own.ResourceVersion, own.UID, own.Status = "", "", v1alpha1.PublicationStatus{}
		own.Spec.SnapshotID, own.Name = "revoke-policy", "revoke-policy-1"
		own.Spec.SnapshotGeneration = "1"
		Expect(aliceClient().Create(ctx, own)).To(Succeed())
		expectReady(own)
		reqG, expG := renamed("revoke-gen-" + nonce())
		reqG.Policy.SnapshotID, reqG.Policy.SnapshotGeneration, reqG.Policy.PolicyGeneration = "revoke-policy", "1", "1"
		var byGen *tgclient.AuthorizeResponse
		Eventually(func(g Gomega) {
			var err error
			byGen, err = as(0, agent).Authorize(ctx, reqG)
			g.Expect(err).NotTo(HaveOccurred())
		}).WithTimeout(20 * time.Second).Should(Succeed())
		Expect(byGen.Authorization).NotTo(BeNil())
		reqA, expA := renamed("revoke-auth-" + nonce())
		reqA.Policy.SnapshotGeneration, reqA.Policy.PolicyGeneration = "3", "1"
		byID, err := as(0, agent).Authorize(ctx, reqA)
		Expect(err).NotTo(HaveOccurred())
		Expect(byID.Authorization).NotTo(BeNil())
		vG := tgclient.ValidateRequest{Artifact: byGen.Authorization.Artifact, Expectations: expG}
		vA := tgclient.ValidateRequest{Artifact: byID.Authorization.Artifact, Expectations: expA}
		for _, p := range allProcs() {
			_, err := asP(p, executor).Validate(ctx, vG)
			Expect(err).NotTo(HaveOccurred(), p.name)
			_, err = asP(p, executor).Validate(ctx, vA)
			Expect(err).NotTo(HaveOccurred(), p.name)
		}

		By("alice revokes the generation and the Authorization")
		revGen := revocationOf("revoke-policy-1", &v1alpha1.RevocationSpec{
			PolicySnapshot: &v1alpha1.SnapshotGenerationRef{SnapshotID: "revoke-policy", Generation: "1"}})
		revID := revocationOf("revoke-"+byID.Authorization.ID, &v1alpha1.RevocationSpec{
			Authorization: &v1alpha1.AuthorizationRef{ID: v1alpha1.LowerToken(byID.Authorization.ID)}})
		Expect(aliceClient().Create(ctx, revGen)).To(Succeed())
		Expect(aliceClient().Create(ctx, revID)).To(Succeed())

		By("every process refuses both at validate (which consumes nothing, so polling cannot spend them), and the generation at authorize")
		for _, p := range allProcs() {
			Eventually(func(g Gomega) {
				_, err := asP(p, executor).Validate(ctx, vG)
				g.Expect(hasCode(err, http.StatusConflict, "revoked")).To(BeTrue(), "%v", err)
				_, err = asP(p, executor).Validate(ctx, vA)
				g.Expect(hasCode(err, http.StatusConflict, "revoked")).To(BeTrue(), "%v", err)
				_, err = asP(p, agent).Authorize(ctx, reqG)
				g.Expect(hasCode(err, http.StatusConflict, "revoked")).To(BeTrue(), "%v", err)
			}).WithTimeout(20*time.Second).WithPolling(20*time.Millisecond).Should(Succeed(), p.name)
		}
		By("and at consume, on every process")
		for _, p := range allProcs() {
			for _, v := range []tgclient.ValidateRequest{vG, vA} {
				_, err := asP(p, executor).Consume(ctx, v)
				expectCode(err, http.StatusConflict, "revoked")
			}
		}

		By("a Revocation is Ready, and can be neither edited nor deleted")
		Eventually(func(g Gomega) {
			var got v1alpha1.Revocation
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(revGen), &got)).To(Succeed())
			c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		}).WithTimeout(20 * time.Second).Should(Succeed())
		var got v1alpha1.Revocation
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(revGen), &got)).To(Succeed())
		got.Spec.PolicySnapshot.Generation = "2"
		Expect(apierrors.IsInvalid(aliceClient().Update(ctx, &got))).To(BeTrue(), "a Revocation's spec was edited")
		err = admin.Delete(ctx, revGen)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a Revocation was deleted: %v", err)
		By("the Revocation the delete was refused for stays in force everywhere")
		for _, p := range allProcs() {
			_, err := asP(p, executor).Consume(ctx, vG)
			expectCode(err, http.StatusConflict, "revoked")
		}
	})

	It("rotate a domain's signing key with toolgate keys rotate: both replicas sign with the new key, an artifact from before consumes, no tenant Secret reader reads a key", func() {
		rotateAcrossReplicas(func() string { return agent }, func() string { return executor })
	})

	It("fail over leadership when the leader is killed: another process holds the Lease and writes the status of a new object", func() {
		killed := leader()
		holder := leaseHolder()
		Expect(holder).NotTo(BeEmpty())

		By("killing the leader, " + killed.name)
		killed.stop(true)
		var newLeader *managerProc
		Eventually(func(g Gomega) {
			g.Expect(leaseHolder()).NotTo(Or(BeEmpty(), Equal(holder)))
			ls := leaders()
			g.Expect(ls).To(HaveLen(1))
			newLeader = ls[0]
		}).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		Expect(newLeader).NotTo(Equal(killed))
		newHolder := leaseHolder()

		// The killed process comes back as a follower before anything is
		// applied: admission needs manager-1 (the webhook configurations
		// name its port, failurePolicy Fail), the first leader.
		By("restarting " + killed.name + " as a follower")
		killed.start()
		killed.waitUp(true)

		By("a new generation is applied and gets Ready, written by the new leader")
		Expect(gen3).NotTo(BeNil())
		gen4 := successor(gen3, "4", denyPaymentsTo("acct-3003"))
		applyAs(aliceCfg, aliceKC, gen4)
		expectReady(gen4)
		currentGeneration = "4"
		Expect(leaseHolder()).To(Equal(newHolder), "leadership moved again")
		Expect(leaders()).To(ConsistOf(newLeader))
	})

	It("never write an argument value or a bearer token to any process's output", func() {
		memoCanary := "canary-memo-" + nonce()
		tokenCanary := "canary-token-" + nonce()
		for _, p := range allProcs() {
			req, _ := renamed("canary-" + nonce())
			var args map[string]any
			Expect(json.Unmarshal(req.Proposal.Arguments, &args)).To(Succeed())
			args["memo"] = "Invoice " + memoCanary
			var err error
			req.Proposal.Arguments, err = json.Marshal(args)
			Expect(err).NotTo(HaveOccurred())

			_, err = asP(p, tokenCanary).Authorize(ctx, req)
			expectStatus(err, http.StatusUnauthorized)
			_, err = asP(p, agent+tokenCanary).Authorize(ctx, req)
			expectStatus(err, http.StatusUnauthorized)
			res, err := asP(p, agent).Authorize(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Decision.Outcome).To(Equal("allow"))

			// The decision log is asynchronous: once the last call's line
			// is out, the earlier ones are too.
			Eventually(p.out.String).WithTimeout(20*time.Second).Should(ContainSubstring(req.DecisionID), "%s wrote no decision-log line for the call", p.name)
		}
		for _, p := range allProcs() {
			out := p.out.String()
			Expect(out).NotTo(ContainSubstring(memoCanary), "%s wrote an argument value", p.name)
			Expect(out).NotTo(ContainSubstring(tokenCanary), "%s wrote a bearer token", p.name)
			Expect(out).NotTo(ContainSubstring(agent), "%s wrote the agent's token", p.name)
		}
	})
})
