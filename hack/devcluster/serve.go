package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
)

// managerNamespace holds the manager's signing-key Secrets and the
// Consumption objects, as config/default's toolgate-system does.
const managerNamespace = "toolgate-system"

// serveCluster is the detached process: it starts everything, writes
// state.json, and on SIGTERM or SIGINT (or the manager's exit) stops
// everything in reverse order.
func serveCluster(o options) (err error) {
	ctx, stop := signalContext()
	defer stop()
	if err := writeAtomic(o.path(pidFile), []byte(strconv.Itoa(os.Getpid())+"\n")); err != nil {
		return err
	}
	defer removeFiles(o)

	env := &envtest.Environment{
		BinaryAssetsDirectory: o.assets,
		CRDDirectoryPaths:     []string{filepath.Join(o.root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: []string{filepath.Join(o.root, "config", "webhook")}},
	}
	fmt.Println("starting kube-apiserver and etcd, installing the CRDs and webhook configurations")
	if _, err := env.Start(); err != nil {
		return fmt.Errorf("envtest: %w", err)
	}
	defer func() {
		fmt.Println("stopping kube-apiserver and etcd")
		err = errors.Join(err, env.Stop())
	}()

	samples := filepath.Join(o.root, "config", "samples")
	set, err := manifest.LoadPaths(samples)
	if err != nil {
		return err
	}
	groups := []string{"system:masters"}
	user := "dev-admin"
	if len(set.HostAuthorities) > 0 {
		if c, ok := manifest.AdministratorOf(&set.HostAuthorities[0]); ok {
			user = c.Name
			groups = append(groups, c.Groups...)
		}
	}
	devCfg, devKC, err := addUser(env, user, groups)
	if err != nil {
		return err
	}
	kubeconfig := o.path("kubeconfig")
	if err := os.WriteFile(kubeconfig, devKC, 0o600); err != nil {
		return err
	}
	_, managerKC, err := addUser(env, "toolgate-manager", []string{"system:masters"})
	if err != nil {
		return err
	}
	managerKubeconfig := o.path("manager.kubeconfig")
	if err := os.WriteFile(managerKubeconfig, managerKC, 0o600); err != nil {
		return err
	}
	caFile := o.path("ca.crt")
	if err := os.WriteFile(caFile, env.WebhookInstallOptions.LocalServingCAData, 0o600); err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), v1alpha1.AddToScheme(scheme)); err != nil {
		return err
	}
	dev, err := client.New(devCfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err := dev.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: managerNamespace}}); err != nil {
		return err
	}

	m, err := startManager(o, env, managerKubeconfig)
	if err != nil {
		return err
	}
	defer m.stop()
	fmt.Println("waiting for the manager")
	if err := m.waitReady(ctx, o.timeout); err != nil {
		return err
	}

	fmt.Println("applying", samples)
	if err := applySamples(ctx, dev, samples); err != nil {
		return err
	}
	if err := waitReady(ctx, dev, o.timeout); err != nil {
		return err
	}

	st := State{
		PID: os.Getpid(), Kubeconfig: kubeconfig, APIServer: devCfg.Host, ServiceURL: m.serviceURL(),
		CAFile: caFile, ManagerLog: m.log, ManagerPID: m.cmd.Process.Pid, SamplesFrom: samples,
	}
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(o.path(stateFile), raw); err != nil {
		return err
	}
	fmt.Println("up")
	select {
	case <-ctx.Done():
		fmt.Println("stopping")
		return nil
	case <-m.done:
		return errors.New("the manager exited: see " + m.log)
	}
}

// addUser returns a rest.Config and a kubeconfig of a user of env in groups.
func addUser(env *envtest.Environment, name string, groups []string) (*rest.Config, []byte, error) {
	u, err := env.AddUser(envtest.User{Name: name, Groups: groups}, &rest.Config{})
	if err != nil {
		return nil, nil, err
	}
	kc, err := u.KubeConfig()
	return u.Config(), kc, err
}

// manager is the `toolgate manager` process.
type manager struct {
	cmd                    *exec.Cmd
	done                   chan struct{}
	log                    string
	probePort, servicePort int
	caPool                 *x509.CertPool
}

func (m *manager) serviceURL() string { return fmt.Sprintf("https://127.0.0.1:%d", m.servicePort) }

// startManager runs the manager on the webhook port and certificate envtest
// wrote into the webhook configurations, its service on a free loopback
// port with the same certificate, Consumptions on the apiserver.
func startManager(o options, env *envtest.Environment, kubeconfig string) (*manager, error) {
	wo := &env.WebhookInstallOptions
	m := &manager{log: o.path("manager.log"), done: make(chan struct{})}
	var err error
	if m.probePort, err = freePort(); err != nil {
		return nil, err
	}
	if m.servicePort, err = freePort(); err != nil {
		return nil, err
	}
	m.caPool = x509.NewCertPool()
	m.caPool.AppendCertsFromPEM(wo.LocalServingCAData)
	out, err := os.OpenFile(m.log, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	m.cmd = exec.Command(o.toolgate, "manager",
		"--leader-elect=false", "--metrics-bind-address=0",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", m.probePort),
		"--webhook-cert-dir="+wo.LocalServingCertDir,
		fmt.Sprintf("--webhook-port=%d", wo.LocalServingPort),
		fmt.Sprintf("--service-bind-address=127.0.0.1:%d", m.servicePort),
		"--consumption-store=apiserver", "--consumption-namespace="+managerNamespace,
	)
	m.cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "POD_NAMESPACE="+managerNamespace)
	m.cmd.Stdout, m.cmd.Stderr = out, out
	if err := m.cmd.Start(); err != nil {
		_ = out.Close()
		return nil, err
	}
	go func() {
		_ = m.cmd.Wait()
		_ = out.Close()
		close(m.done)
	}()
	return m, nil
}

// waitReady waits until the manager's probe is ready (webhook server
// started) and its service answers /healthz.
func (m *manager) waitReady(ctx context.Context, timeout time.Duration) error {
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: m.caPool, MinVersion: tls.VersionTLS12}}}
	ok := func(c *http.Client, url string) bool {
		resp, err := c.Get(url)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	return poll(ctx, timeout, func() (bool, error) {
		select {
		case <-m.done:
			return false, errors.New("the manager exited while starting: see " + m.log)
		default:
		}
		return ok(http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/readyz", m.probePort)) && ok(hc, m.serviceURL()+"/healthz"), nil
	})
}

// stop ends the manager: SIGTERM, SIGKILL after 10 s.
func (m *manager) stop() {
	select {
	case <-m.done:
		return
	default:
	}
	fmt.Println("stopping the manager")
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

// applySamples creates the objects of dir's kustomization.yaml, in its
// order, as the policy administrator: what `kubectl apply -k` does on an
// empty cluster, without needing kubectl.
func applySamples(ctx context.Context, c client.Client, dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return err
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return fmt.Errorf("kustomization.yaml: %w", err)
	}
	for _, r := range k.Resources {
		raw, err := os.ReadFile(filepath.Join(dir, r))
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			var u unstructured.Unstructured
			if err := dec.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return fmt.Errorf("%s: %w", r, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			if err := c.Create(ctx, &u); err != nil {
				return fmt.Errorf("%s: create %s %s: %w", r, u.GetKind(), u.GetName(), err)
			}
		}
	}
	return nil
}

// waitReady waits until every HostAuthority, ToolRegistry and
// PolicySnapshot is Ready for its generation.
func waitReady(ctx context.Context, c client.Client, timeout time.Duration) error {
	var last string
	err := poll(ctx, timeout, func() (bool, error) {
		var has v1alpha1.HostAuthorityList
		var trs v1alpha1.ToolRegistryList
		var pss v1alpha1.PolicySnapshotList
		for _, l := range []client.ObjectList{&has, &trs, &pss} {
			if err := c.List(ctx, l); err != nil {
				last = err.Error()
				return false, nil
			}
		}
		type obj struct {
			kind, name string
			gen        int64
			st         v1alpha1.PublicationStatus
		}
		var all []obj
		for _, o := range has.Items {
			all = append(all, obj{"HostAuthority", o.Name, o.Generation, o.Status})
		}
		for _, o := range trs.Items {
			all = append(all, obj{"ToolRegistry", o.Name, o.Generation, o.Status})
		}
		for _, o := range pss.Items {
			all = append(all, obj{"PolicySnapshot", o.Name, o.Generation, o.Status})
		}
		for _, o := range all {
			cond := meta.FindStatusCondition(o.st.Conditions, v1alpha1.ConditionReady)
			if cond == nil || cond.Status != metav1.ConditionTrue || cond.ObservedGeneration != o.gen {
				last = o.kind + " " + o.name + " is not Ready yet"
				return false, nil
			}
		}
		return len(all) > 0, nil
	})
	if err != nil && last != "" {
		return fmt.Errorf("%w: %s", err, last)
	}
	return err
}

// poll calls f every 200 ms until it reports done or an error, ctx is done,
// or timeout has passed.
func poll(ctx context.Context, timeout time.Duration, f func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		done, err := f()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready within %s", timeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
