package integration_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/toolgate/toolgate/controllers"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
	tgwebhook "github.com/toolgate/toolgate/internal/webhook"
)

// The users of the suite. All are cluster administrators (system:masters),
// so RBAC never decides; only toolgate's webhooks do. alice is in the
// sample HostAuthority's policy administrators group; mallory is not.
const (
	adminGroup = "payments-policy-admins"
	alice      = "alice"
	mallory    = "mallory"
)

var (
	testEnv  *envtest.Environment
	scheme   *runtime.Scheme
	admin    client.Client // the envtest administrator: no policy role
	asAlice  client.Client
	asMallor client.Client
	served   *store.Store // the manager's store
	// follower is the store of a second manager that never becomes leader:
	// it must serve what the leader serves and write nothing.
	follower *store.Store
	ctx      context.Context
	cancel   context.CancelFunc
	repoRoot = filepath.Join("..", "..")
)

func TestIntegration(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "toolgate controllers and webhooks on a real kube-apiserver")
}

var _ = BeforeSuite(func() {
	testutil.EnvtestGate(Fail, Skip)
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	var err error
	scheme, err = kubefixture.Scheme()
	Expect(err).NotTo(HaveOccurred())

	testEnv = kubefixture.Environment(repoRoot, true)
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	// No client-side rate limit: the latency measurement is of toolgate,
	// not of client-go's default 20 requests per second.
	cfg.QPS, cfg.Burst = 1000, 2000

	admin, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	asAlice = userClient(alice, adminGroup)
	asMallor = userClient(mallory)

	wo := &testEnv.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Cache:   controllers.CacheOptions(keyNS),
		Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir,
		}),
		LeaderElection: false, // a single replica leads
	})
	Expect(err).NotTo(HaveOccurred())
	served = store.New()
	Expect(controllers.Setup(ctx, mgr, served, controllers.Options{KeyNamespace: keyNS})).To(Succeed())
	Expect(tgwebhook.Setup(mgr, served)).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
	startFollower(cfg)

	// Wait until the webhook server answers TLS.
	addr := net.JoinHostPort(wo.LocalServingHost, fmt.Sprint(wo.LocalServingPort))
	Eventually(func() error {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a local test server
		if err != nil {
			return err
		}
		return conn.Close()
	}).WithTimeout(30 * time.Second).Should(Succeed())

	Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: keyNS}})).To(Succeed())
})

// followerAgent is the field manager of the follower's writes, so that a
// write by it would show in managedFields.
const followerAgent = "toolgate-follower"

// startFollower starts a second manager with leader election on a Lease
// that another holder keeps for an hour: a replica that never leads.
func startFollower(cfg *rest.Config) {
	GinkgoHelper()
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "toolgate-follower-test"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr("someone-else"),
			LeaseDurationSeconds: ptr(int32(3600)),
			AcquireTime:          &metav1.MicroTime{Time: time.Now()},
			RenewTime:            &metav1.MicroTime{Time: time.Now()},
		},
	}
	Expect(admin.Create(ctx, lease)).To(Succeed())
	fc := rest.CopyConfig(cfg)
	fc.UserAgent = followerAgent
	mgr, err := ctrl.NewManager(fc, ctrl.Options{
		Scheme:                  scheme,
		Cache:                   controllers.CacheOptions(keyNS),
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		LeaderElection:          true,
		LeaderElectionID:        lease.Name,
		LeaderElectionNamespace: lease.Namespace,
		Controller:              ctrlconfig.Controller{SkipNameValidation: ptr(true)}, // the leader's controllers have the same names
	})
	Expect(err).NotTo(HaveOccurred())
	follower = store.New()
	Expect(controllers.Setup(ctx, mgr, follower, controllers.Options{KeyNamespace: keyNS})).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
}

func ptr[T any](v T) *T { return &v }

// userClient returns a client authenticated as name, a cluster
// administrator, with the extra groups.
func userClient(name string, groups ...string) client.Client {
	GinkgoHelper()
	u, err := testEnv.AddUser(envtest.User{Name: name, Groups: append([]string{"system:masters"}, groups...)}, &rest.Config{})
	Expect(err).NotTo(HaveOccurred())
	uc := u.Config()
	uc.QPS, uc.Burst = 1000, 2000
	c, err := client.New(uc, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}

var _ = AfterSuite(func() {
	Expect(kubefixture.Stop(cancel, testEnv)).To(Succeed())
})
