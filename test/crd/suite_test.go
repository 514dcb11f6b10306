package crd_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

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

var _ = BeforeSuite(func() {
	testutil.EnvtestGate(Fail, Skip)
	ctx, cancel = context.WithCancel(context.Background())
	testEnv = kubefixture.Environment(repoRoot, false)
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	scheme, err := kubefixture.Scheme()
	Expect(err).NotTo(HaveOccurred())
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
	Expect(kubefixture.Stop(cancel, testEnv)).To(Succeed())
})
