// Package auth_test proves the in-cluster authenticator on a real
// kube-apiserver: projected ServiceAccount tokens for the audience toolgate
// authenticate as the ServiceAccount; tokens for another audience, deleted
// ServiceAccounts and garbage do not.
package auth_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

var (
	testEnv *envtest.Environment
	cs      *kubernetes.Clientset
	ctx     context.Context
	cancel  context.CancelFunc
)

func TestAuth(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "toolgate TokenReview authentication on a real kube-apiserver")
}

var _ = BeforeSuite(func() {
	testutil.EnvtestGate(Fail, Skip)
	ctx, cancel = context.WithCancel(context.Background())
	testEnv = &envtest.Environment{}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	cs, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "payments"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	Expect(kubefixture.Stop(cancel, testEnv)).To(Succeed())
})

func tokenFor(sa string, audiences ...string) string {
	_, err := cs.CoreV1().ServiceAccounts("payments").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	exp := int64(600)
	tr, err := cs.CoreV1().ServiceAccounts("payments").CreateToken(ctx, sa, &authnv1.TokenRequest{
		Spec: authnv1.TokenRequestSpec{Audiences: audiences, ExpirationSeconds: &exp},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return tr.Status.Token
}

func request(token string) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, "http://toolgate/v1/authorize", nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

var _ = Describe("TokenReview", func() {
	It("authenticates a projected token for the toolgate audience as its ServiceAccount", func() {
		auth := server.NewTokenReview(cs.AuthenticationV1().TokenReviews(), time.Minute)
		caller, err := auth.Authenticate(request(tokenFor("payments-agent-runtime", server.Audience)))
		Expect(err).NotTo(HaveOccurred())
		Expect(caller.Name).To(Equal("system:serviceaccount:payments:payments-agent-runtime"))
		Expect(caller.Groups).To(ContainElement("system:serviceaccounts:payments"))
	})

	It("rejects a token for another audience, garbage and no token", func() {
		auth := server.NewTokenReview(cs.AuthenticationV1().TokenReviews(), time.Minute)
		for _, token := range []string{tokenFor("payments-executor", "some-other-service"), "not-a-token", ""} {
			_, err := auth.Authenticate(request(token))
			Expect(err).To(MatchError(server.ErrUnauthenticated))
		}
	})

	// The apiserver caches its own answer for about ten seconds, hence the
	// generous wait.
	It("stops authenticating a deleted ServiceAccount once the cached answers expire", func() {
		auth := server.NewTokenReview(cs.AuthenticationV1().TokenReviews(), 100*time.Millisecond)
		token := tokenFor("short-lived", server.Audience)
		_, err := auth.Authenticate(request(token))
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.CoreV1().ServiceAccounts("payments").Delete(ctx, "short-lived", metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() error {
			_, err := auth.Authenticate(request(token))
			return err
		}).WithTimeout(40 * time.Second).WithPolling(500 * time.Millisecond).Should(MatchError(server.ErrUnauthenticated))
	})
})
