package e2e_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

const (
	ns         = "payments"        // the samples' namespace, where Consumptions live
	systemNS   = "toolgate-system" // the managers' namespace: the leader-election Lease
	adminGroup = "payments-policy-admins"
	leaseName  = "toolgate-manager.stk.toolgate.dev" // the managers' --leader-election-id
	// acquiredLease is what controller-runtime logs when a process becomes
	// leader.
	acquiredLease = "Successfully acquired lease"
)

var (
	testEnv   *envtest.Environment
	scheme    *runtime.Scheme
	admin     client.Client
	clientset *kubernetes.Clientset
	ctx       context.Context
	cancel    context.CancelFunc
	repoRoot  = filepath.Join("..", "..")
	workDir   string
	binary    string // the built toolgate binary
	adminKC   string // an administrator's kubeconfig, used by the managers
	// httpsClient trusts only the envtest CA that signed the serving
	// certificate in LocalServingCertDir (no InsecureSkipVerify).
	httpsClient *http.Client
	// procs record Consumptions on the apiserver (Consumption objects);
	// etcdProcs in etcdServer, a separate etcd the specs may kill without
	// stopping the apiserver.
	procs      [2]*managerProc
	etcdProcs  [2]*managerProc
	etcdServer *etcdProc
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "toolgate binary end to end on a real kube-apiserver")
}

// managerProc is one `toolgate manager` process. Its output accumulates
// across restarts.
type managerProc struct {
	name        string
	store       []string // the --consumption-store flags
	webhookPort int
	probePort   int
	servicePort int
	out         *testutil.SyncBuffer
	since       int // length of out when the current process started
	process
}

// allProcs returns every manager process, both backends.
func allProcs() []*managerProc { return []*managerProc{procs[0], procs[1], etcdProcs[0], etcdProcs[1]} }

func (p *managerProc) url() string { return fmt.Sprintf("https://127.0.0.1:%d", p.servicePort) }

func (p *managerProc) start() {
	GinkgoHelper()
	wo := &testEnv.WebhookInstallOptions
	cmd := exec.Command(binary, "manager",
		"--leader-elect", "--leader-election-namespace="+systemNS,
		"--metrics-bind-address=0",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", p.probePort),
		"--webhook-cert-dir="+wo.LocalServingCertDir,
		fmt.Sprintf("--webhook-port=%d", p.webhookPort),
		fmt.Sprintf("--service-bind-address=127.0.0.1:%d", p.servicePort),
	)
	cmd.Args = append(cmd.Args, p.store...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+adminKC, "POD_NAMESPACE="+systemNS)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	fmt.Fprintf(p.out, "=== e2e: starting %s\n", p.name)
	p.since = len(p.out.String())
	p.launch(cmd)
}

// stop ends the process (see process.stop); a nil p has none.
func (p *managerProc) stop(kill bool) {
	if p != nil {
		p.process.stop(kill)
	}
}

// process is one child process of the suite; done is closed when it has
// exited.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// launch starts cmd as the process.
func (x *process) launch(cmd *exec.Cmd) {
	GinkgoHelper()
	Expect(cmd.Start()).To(Succeed())
	x.cmd, x.done = cmd, make(chan struct{})
	go func(done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(x.done)
}

func (x *process) running() bool {
	select {
	case <-x.done:
		return false
	default:
		return true
	}
}

// stop ends the process: SIGTERM, SIGKILL after 10s; kill skips SIGTERM.
// A process never launched, or already exited, is left alone.
func (x *process) stop(kill bool) {
	if x.cmd == nil || !x.running() {
		return
	}
	if !kill {
		_ = x.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-x.done:
			return
		case <-time.After(10 * time.Second):
		}
	}
	_ = x.cmd.Process.Kill()
	<-x.done
}

// life returns what the current process (since its last start) wrote.
func (p *managerProc) life() string { return p.out.String()[p.since:] }

// restart kills the process and starts it again, waiting until its service
// is ready.
func (p *managerProc) restart() {
	GinkgoHelper()
	old := p.cmd.Process.Pid
	p.stop(true)
	Expect(p.running()).To(BeFalse())
	p.start()
	Expect(p.cmd.Process.Pid).NotTo(Equal(old))
	p.waitUp(true)
}

// etcdProc is a one-member etcd from the envtest binaries, with its own
// data directory, so that it can be killed and restarted on the same
// address and data.
type etcdProc struct {
	binary, dataDir string
	clientPort      int
	peerPort        int
	out             *testutil.SyncBuffer
	tls             *etcdTLS // nil: plain HTTP; else mutual TLS (standalone_test.go)
	process
}

func (e *etcdProc) url() string {
	if e.tls != nil {
		return fmt.Sprintf("https://127.0.0.1:%d", e.clientPort)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", e.clientPort)
}

// start starts etcd and waits until it reports healthy.
func (e *etcdProc) start() {
	GinkgoHelper()
	peer := fmt.Sprintf("http://127.0.0.1:%d", e.peerPort)
	cmd := exec.Command(e.binary,
		"--name=e2e", "--data-dir="+e.dataDir,
		"--listen-client-urls="+e.url(), "--advertise-client-urls="+e.url(),
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=e2e="+peer, "--unsafe-no-fsync",
	)
	health := http.DefaultClient
	if e.tls != nil {
		cmd.Args = append(cmd.Args, "--cert-file="+e.tls.serverCert, "--key-file="+e.tls.serverKey,
			"--trusted-ca-file="+e.tls.ca, "--client-cert-auth")
		health = &http.Client{Transport: &http.Transport{TLSClientConfig: e.tls.clientTLS()}}
	}
	cmd.Stdout, cmd.Stderr = e.out, e.out
	fmt.Fprintf(e.out, "=== e2e: starting etcd\n")
	e.launch(cmd)
	Eventually(func(g Gomega) {
		g.Expect(e.running()).To(BeTrue(), "etcd exited:\n%s", e.out.String())
		resp, err := health.Get(e.url() + "/health")
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(Succeed(), "etcd did not come up")
}

// kill ends etcd with SIGKILL: a crashed store, not one shutting down. Not
// SIGSTOP: a stopped etcd still holds the requests in its sockets and may
// commit a timed-out consume once continued, so "nothing was consumed"
// could not be shown.
func (e *etcdProc) kill() {
	if e != nil {
		e.stop(true)
	}
}

// get returns the status of a GET over HTTPS, or an error.
func get(url string) (int, error) {
	resp, err := httpsClient.Get(url)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// waitUp waits until the manager's probe says ready (webhook server
// started) and the service answers /healthz; with domains, also until the
// service's /readyz (domains loaded, Consumption store answering) is 200.
func (p *managerProc) waitUp(domains bool) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(p.running()).To(BeTrue(), "%s exited:\n%s", p.name, p.out.String())
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", p.probePort))
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "probe /readyz")
		path := "/healthz"
		if domains {
			path = "/readyz"
		}
		code, err := get(p.url() + path)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(http.StatusOK), "service "+path)
	}).WithTimeout(60*time.Second).WithPolling(200*time.Millisecond).Should(Succeed(), "%s did not come up", p.name)
}

func freePort() int {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// userConfig returns a rest.Config and a kubeconfig file of a cluster
// administrator name with the extra groups.
func userConfig(name string, groups ...string) (*rest.Config, string) {
	GinkgoHelper()
	u, err := testEnv.AddUser(envtest.User{Name: name, Groups: append([]string{"system:masters"}, groups...)}, &rest.Config{})
	Expect(err).NotTo(HaveOccurred())
	kc, err := u.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(workDir, name+".kubeconfig")
	Expect(os.WriteFile(path, kc, 0o600)).To(Succeed())
	return u.Config(), path
}

var _ = BeforeSuite(func() {
	assets := testutil.EnvtestGate(Fail, Skip)
	ctx, cancel = context.WithCancel(context.Background())
	var err error
	scheme, err = kubefixture.Scheme()
	Expect(err).NotTo(HaveOccurred())
	workDir = GinkgoT().TempDir()

	By("building the toolgate binary")
	binary = filepath.Join(workDir, "toolgate")
	build := exec.Command("go", "build", "-o", binary, "./cmd/toolgate")
	build.Dir = repoRoot
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "go build: %s", out)

	By("starting the apiserver with the CRDs and webhook configurations")
	testEnv = kubefixture.Environment(repoRoot, true)
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	admin, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	_, adminKC = userConfig("toolgate-manager")
	Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNS}})).To(Succeed())

	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(testEnv.WebhookInstallOptions.LocalServingCAData)).To(BeTrue())
	httpsClient = &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: 64},
	}

	By("starting an etcd for the etcd Consumption store")
	etcdServer = &etcdProc{binary: filepath.Join(assets, "etcd"), dataDir: filepath.Join(workDir, "etcd"),
		clientPort: freePort(), peerPort: freePort(), out: &testutil.SyncBuffer{}}
	etcdServer.start()

	By("starting two manager processes on each Consumption store")
	// Only manager-1 binds the port the apiserver's webhook configurations
	// name; the others serve their webhooks on ports nobody calls. All four
	// compete for one leader-election Lease.
	api := []string{"--consumption-store=apiserver", "--consumption-namespace=" + ns}
	etcd := []string{"--consumption-store=etcd", "--etcd-endpoints=" + etcdServer.url()}
	procs[0] = &managerProc{name: "manager-1", store: api, webhookPort: testEnv.WebhookInstallOptions.LocalServingPort}
	procs[1] = &managerProc{name: "manager-2", store: api, webhookPort: freePort()}
	etcdProcs[0] = &managerProc{name: "manager-etcd-1", store: etcd, webhookPort: freePort()}
	etcdProcs[1] = &managerProc{name: "manager-etcd-2", store: etcd, webhookPort: freePort()}
	// manager-1 leads first: the failover spec then kills the replica that
	// also serves the webhooks, the hardest case, in every run.
	for i, p := range allProcs() {
		p.probePort, p.servicePort, p.out = freePort(), freePort(), &testutil.SyncBuffer{}
		p.start()
		if i == 0 {
			Eventually(p.life).WithTimeout(30*time.Second).Should(ContainSubstring(acquiredLease), "%s did not lead", p.name)
		}
	}
	for _, p := range allProcs() {
		p.waitUp(false)
	}
})

var _ = AfterSuite(func() {
	for _, p := range allProcs() {
		p.stop(false)
	}
	etcdServer.kill()
	Expect(kubefixture.Stop(cancel, testEnv)).To(Succeed())
})

// On a failure, show what the processes wrote.
var _ = AfterEach(func() {
	if CurrentSpecReport().Failed() {
		for _, p := range allProcs() {
			if p != nil {
				GinkgoWriter.Printf("----- %s output -----\n%s\n", p.name, p.out.String())
			}
		}
		if etcdServer != nil {
			GinkgoWriter.Printf("----- etcd output -----\n%s\n", etcdServer.out.String())
		}
	}
})
