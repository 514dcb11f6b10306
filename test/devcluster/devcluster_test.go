package devcluster_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authnv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

func TestDevCluster(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "make dev-cluster: a local control plane, the manager and the samples")
}

// state is the part of hack/devcluster's state.json the specs read.
type state struct {
	PID        int    `json:"pid"`
	Kubeconfig string `json:"kubeconfig"`
	ServiceURL string `json:"serviceURL"`
	CAFile     string `json:"caFile"`
	ManagerPID int    `json:"managerPID"`
}

var (
	repoRoot = filepath.Join("..", "..")
	ctx      = context.Background()
	dir      string // the cluster's -dir
	tool     string // the built hack/devcluster
	assets   string
	toolgate string
	upOut    string // what up printed
	st       state
	k8s      client.Client
)

// devcluster runs the built hack/devcluster verb with the suite's flags and
// returns its output and exit error.
func devcluster(verb string) (string, error) {
	cmd := exec.Command(tool, verb, "-dir", dir, "-assets", assets, "-toolgate", toolgate, "-root", repoRoot, "-timeout", "2m")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// alive reports whether the process pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(raw))
	return len(f) < 3 || f[2] != "Z"
}

var _ = BeforeSuite(func() {
	logf.SetLogger(logr.Discard())
	assets = testutil.EnvtestGate(Fail, Skip)
	work := GinkgoT().TempDir()
	dir = filepath.Join(work, "dev-cluster")
	By("building toolgate and hack/devcluster")
	tool, toolgate = filepath.Join(work, "devcluster"), filepath.Join(work, "toolgate")
	// One go build links both at once (-o a directory names them after
	// their packages).
	build := exec.Command("go", "build", "-o", work+string(filepath.Separator), "./hack/devcluster", "./cmd/toolgate")
	build.Dir = repoRoot
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "go build: %s", out)

	By("devcluster up")
	upOut, err = devcluster("up")
	Expect(err).NotTo(HaveOccurred(), "up:\n%s", upOut)
	DeferCleanup(func() {
		if out, err := devcluster("down"); err != nil {
			GinkgoWriter.Printf("down in cleanup: %v\n%s\n", err, out)
		}
	})
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(raw, &st)).To(Succeed())

	cfg, err := clientcmd.BuildConfigFromFlags("", st.Kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	scheme, err := kubefixture.Scheme()
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

// On a failure, show what the cluster's processes wrote.
var _ = AfterEach(func() {
	if CurrentSpecReport().Failed() {
		for _, f := range []string{"devcluster.log", "manager.log"} {
			raw, _ := os.ReadFile(filepath.Join(dir, f))
			GinkgoWriter.Printf("----- %s -----\n%s\n", f, raw)
		}
	}
})

var _ = Describe("make dev-cluster", Ordered, func() {
	It("prints the kubeconfig and the next commands", func() {
		Expect(upOut).To(ContainSubstring("kubeconfig: " + st.Kubeconfig))
		Expect(upOut).To(ContainSubstring("export KUBECONFIG="))
		Expect(upOut).To(ContainSubstring("make dev-cluster-down"))
		Expect(upOut).To(ContainSubstring(st.ServiceURL))
	})

	It("holds the samples, each Ready, in the cluster the kubeconfig names", func() {
		set, err := kubefixture.Samples(repoRoot)
		Expect(err).NotTo(HaveOccurred())
		for _, o := range set.PolicySnapshots {
			var got v1alpha1.PolicySnapshot
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, &got)).To(Succeed(), o.Name)
			Expect(got.Spec).To(Equal(o.Spec), o.Name)
			Expect(apiMetaReady(got.Status.Conditions, got.Generation)).To(BeTrue(), "%s Ready", o.Name)
		}
		for _, o := range set.HostAuthorities {
			var got v1alpha1.HostAuthority
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, &got)).To(Succeed(), o.Name)
			Expect(apiMetaReady(got.Status.Conditions, got.Generation)).To(BeTrue(), "%s Ready", o.Name)
		}
		for _, o := range set.ToolRegistries {
			var got v1alpha1.ToolRegistry
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, &got)).To(Succeed(), o.Name)
			Expect(apiMetaReady(got.Status.Conditions, got.Generation)).To(BeTrue(), "%s Ready", o.Name)
		}
	})

	It("refuses, in the manager's admission webhook, a PolicySnapshot generation that skips one", func() {
		set, err := kubefixture.Samples(repoRoot)
		Expect(err).NotTo(HaveOccurred())
		last := set.PolicySnapshots[len(set.PolicySnapshots)-1]
		skip := kubefixture.Fresh(&last, last.Namespace, strings.TrimSuffix(last.Name, string(last.Spec.SnapshotGeneration))+"4")
		skip.Spec.SnapshotGeneration = "4"
		err = k8s.Create(ctx, skip)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
		Expect(err.Error()).To(ContainSubstring("admission webhook"))
		Expect(err.Error()).To(ContainSubstring("spec.snapshotGeneration"))
	})

	It("serves the authorization API over TLS with the CA it wrote, the samples' domain loaded", func() {
		pem, err := os.ReadFile(st.CAFile)
		Expect(err).NotTo(HaveOccurred())
		pool := x509.NewCertPool()
		Expect(pool.AppendCertsFromPEM(pem)).To(BeTrue())
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
		Eventually(func() (int, error) {
			resp, err := hc.Get(st.ServiceURL + "/readyz")
			if err != nil {
				return 0, err
			}
			_ = resp.Body.Close()
			return resp.StatusCode, nil
		}).WithTimeout(30 * time.Second).Should(Equal(http.StatusOK))
	})

	It("has the ServiceAccounts the samples' HostAuthority names in its namespace, each given a token the service authenticates", func() {
		set, err := kubefixture.Samples(repoRoot)
		Expect(err).NotTo(HaveOccurred())
		cfg, err := clientcmd.BuildConfigFromFlags("", st.Kubeconfig)
		Expect(err).NotTo(HaveOccurred())
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		// The ServiceAccounts of the samples' own namespace: those of other
		// namespaces (the identity gateway, Argo CD) belong to other systems.
		var names []string
		for _, ha := range set.HostAuthorities {
			subjects := slices.Clone(ha.Spec.Executors)
			for _, r := range ha.Spec.Roles {
				subjects = append(subjects, r.Subjects...)
			}
			for _, s := range subjects {
				if s.Kind == v1alpha1.SubjectKindServiceAccount && (s.Namespace == "" || s.Namespace == ha.Namespace) && !slices.Contains(names, s.Name) {
					names = append(names, s.Name)
				}
			}
		}
		Expect(names).To(ContainElements("payments-agent-runtime", "payments-executor"))

		pem, err := os.ReadFile(st.CAFile)
		Expect(err).NotTo(HaveOccurred())
		pool := x509.NewCertPool()
		Expect(pool.AppendCertsFromPEM(pem)).To(BeTrue())
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
		body, err := os.ReadFile(filepath.Join(repoRoot, "examples", "api", "authorize-allow.json"))
		Expect(err).NotTo(HaveOccurred())
		authorize := func(token string) int {
			req, err := http.NewRequest(http.MethodPost, st.ServiceURL+"/v1/authorize", bytes.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			return resp.StatusCode
		}
		for _, name := range names {
			// What `kubectl -n payments create token NAME --audience toolgate` asks for.
			tr, err := cs.CoreV1().ServiceAccounts("payments").CreateToken(ctx, name, &authnv1.TokenRequest{
				Spec: authnv1.TokenRequestSpec{Audiences: []string{"toolgate"}},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred(), "a token for %s", name)
			Expect(authorize(tr.Status.Token)).NotTo(Equal(http.StatusUnauthorized), "%s's token", name)
		}
		Expect(authorize("not-a-token-of-this-cluster-0123456789")).To(Equal(http.StatusUnauthorized))
	})

	It("refuses a second up while it runs", func() {
		out, err := devcluster("up")
		Expect(err).To(HaveOccurred(), "a second up succeeded:\n%s", out)
		Expect(out).To(ContainSubstring("already running"))
	})

	It("stops the manager, the apiserver and itself on down; a second down finds nothing", func() {
		out, err := devcluster("down")
		Expect(err).NotTo(HaveOccurred(), "down:\n%s", out)
		Expect(alive(st.PID)).To(BeFalse(), "the devcluster process")
		Expect(alive(st.ManagerPID)).To(BeFalse(), "the manager")
		Expect(filepath.Join(dir, "state.json")).NotTo(BeAnExistingFile())
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		Expect(k8s.List(short, &v1alpha1.PolicySnapshotList{})).NotTo(Succeed(), "the apiserver still answers")
		out, err = devcluster("down")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("no dev cluster is running"))
	})
})

// apiMetaReady reports whether conditions hold Ready True for generation.
func apiMetaReady(conditions []metav1.Condition, generation int64) bool {
	c := meta.FindStatusCondition(conditions, v1alpha1.ConditionReady)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == generation
}
