package apistore_test

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/internal/consume/consumetest"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

var (
	testEnv *envtest.Environment
	cfg     *rest.Config
	scheme  *runtime.Scheme
	k8s     client.Client
	ctx     context.Context
	cancel  context.CancelFunc
)

func TestAPIStore(t *testing.T) {
	// Without the binaries the whole suite skips with the reason (or, when
	// required, BeforeSuite fails it).
	if assets, missing, required := consumetest.EnvtestAssets(); assets == "" && !required {
		t.Skip("skipped: needs the envtest binaries: " + missing)
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "Consumption store on a real kube-apiserver")
}

var _ = BeforeSuite(func() {
	assets, missing, required := consumetest.EnvtestAssets()
	if assets == "" {
		if required {
			Fail(consumetest.RequireEnvtest + " is set but the envtest binaries are absent: " + missing)
		}
		Skip("skipped: needs the envtest binaries: " + missing)
	}
	ctx, cancel = context.WithCancel(context.Background())
	testEnv = kubefixture.Environment(filepath.Join("..", "..", ".."), false)
	testEnv.BinaryAssetsDirectory = assets
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	scheme, err = kubefixture.Scheme()
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	Expect(kubefixture.Stop(cancel, testEnv)).To(Succeed())
})

// newNamespace creates a fresh namespace for one spec.
func newNamespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "consume-"}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// newClient returns another client (another replica's connection).
func newClient() client.Client {
	GinkgoHelper()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}
