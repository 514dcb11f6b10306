package crd_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/api/v1alpha1"
)

// requireEnv makes missing binaries a failure instead of a skip (make
// test-envtest sets it).
const requireEnv = "TOOLGATE_REQUIRE_ENVTEST"

var (
	testEnv    *envtest.Environment
	k8s        client.Client
	ctx        context.Context
	cancel     context.CancelFunc
	kubeconfig string // a kubeconfig for kubectl, admin on the test apiserver
	repoRoot   = filepath.Join("..", "..")
)

func TestCRDs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "toolgate CRDs on a real kube-apiserver")
}

// haveBinaries reports whether dir holds the envtest control plane.
func haveBinaries(dir string) bool {
	if dir == "" {
		return false
	}
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

var _ = BeforeSuite(func() {
	if !haveBinaries(os.Getenv("KUBEBUILDER_ASSETS")) {
		if os.Getenv(requireEnv) != "" {
			Fail(requireEnv + " is set but KUBEBUILDER_ASSETS does not name a directory with kube-apiserver and etcd (run make test-envtest)")
		}
		Skip("envtest binaries absent: set KUBEBUILDER_ASSETS to a directory with kube-apiserver and etcd, or run make test-envtest (builds them once per machine)")
	}
	ctx, cancel = context.WithCancel(context.Background())
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(repoRoot, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	if _, err := exec.LookPath("kubectl"); err == nil {
		admin, err := testEnv.AddUser(envtest.User{Name: "toolgate-admin", Groups: []string{"system:masters"}}, nil)
		Expect(err).NotTo(HaveOccurred())
		kc, err := admin.KubeConfig()
		Expect(err).NotTo(HaveOccurred())
		kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(os.WriteFile(kubeconfig, kc, 0o600)).To(Succeed())
	}
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
