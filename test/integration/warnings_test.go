package integration_test

import (
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

// warnings records the admission warnings the apiserver relays to a
// client.
type warnings struct {
	mu   sync.Mutex
	text []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

// take returns the warnings recorded since the last call.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.text
	w.text = nil
	return out
}

var _ = Describe("the authoring check at admission", Ordered, func() {
	// A namespace and domain of their own, and the PolicySnapshots created
	// as dry runs, so that nothing here is served beside the other specs'
	// objects (they compare the store's whole content).
	const space, authority = "authoring", "authoring-host"
	var (
		heard *warnings
		as    client.Client // a policy administrator whose client records warnings
		ha    *v1alpha1.HostAuthority
	)

	BeforeAll(func() {
		heard = &warnings{}
		u, err := testEnv.AddUser(envtest.User{Name: "author", Groups: []string{"system:masters", adminGroup}}, &rest.Config{})
		Expect(err).NotTo(HaveOccurred())
		cfg := u.Config()
		cfg.WarningHandler = heard
		as, err = client.New(cfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: space}})).To(Succeed())
		ha = kubefixture.Fresh(&samples().HostAuthorities[0], space, authority)
		ha.Spec.AuthorityID = authority
		Expect(as.Create(ctx, ha)).To(Succeed())
		heard.take()
	})

	AfterAll(func() {
		Expect(admin.Delete(ctx, ha)).To(Succeed())
	})

	It("admit a PolicySnapshot naming tools no ToolRegistry of the namespace defines, with one warning per reference and never the name", func() {
		set := samples()
		ps := kubefixture.Fresh(&set.PolicySnapshots[0], space, set.PolicySnapshots[0].Name)
		ps.Spec.HostAuthorityRef.Name = authority
		last := &ps.Spec.Policies[0].Rules[7] // deny-email-unauthenticated
		last.Condition.Raw = []byte(strings.Replace(string(last.Condition.Raw), `"email.send"`, `"email.sendd"`, 1))
		// Applied before its registry, as a GitOps sync may: admitted.
		Expect(as.Create(ctx, ps, client.DryRunAll)).To(Succeed())
		got := heard.take()
		Expect(got).To(HaveLen(5), "one warning per rule naming a tool: %q", got)
		for _, w := range got {
			Expect(w).To(MatchRegexp(`^spec\.policies\[0\]\.rules\[\d\]\.condition\.all\[0\]\.predicate\.identifier: notFound: `))
			Expect(w).NotTo(ContainSubstring("email.send"))
		}
	})
})
