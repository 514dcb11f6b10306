package e2e_test

import (
	"encoding/base64"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	tgclient "github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/controllers"
)

// Key management (docs/decisions.md, "Key management") across the two
// apiserver-store manager processes: registered in the ordered container of
// e2e_test.go after the samples are served.

// envelopeKey is the key identity an artifact's header names.
func envelopeKey(artifact string) string {
	GinkgoHelper()
	h, _, _ := strings.Cut(artifact, ".")
	raw, err := base64.RawURLEncoding.DecodeString(h)
	Expect(err).NotTo(HaveOccurred())
	_, id, _ := strings.Cut(string(raw), " ")
	return id
}

// toolgateCLI runs the built binary with the manager's kubeconfig.
func toolgateCLI(args ...string) string {
	GinkgoHelper()
	out, err := exec.CommandContext(ctx, binary, append(args, "--kubeconfig", adminKC)...).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "toolgate %v: %s", args, out)
	return string(out)
}

// rotateAcrossReplicas: `toolgate keys rotate` annotates the HostAuthority;
// the leader rotates once, both replicas serve the new key; an artifact
// issued before the rotation validates on both and consumes on the
// replica that did not issue it. A user who may read every Secret of the
// tenant namespace finds no key there and may read none in toolgate's.
// `toolgate keys revoke` of the old key then refuses its other artifact on
// both replicas.
func rotateAcrossReplicas(agent, executor func() string) {
	req, exp := renamed("rot-" + nonce())
	res, err := as(0, agent()).Authorize(ctx, req)
	Expect(err).NotTo(HaveOccurred())
	Expect(res.Authorization).NotTo(BeNil())
	before := res.Authorization.Artifact
	old := envelopeKey(before)
	req2, exp2 := renamed("rot2-" + nonce())
	res2, err := as(0, agent()).Authorize(ctx, req2)
	Expect(err).NotTo(HaveOccurred())
	Expect(res2.Authorization).NotTo(BeNil())
	Expect(envelopeKey(res2.Authorization.Artifact)).To(Equal(old))

	Expect(toolgateCLI("keys", "rotate", ns+"/payments-host")).To(ContainSubstring("requested a rotation"))
	for i := range procs {
		Eventually(func() string {
			r, _ := renamed("after-" + nonce())
			res, err := as(i, agent()).Authorize(ctx, r)
			if err != nil || res.Authorization == nil {
				return old
			}
			return envelopeKey(res.Authorization.Artifact)
		}).WithTimeout(30*time.Second).WithPolling(250*time.Millisecond).ShouldNot(Equal(old), "%s still signs with the old key", procs[i].name)
	}
	list := toolgateCLI("keys", "list", ns+"/payments-host")
	Expect(list).To(MatchRegexp(old + `\s+verify-only\s+20`))
	Expect(strings.Count(list, "active")).To(Equal(1))

	v := tgclient.ValidateRequest{Artifact: before, Expectations: exp}
	for i := range procs {
		_, err := as(i, executor()).Validate(ctx, v)
		Expect(err).NotTo(HaveOccurred(), "%s: an artifact from before the rotation", procs[i].name)
	}
	done, err := as(1, executor()).Consume(ctx, v)
	Expect(err).NotTo(HaveOccurred())
	Expect(done.Consumed).To(BeTrue())

	By("toolgate keys revoke: the old key's other artifact is refused by both replicas, at validate and consume")
	Expect(toolgateCLI("keys", "revoke", ns+"/payments-host", old, "--reason", "e2e")).To(ContainSubstring("created Revocation"))
	v2 := tgclient.ValidateRequest{Artifact: res2.Authorization.Artifact, Expectations: exp2}
	for i := range procs {
		Eventually(func(g Gomega) {
			_, err := as(i, executor()).Validate(ctx, v2)
			g.Expect(hasCode(err, 409, "revoked")).To(BeTrue(), "%v", err)
		}).WithTimeout(20*time.Second).WithPolling(20*time.Millisecond).Should(Succeed(), procs[i].name)
		_, err := as(i, executor()).Consume(ctx, v2)
		expectCode(err, 409, "revoked")
	}

	By("a tenant-namespace Secret reader reads no key")
	u, err := testEnv.AddUser(envtest.User{Name: "payments-secret-reader"}, &rest.Config{})
	Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "secret-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}}}}
	Expect(admin.Create(ctx, role)).To(Succeed())
	Expect(admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "secret-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "payments-secret-reader"}}})).To(Succeed())
	reader, err := client.New(u.Config(), client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() error { // RBAC propagates
		var l corev1.SecretList
		return reader.List(ctx, &l, client.InNamespace(ns))
	}).Should(Succeed())
	var tenant corev1.SecretList
	Expect(reader.List(ctx, &tenant, client.InNamespace(ns))).To(Succeed())
	for _, s := range tenant.Items {
		Expect(s.Labels).NotTo(HaveKey(controllers.SigningKeyLabel), "a signing key in the tenant namespace")
		Expect(s.Data).NotTo(HaveKey(controllers.SigningKeyField))
	}
	var keys corev1.SecretList
	Expect(admin.List(ctx, &keys, client.InNamespace(systemNS), client.HasLabels{controllers.SigningKeyLabel})).To(Succeed())
	Expect(keys.Items).NotTo(BeEmpty())
	err = reader.Get(ctx, client.ObjectKeyFromObject(&keys.Items[0]), &corev1.Secret{})
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the tenant's Secret reader read a key set: %v", err)
}
