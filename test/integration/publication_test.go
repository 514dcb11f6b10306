package integration_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/toolgate/toolgate/api/v1alpha1"
	tgclient "github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/consume/apistore"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/publisher"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

const (
	ns        = "payments" // the samples' namespace
	authority = "payments-host"
	keyNS     = "toolgate-keys" // the managers' key namespace
)

func samples() *manifest.Set {
	GinkgoHelper()
	set, err := kubefixture.Samples(repoRoot)
	Expect(err).NotTo(HaveOccurred())
	return set
}

// fresh returns a copy of obj ready to be created under name.
func fresh[T client.Object](obj T, name string) T { return kubefixture.Fresh(obj, ns, name) }

// generation returns a copy of the PolicySnapshot spec as generation gen.
func generation(ps *v1alpha1.PolicySnapshot, gen string, mod func(*v1alpha1.PolicySnapshotSpec)) *v1alpha1.PolicySnapshot {
	c := fresh(ps, string(ps.Spec.SnapshotID)+"-"+gen)
	c.Spec.SnapshotGeneration = v1alpha1.Generation(gen)
	if mod != nil {
		mod(&c.Spec)
	}
	return c
}

// status returns obj's publication status once its Ready condition has
// the reason want.
func status(obj client.Object, want string) *v1alpha1.PublicationStatus {
	GinkgoHelper()
	var st *v1alpha1.PublicationStatus
	Eventually(func(g Gomega) {
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		switch o := obj.(type) {
		case *v1alpha1.HostAuthority:
			st = &o.Status
		case *v1alpha1.ToolRegistry:
			st = &o.Status
		case *v1alpha1.PolicySnapshot:
			st = &o.Status
		}
		c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(want), "Ready: %s", c.Message)
		g.Expect(c.ObservedGeneration).To(Equal(obj.GetGeneration()))
		g.Expect(st.ObservedGeneration).To(Equal(obj.GetGeneration()))
	}).WithTimeout(20 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())
	return st
}

func readyMessage(st *v1alpha1.PublicationStatus) string {
	return meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady).Message
}

// servedObjects lists the store's entries as kind/object@domain.
func servedObjects() []string {
	var out []string
	for _, e := range served.Served() {
		out = append(out, string(e.Kind)+"/"+e.Object+"@"+e.Domain)
	}
	return out
}

// expectRejected asserts err is an admission rejection of the given kind
// (Invalid or Forbidden) whose message names every want and none of the
// rejected values in never.
func expectRejected(err error, is func(error) bool, want []string, never ...string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred(), "the object was admitted")
	Expect(is(err)).To(BeTrue(), "unexpected rejection: %v", err)
	for _, w := range want {
		Expect(err.Error()).To(ContainSubstring(w))
	}
	for _, n := range never {
		Expect(err.Error()).NotTo(ContainSubstring(n), "the rejection echoes a rejected value")
	}
}

var _ = Describe("publication through the webhooks and controllers", Ordered, func() {
	var (
		set     *manifest.Set
		haUID   string
		digests map[string]string // object name → expected contentDigest
	)

	BeforeAll(func() {
		set = samples()
		// The expected digests come from the engine directly: a fresh
		// domain, the samples published into it offline.
		o := &set.HostAuthorities[0]
		cfg, err := manifest.HostConfig(o)
		Expect(err).NotTo(HaveOccurred())
		h, err := host.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		adminCaller, ok := manifest.AdministratorOf(o)
		Expect(ok).To(BeTrue())
		Expect(publication.Into(set, h, ns, authority, adminCaller)).To(Succeed())
		digests = map[string]string{authority: h.Authority().Digest().String()}
		for _, tr := range set.ToolRegistries {
			r, err := h.Registry(string(tr.Spec.SnapshotID), string(tr.Spec.SnapshotGeneration))
			Expect(err).NotTo(HaveOccurred())
			digests[tr.Name] = r.Digest().String()
		}
		for _, ps := range set.PolicySnapshots {
			p, err := h.Policy(string(ps.Spec.SnapshotID), string(ps.Spec.SnapshotGeneration))
			Expect(err).NotTo(HaveOccurred())
			digests[ps.Name] = p.Digest().String()
		}
	})

	It("serve config/samples: every object Ready with its engine digest and in the store", func() {
		// Created back to back, as kubectl apply -k does: the
		// PolicySnapshots' admission waits for the new domain, and
		// generation 2's finds generation 1 in the apiserver.
		ha := fresh(&set.HostAuthorities[0], authority)
		Expect(asAlice.Create(ctx, ha)).To(Succeed())
		tr := fresh(&set.ToolRegistries[0], set.ToolRegistries[0].Name)
		Expect(asAlice.Create(ctx, tr)).To(Succeed())
		for i := range set.PolicySnapshots {
			ps := fresh(&set.PolicySnapshots[i], set.PolicySnapshots[i].Name)
			Expect(asAlice.Create(ctx, ps)).To(Succeed())
		}
		st := status(ha, v1alpha1.ReasonAccepted)
		Expect(st.ContentDigest).To(Equal(digests[authority]))
		Expect(st.PublishedBy).To(Equal(alice))
		haUID = string(ha.UID)
		for _, o := range []client.Object{tr, fresh(&set.PolicySnapshots[0], "payments-policy-1"), fresh(&set.PolicySnapshots[1], "payments-policy-2")} {
			st := status(o, v1alpha1.ReasonAccepted)
			Expect(st.ContentDigest).To(Equal(digests[o.GetName()]), o.GetName())
			Expect(st.PublishedBy).To(Equal(alice))
		}
		Expect(servedObjects()).To(Equal([]string{
			"PolicySnapshot/payments-policy-1@" + haUID,
			"PolicySnapshot/payments-policy-2@" + haUID,
			"ToolRegistry/primary-registry-1@" + haUID,
		}))
		p, ok := served.Policy(store.Key{Namespace: ns, Authority: authority, ID: "payments-policy", Generation: "2"})
		Expect(ok).To(BeTrue())
		Expect(p.Digest().String()).To(Equal(digests["payments-policy-2"]))

		// The domain's key set is a Secret in the key namespace, named by
		// the HostAuthority's UID; the tenant namespace holds no key.
		var key corev1.Secret
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: keyNS, Name: controllers.SigningKeySecretName(ha.UID)}, &key)).To(Succeed())
		Expect(key.Annotations[controllers.SigningKeyUIDAnnotation]).To(Equal(haUID))
		Expect(key.Labels).To(HaveKeyWithValue(controllers.SigningKeyNamespaceLabel, ns))
		var tenant corev1.SecretList
		Expect(admin.List(ctx, &tenant, client.InNamespace(ns))).To(Succeed())
		Expect(tenant.Items).To(BeEmpty(), "a signing key in the tenant namespace is readable by its Secret readers")
	})

	It("authorize, validate and consume through the in-cluster service: TokenReview callers, the store's domains, Consumption objects", func() {
		cs, err := kubernetes.NewForConfig(testEnv.Config)
		Expect(err).NotTo(HaveOccurred())
		token := func(sa string) string {
			_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authnv1.TokenRequest{
				Spec: authnv1.TokenRequestSpec{Audiences: []string{server.Audience}},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			return tr.Status.Token
		}
		agent, executor := token("payments-agent-runtime"), token("payments-executor")
		srv, err := server.New(server.Config{
			Domains: served, Auth: server.NewTokenReview(cs.AuthenticationV1().TokenReviews(), time.Minute),
			Store: apistore.New(admin, ns, apistore.Options{}),
		})
		Expect(err).NotTo(HaveOccurred())
		ts := httptest.NewServer(srv.Handler())
		defer ts.Close()

		var req tgclient.AuthorizeRequest
		var exp tgclient.Expectations
		for path, v := range map[string]any{"authorize-allow.json": &req, "expectations-allow.json": &exp} {
			raw, err := os.ReadFile(filepath.Join(repoRoot, "examples", "api", path))
			Expect(err).NotTo(HaveOccurred())
			Expect(json.Unmarshal(raw, v)).To(Succeed())
		}
		res, err := tgclient.New(ts.URL, agent, nil).Authorize(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Decision.Outcome).To(Equal("allow"))
		Expect(res.Authorization).NotTo(BeNil())

		ex := tgclient.New(ts.URL, executor, nil)
		v := tgclient.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: exp}
		_, err = tgclient.New(ts.URL, agent, nil).Consume(ctx, v)
		Expect(err).To(HaveOccurred(), "the agent runtime is not an executor")
		done, err := ex.Consume(ctx, v)
		Expect(err).NotTo(HaveOccurred())
		Expect(done.Consumed).To(BeTrue())
		_, err = ex.Consume(ctx, v)
		Expect(err).To(MatchError(tgclient.ErrConsumed))

		var records v1alpha1.ConsumptionList
		Expect(admin.List(ctx, &records, client.InNamespace(ns))).To(Succeed())
		Expect(records.Items).To(HaveLen(1))
		Expect(string(records.Items[0].Spec.AuthorizationID)).To(Equal(res.Authorization.ID))
		Expect(records.Items[0].Name).To(HavePrefix(haUID + "."))
	})

	It("rotate the signing key on the annotation: the same domain on both replicas, and an artifact issued before consumes on each", func() {
		cs, err := kubernetes.NewForConfig(testEnv.Config)
		Expect(err).NotTo(HaveOccurred())
		token := func(sa string) string { // the service accounts exist: the test above made them
			tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authnv1.TokenRequest{
				Spec: authnv1.TokenRequestSpec{Audiences: []string{server.Audience}},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			return tr.Status.Token
		}
		agent, executor := token("payments-agent-runtime"), token("payments-executor")
		serve := func(ds *store.Store) string {
			srv, err := server.New(server.Config{
				Domains: ds, Auth: server.NewTokenReview(cs.AuthenticationV1().TokenReviews(), time.Minute),
				Store: apistore.New(admin, ns, apistore.Options{}),
			})
			Expect(err).NotTo(HaveOccurred())
			ts := httptest.NewServer(srv.Handler())
			DeferCleanup(ts.Close)
			return ts.URL
		}
		leaderURL, followerURL := serve(served), serve(follower)

		var req tgclient.AuthorizeRequest
		var exp tgclient.Expectations
		for path, v := range map[string]any{"authorize-allow.json": &req, "expectations-allow.json": &exp} {
			raw, err := os.ReadFile(filepath.Join(repoRoot, "examples", "api", path))
			Expect(err).NotTo(HaveOccurred())
			Expect(json.Unmarshal(raw, v)).To(Succeed())
		}
		issue := func(url, n string) tgclient.ValidateRequest {
			r := req
			r.DecisionID, r.AuthorizationID, r.ReplayID, r.ConsumptionID = "decision-rot-"+n, "authz-rot-"+n, "replay-rot-"+n, "consumption-rot-"+n
			res, err := tgclient.New(url, agent, nil).Authorize(ctx, r)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Authorization).NotTo(BeNil())
			e := exp
			e.AuthorizationID, e.ReplayID, e.ConsumptionID = r.AuthorizationID, r.ReplayID, r.ConsumptionID
			return tgclient.ValidateRequest{Artifact: res.Authorization.Artifact, Expectations: e}
		}
		before, _ := served.Domain(ns, authority)
		first, second := issue(leaderURL, "1"), issue(followerURL, "2")

		var ha v1alpha1.HostAuthority
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: authority}, &ha)).To(Succeed())
		patch := client.MergeFrom(ha.DeepCopy())
		if ha.Annotations == nil {
			ha.Annotations = map[string]string{}
		}
		ha.Annotations[controllers.RotateAnnotation] = "rotation-1" // what toolgate keys rotate does
		Expect(admin.Patch(ctx, &ha, patch)).To(Succeed())
		for _, st := range []*store.Store{served, follower} {
			Eventually(func() string {
				d, _ := st.Domain(ns, authority)
				return d.SigningKeyID
			}).WithTimeout(10 * time.Second).ShouldNot(Equal(before.SigningKeyID))
			after, _ := st.Domain(ns, authority)
			Expect(after.UID).To(Equal(before.UID), "a rotation is not a new domain")
			Expect(after.KeyID).To(Equal(before.KeyID), "the attestation key stays: published snapshots stay served")
		}
		Expect(servedObjects()).To(ContainElement("PolicySnapshot/payments-policy-1@" + haUID))

		// Both artifacts were signed by the rotated-out key; each consumes
		// on the other replica.
		for _, c := range []struct {
			url string
			v   tgclient.ValidateRequest
		}{{followerURL, first}, {leaderURL, second}} {
			done, err := tgclient.New(c.url, executor, nil).Consume(ctx, c.v)
			Expect(err).NotTo(HaveOccurred())
			Expect(done.Consumed).To(BeTrue())
		}
		// The leader acted once for the value: the key set holds the new
		// active key and the old one, verify-only.
		var key corev1.Secret
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: keyNS, Name: controllers.SigningKeySecretName(ha.UID)}, &key)).To(Succeed())
		ks, err := serving.ParseKeyState(key.Data[controllers.SigningKeyField])
		Expect(err).NotTo(HaveOccurred())
		Expect(ks.Keys()).To(HaveLen(2))
		Expect(ks.Keys()[1].ID).To(Equal(before.SigningKeyID))
		Expect(ks.Keys()[1].RetireAt).To(BeTemporally(">", time.Now()))
		Expect(ks.Rotation()).To(Equal("rotation-1"))
	})

	It("reject objects the engine rejects, with every violation at its path and no value echoed", func() {
		tr := fresh(&set.ToolRegistries[0], "primary-registry-2")
		tr.Spec.SnapshotGeneration = "2"
		tr.Spec.Definitions[0].Schema.Root = apiextensionsv1.JSON{Raw: []byte(`{"kind":"object","fields":[],"secret-extra-key":1}`)}
		tr.Spec.Definitions[1].Schema.Root = apiextensionsv1.JSON{Raw: []byte(`{"kind":"object","fields":{"secret-string-root":1}}`)}
		expectRejected(asAlice.Create(ctx, tr), apierrors.IsInvalid,
			[]string{"spec.definitions[0].schema.root", "spec.definitions[1].schema.root.fields"}, "secret-extra-key", "secret-string-root")

		ha := fresh(&set.HostAuthorities[0], "treasury-host")
		ha.Spec.AuthorityID = "treasury-host"
		ha.Spec.Roles[0].Subjects = append(ha.Spec.Roles[0].Subjects, ha.Spec.Roles[0].Subjects[0])
		expectRejected(asAlice.Create(ctx, ha), apierrors.IsInvalid, []string{"spec.roles[0].subjects[2]", "duplicate"})

		// Two rules name a Resource outside the HostAuthority ceiling; both
		// are reported, each at its path.
		var want []string
		ps := generation(&set.PolicySnapshots[1], "3", func(s *v1alpha1.PolicySnapshotSpec) {
			last := &s.Policies[len(s.Policies)-1]
			for j := range last.Rules {
				if r := &last.Rules[j]; r.Scope != nil && len(want) < 2 {
					r.Scope.Resources = append(r.Scope.Resources, "acct-secret-9999")
					want = append(want, fmt.Sprintf("spec.policies[1].rules[%d].scope.resources[%d]", j, len(r.Scope.Resources)-1))
				}
			}
		})
		Expect(want).To(HaveLen(2))
		expectRejected(asAlice.Create(ctx, ps), apierrors.IsInvalid, want, "acct-secret-9999")
	})

	It("reject spec updates and keep the publisher annotations", func() {
		var ps v1alpha1.PolicySnapshot
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: "payments-policy-1"}, &ps)).To(Succeed())
		edited := ps.DeepCopy()
		edited.Spec.Policies[0].Lifecycle = v1alpha1.PolicyLifecycleRetired
		expectRejected(asAlice.Update(ctx, edited), apierrors.IsInvalid, []string{"spec"})

		before := ps.Annotations[publisher.Annotation]
		ps.Annotations[publisher.Annotation] = `{"name":"mallory"}`
		Expect(asMallor.Update(ctx, &ps)).To(Succeed())
		Expect(ps.Annotations[publisher.Annotation]).To(Equal(before), "the mutating webhook keeps the recorded publisher")
	})

	It("reject a second object with the same identity and generation", func() {
		dup := fresh(&set.PolicySnapshots[0], "payments-policy-1")
		Expect(apierrors.IsAlreadyExists(asAlice.Create(ctx, dup))).To(BeTrue())
	})

	It("reject successors that drop, change or revive a prior policy version, and accept the exact successor", func() {
		gen2 := &set.PolicySnapshots[1]
		cases := map[string]func(*v1alpha1.PolicySnapshotSpec){
			"drops a prior version": func(s *v1alpha1.PolicySnapshotSpec) { s.Policies = s.Policies[1:] },
			"changes a prior version": func(s *v1alpha1.PolicySnapshotSpec) {
				s.Policies[0].Rules[0].Reason = v1alpha1.PolicyReason("policyMatchedAllow")
				if s.Policies[0].Rules[0].Reason == gen2.Spec.Policies[0].Rules[0].Reason {
					s.Policies[0].Rules = s.Policies[0].Rules[1:]
				}
			},
			"moves a lifecycle backwards": func(s *v1alpha1.PolicySnapshotSpec) { s.Policies[0].Lifecycle = v1alpha1.PolicyLifecycleActive },
		}
		for name, mod := range cases {
			By(name)
			expectRejected(asAlice.Create(ctx, generation(gen2, "3", mod)), apierrors.IsInvalid, []string{"spec."})
		}
		By("skips a generation")
		expectRejected(asAlice.Create(ctx, generation(gen2, "4", nil)), apierrors.IsInvalid, []string{"spec.snapshotGeneration"})
		By("the exact successor")
		gen3 := generation(gen2, "3", nil)
		Expect(asAlice.Create(ctx, gen3)).To(Succeed())
		status(gen3, v1alpha1.ReasonAccepted)
	})

	It("reject a PolicySnapshot from a user without policyAdministrationAuthority", func() {
		ps := generation(&set.PolicySnapshots[1], "4", nil)
		expectRejected(asMallor.Create(ctx, ps), apierrors.IsForbidden, []string{"policyAdministrationAuthority"}, mallory)
	})

	It("change the rollout grace on the existing domain: a policy administrator's only, the domain and its key kept", func() {
		// Generation 3 of payments-policy is current (the successor spec
		// above): generation 2 is superseded until a grace covers it.
		before, ok := served.Domain(ns, authority)
		Expect(ok).To(BeTrue())
		pinned := serving.Selection{RegistryID: "primary-registry", RegistryGeneration: "1", PolicyID: "payments-policy", PolicyGeneration: "2",
			DefinitionID: "payments-guardrails", DefinitionGeneration: "2"}
		selectable := func() error {
			d, ok := served.ByName(ns, authority)
			if !ok {
				return errors.New("the domain is not served")
			}
			_, err := d.Select(pinned, time.Now())
			return err
		}
		Expect(serving.ReasonOf(selectable())).To(Equal(serving.Superseded))

		// setRollout writes r as c's user onto the latest object (the
		// controller writes the object too: a stale one conflicts).
		setRollout := func(c client.Client, r *v1alpha1.HostAuthorityRollout) error {
			var latest v1alpha1.HostAuthority
			if err := admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: authority}, &latest); err != nil {
				return err
			}
			latest.Rollout = r
			return c.Update(ctx, &latest)
		}
		grace := &v1alpha1.HostAuthorityRollout{SupersededGrace: &v1alpha1.SupersededGrace{Generations: "1"}}
		expectRejected(setRollout(asMallor, grace), apierrors.IsForbidden, []string{"policyAdministrationAuthority"})
		Eventually(func() error { return setRollout(asAlice, grace) }).Should(Succeed())
		Eventually(selectable).Should(Succeed())
		after, ok := served.Domain(ns, authority)
		Expect(ok).To(BeTrue())
		Expect(after.UID).To(Equal(before.UID))
		Expect(after.KeyID).To(Equal(before.KeyID), "a grace change is not a new domain")

		Eventually(func() error { return setRollout(asAlice, nil) }).Should(Succeed())
		Eventually(func() serving.Reason { return serving.ReasonOf(selectable()) }).Should(Equal(serving.Superseded))
	})

	It("never serve objects that reached etcd without the webhook", func() {
		var mwc admissionregistrationv1.MutatingWebhookConfigurationList
		var vwc admissionregistrationv1.ValidatingWebhookConfigurationList
		Expect(admin.List(ctx, &mwc)).To(Succeed())
		Expect(admin.List(ctx, &vwc)).To(Succeed())
		Expect(mwc.Items).NotTo(BeEmpty())
		Expect(vwc.Items).NotTo(BeEmpty())
		for i := range mwc.Items {
			Expect(admin.Delete(ctx, &mwc.Items[i])).To(Succeed())
		}
		for i := range vwc.Items {
			Expect(admin.Delete(ctx, &vwc.Items[i])).To(Succeed())
		}

		// Created by mallory, who may not publish, while no webhook runs:
		// the apiserver admits them once it has dropped the webhooks.
		ps := generation(&set.PolicySnapshots[1], "4", nil)
		bad := fresh(&set.ToolRegistries[0], "primary-registry-2")
		bad.Spec.SnapshotGeneration = "2"
		bad.Spec.Definitions[0].Schema.Root = apiextensionsv1.JSON{Raw: []byte(`{"kind":"object","fields":[],"secret-extra-key":1}`)}
		for _, o := range []client.Object{ps, bad} {
			Eventually(func(g Gomega) {
				c := o.DeepCopyObject().(client.Object)
				err := asMallor.Create(ctx, c)
				g.Expect(err).NotTo(HaveOccurred())
				if _, signed := c.GetAnnotations()[publisher.Annotation]; signed { // a webhook still ran
					g.Expect(admin.Delete(ctx, c)).To(Succeed())
					g.Expect(errors.New("a webhook still ran")).NotTo(HaveOccurred())
				}
			}).WithTimeout(20 * time.Second).Should(Succeed())
		}
		Expect(readyMessage(status(ps, v1alpha1.ReasonRejected))).To(ContainSubstring("publisher attestation"))
		msg := readyMessage(status(bad, v1alpha1.ReasonRejected))
		Expect(msg).To(ContainSubstring("spec.definitions[0].schema.root"))
		Expect(msg).NotTo(ContainSubstring("secret-extra-key"))
		Consistently(servedObjects).WithTimeout(time.Second).ShouldNot(ContainElements(
			ContainSubstring("payments-policy-4"), ContainSubstring("primary-registry-2")))

		for i := range mwc.Items {
			c := fresh(&mwc.Items[i], mwc.Items[i].Name)
			c.Namespace = ""
			Expect(admin.Create(ctx, c)).To(Succeed())
		}
		for i := range vwc.Items {
			c := fresh(&vwc.Items[i], vwc.Items[i].Name)
			c.Namespace = ""
			Expect(admin.Create(ctx, c)).To(Succeed())
		}
		Expect(admin.Delete(ctx, ps)).To(Succeed())
		Expect(admin.Delete(ctx, bad)).To(Succeed())
		// The webhooks are back: mallory is refused again.
		Eventually(func() error {
			return asMallor.Create(ctx, generation(&set.PolicySnapshots[1], "4", nil))
		}).WithTimeout(20 * time.Second).Should(Satisfy(apierrors.IsForbidden))
	})

	It("withdraw a deleted PolicySnapshot from the store", func() {
		gen3 := fresh(&set.PolicySnapshots[1], "payments-policy-3")
		Expect(admin.Delete(ctx, gen3)).To(Succeed())
		Eventually(servedObjects).Should(Equal([]string{
			"PolicySnapshot/payments-policy-1@" + haUID,
			"PolicySnapshot/payments-policy-2@" + haUID,
			"ToolRegistry/primary-registry-1@" + haUID,
		}))
	})

	It("serve nothing of a deleted HostAuthority, and start a new domain when it is recreated", func() {
		ha := fresh(&set.HostAuthorities[0], authority)
		Expect(admin.Delete(ctx, ha)).To(Succeed())
		Eventually(servedObjects).Should(BeEmpty())
		_, ok := served.Domain(ns, authority)
		Expect(ok).To(BeFalse())
		Eventually(func() string {
			return readyMessage(status(fresh(&set.PolicySnapshots[0], "payments-policy-1"), v1alpha1.ReasonWaitingForDependency))
		}).Should(ContainSubstring("hostAuthorityRef"))

		again := fresh(&set.HostAuthorities[0], authority)
		Expect(asAlice.Create(ctx, again)).To(Succeed())
		status(again, v1alpha1.ReasonAccepted)
		newUID := string(again.UID)
		Expect(newUID).NotTo(Equal(haUID))
		// The namespace's registry is served in the new domain; the old
		// domain's policy generations, attested for the old domain, are not.
		Eventually(servedObjects).Should(Equal([]string{"ToolRegistry/primary-registry-1@" + newUID}))
		Expect(readyMessage(status(fresh(&set.PolicySnapshots[0], "payments-policy-1"), v1alpha1.ReasonRejected))).
			To(ContainSubstring("publisher attestation"))
		// The new object's key set exists; the old one's is deleted.
		Eventually(func() []string {
			var keys corev1.SecretList
			_ = admin.List(ctx, &keys, client.InNamespace(keyNS), client.MatchingLabels{controllers.SigningKeyLabel: authority})
			var uids []string
			for _, k := range keys.Items {
				uids = append(uids, k.Annotations[controllers.SigningKeyUIDAnnotation])
			}
			return uids
		}).Should(Equal([]string{newUID}))
		haUID = newUID
	})

	It("start a new domain when the key-set Secret is deleted", func() {
		// A generation attested with the current key is served ...
		before := fresh(&set.PolicySnapshots[0], "rotation-policy-1")
		before.Spec.SnapshotID = "rotation-policy"
		Expect(asAlice.Create(ctx, before)).To(Succeed())
		status(before, v1alpha1.ReasonAccepted)
		old, ok := served.Domain(ns, authority)
		Expect(ok).To(BeTrue())

		// ... until the key-set Secret is deleted: new keys (a new
		// attestation key too), a new domain under the same HostAuthority
		// UID.
		var key corev1.Secret
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: keyNS, Name: controllers.SigningKeySecretName(types.UID(haUID))}, &key)).To(Succeed())
		Expect(admin.Delete(ctx, &key)).To(Succeed())
		Eventually(func() string {
			d, _ := served.Domain(ns, authority)
			return d.KeyID
		}).WithTimeout(10 * time.Second).ShouldNot(Or(BeEmpty(), Equal(old.KeyID)))
		now, _ := served.Domain(ns, authority)
		Expect(now.UID).To(Equal(old.UID))
		Expect(readyMessage(status(before, v1alpha1.ReasonRejected))).To(ContainSubstring("publisher attestation"))
		Eventually(servedObjects).Should(Equal([]string{"ToolRegistry/primary-registry-1@" + haUID}))

		// Publishing it again (delete, create) attests it in the new domain.
		Expect(admin.Delete(ctx, before)).To(Succeed())
		again := fresh(&set.PolicySnapshots[0], "rotation-policy-1")
		again.Spec.SnapshotID = "rotation-policy"
		Eventually(func() error { return asAlice.Create(ctx, again.DeepCopy()) }).Should(Succeed())
		status(again, v1alpha1.ReasonAccepted)
		Eventually(servedObjects).Should(ContainElement("PolicySnapshot/rotation-policy-1@" + haUID))
	})

	It("record Events and metrics", func() {
		var evs eventsv1.EventList
		Eventually(func(g Gomega) {
			g.Expect(admin.List(ctx, &evs, client.InNamespace(ns))).To(Succeed())
			var reasons []string
			for _, e := range evs.Items {
				reasons = append(reasons, e.Regarding.Kind+"/"+e.Reason+"/"+e.Type)
			}
			g.Expect(reasons).To(ContainElements(
				"HostAuthority/Accepted/Normal", "PolicySnapshot/Accepted/Normal", "PolicySnapshot/Rejected/Warning",
				"PolicySnapshot/WaitingForDependency/Normal", "ToolRegistry/Rejected/Warning"))
		}).WithTimeout(10 * time.Second).Should(Succeed())
		for _, e := range evs.Items {
			Expect(e.Note).NotTo(ContainSubstring("secret-extra-key"), "an Event echoes a rejected value")
		}

		families, err := metrics.Registry.Gather()
		Expect(err).NotTo(HaveOccurred())
		values := map[string]float64{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				name := f.GetName()
				for _, l := range m.GetLabel() {
					name += "," + l.GetName() + "=" + l.GetValue()
				}
				switch {
				case m.Counter != nil:
					values[name] = m.Counter.GetValue()
				case m.Gauge != nil:
					values[name] = m.Gauge.GetValue()
				case m.Histogram != nil:
					values[name] = float64(m.Histogram.GetSampleCount())
				}
			}
		}
		Expect(values).To(HaveKeyWithValue("toolgate_snapshots_served,kind=ToolRegistry", 1.0))
		Expect(values).To(HaveKeyWithValue("toolgate_snapshots_served,kind=PolicySnapshot", 1.0)) // rotation-policy-1
		Expect(values["toolgate_reconcile_total,kind=PolicySnapshot,result=accepted"]).To(BeNumerically(">", 0))
		Expect(values["toolgate_reconcile_total,kind=PolicySnapshot,result=rejected"]).To(BeNumerically(">", 0))
		Expect(values["toolgate_reconcile_duration_seconds,kind=HostAuthority"]).To(BeNumerically(">", 0))
		Expect(values).To(HaveKeyWithValue(HavePrefix("toolgate_build_info,goversion="+runtime.Version()+","), 1.0))
	})

	It("fill a follower replica's store the same way, with no write by the follower", func() {
		entries := func(s *store.Store) []string {
			var out []string
			for _, e := range s.Served() {
				out = append(out, fmt.Sprintf("%s/%s@%s %s", e.Kind, e.Object, e.Domain, e.Digest))
			}
			return out
		}
		Eventually(func() []string { return entries(follower) }).Should(Equal(entries(served)))
		lead, _ := served.Domain(ns, authority)
		follow, ok := follower.Domain(ns, authority)
		Expect(ok).To(BeTrue())
		Expect(follow.KeyID).To(Equal(lead.KeyID), "both replicas read the one key the leader wrote")

		var lists = []client.ObjectList{&v1alpha1.HostAuthorityList{}, &v1alpha1.ToolRegistryList{}, &v1alpha1.PolicySnapshotList{}, &corev1.SecretList{}}
		for _, l := range lists {
			Expect(admin.List(ctx, l, client.InNamespace(ns))).To(Succeed())
			items, err := meta.ExtractList(l)
			Expect(err).NotTo(HaveOccurred())
			for _, it := range items {
				o := it.(client.Object)
				for _, mf := range o.GetManagedFields() {
					Expect(mf.Manager).NotTo(HavePrefix(followerAgent), "the follower wrote %s", o.GetName())
				}
			}
		}
	})

	It("measure reconcile-to-store latency of new PolicySnapshot generations", func() {
		// For each new generation: total is from sending the create
		// (admission webhooks, etcd, watch, reconcile) until the store
		// serves it; afterCreate is from the create's response until then
		// (0 when the reconcile won the race with the response).
		const n = 40
		base := fresh(&set.PolicySnapshots[0], "latency-policy-1")
		base.Spec.SnapshotID = "latency-policy"
		var total, afterCreate []time.Duration
		for g := 1; g <= n; g++ {
			ps := generation(base, fmt.Sprint(g), nil)
			key := store.Key{Namespace: ns, Authority: authority, ID: "latency-policy", Generation: fmt.Sprint(g)}
			t0 := time.Now()
			Expect(asAlice.Create(ctx, ps)).To(Succeed())
			t1 := time.Now()
			for {
				if _, ok := served.Policy(key); ok {
					break
				}
				Expect(time.Since(t1)).To(BeNumerically("<", 20*time.Second), "generation %d never served", g)
				time.Sleep(100 * time.Microsecond)
			}
			t2 := time.Now()
			total, afterCreate = append(total, t2.Sub(t0)), append(afterCreate, t2.Sub(t1))
		}
		q := func(lat []time.Duration, p float64) time.Duration {
			s := slices.Sorted(slices.Values(lat))
			return s[int(p*float64(len(s)-1)+0.5)].Round(10 * time.Microsecond)
		}
		line := fmt.Sprintf("PolicySnapshot generation create-to-served latency (n=%d): p50 %v, p99 %v; after the create response: p50 %v, p99 %v",
			n, q(total, 0.50), q(total, 0.99), q(afterCreate, 0.50), q(afterCreate, 0.99))
		AddReportEntry("latency", line)
		fmt.Fprintln(os.Stdout, line)
		raw, _ := json.Marshal(map[string]any{"n": n, "total_p50_us": q(total, 0.5).Microseconds(), "total_p99_us": q(total, 0.99).Microseconds()})
		GinkgoWriter.Println(string(raw))
	})
})
