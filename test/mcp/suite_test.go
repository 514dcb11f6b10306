package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/testutil"
)

const (
	agentToken    = "dev-agent-runtime-token-4f8b2c1e9d7a"
	executorToken = "dev-payments-executor-token-7c3e5a9b1f2d"
)

var (
	repoRoot = filepath.Join("..", "..")
	workDir  string
	toolgate string // the built toolgate binary
	upBinary string // the built test upstream
	effects  string // the upstream's side-effect file

	service, foreign *proc // toolgate serve on the samples; a second one with its own keys
	upstream         *proc
	upstreamAddr     string
	gateways         [2]*proc
	stdioGateway     *proc
	agent, other     *client.Client
)

func TestMCP(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "MCP gateway end to end: toolgate serve, an SDK upstream, gateways, SDK clients")
}

// proc is one child process; its output accumulates in out.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *testutil.SyncBuffer
	addr string // its listen address
	log  string // a gateway's outcome log
	done chan struct{}
}

func start(name, addr string, bin string, args ...string) *proc {
	GinkgoHelper()
	p := &proc{name: name, addr: addr, out: &testutil.SyncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	Expect(p.cmd.Start()).To(Succeed())
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p
}

func (p *proc) kill() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

func freeAddr() string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

func waitHTTP(url string, p *proc) {
	GinkgoHelper()
	Eventually(func() int {
		select {
		case <-p.done:
			Fail(p.name + " exited:\n" + p.out.String())
		default:
		}
		resp, err := http.Get(url)
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}, 60*time.Second, 100*time.Millisecond).Should(Equal(http.StatusOK))
}

func build(pkg, out string) {
	GinkgoHelper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = repoRoot
	b, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(b))
}

func startService(name, state string) *proc {
	GinkgoHelper()
	addr := freeAddr()
	p := start(name, addr, toolgate, "serve", "--standalone",
		"--manifests", filepath.Join(repoRoot, "config", "samples"), "--state", state,
		"--tokens", filepath.Join(repoRoot, "examples", "standalone", "tokens.yaml"),
		"--decision-log", filepath.Join(state, "decisions.jsonl"), "--listen", addr)
	waitHTTP("http://"+addr+"/readyz", p)
	return p
}

func startUpstream() {
	GinkgoHelper()
	upstream = start("upstream", upstreamAddr, upBinary, "--listen", upstreamAddr, "--effects", effects)
	waitHTTP("http://"+upstreamAddr+"/count", upstream)
}

// gatewayConfig writes the shipped sample configuration with this suite's
// service, token file and outcome log.
func gatewayConfig(name string) (cfgPath, outcomeLog string) {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "config", "mcp", "gateway.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var cfg map[string]any
	Expect(yaml.Unmarshal(raw, &cfg)).To(Succeed())
	tokenFile := filepath.Join(workDir, "executor.token")
	Expect(os.WriteFile(tokenFile, []byte(executorToken+"\n"), 0o600)).To(Succeed())
	outcomeLog = filepath.Join(workDir, name+"-outcomes.jsonl")
	cfg["toolgate"] = map[string]any{"url": "http://" + service.addr, "tokenFile": tokenFile}
	cfg["outcomeLog"] = outcomeLog
	out, err := yaml.Marshal(cfg)
	Expect(err).NotTo(HaveOccurred())
	cfgPath = filepath.Join(workDir, name+".yaml")
	Expect(os.WriteFile(cfgPath, out, 0o600)).To(Succeed())
	return cfgPath, outcomeLog
}

func startGateway(name string, upstreamFlags ...string) *proc {
	GinkgoHelper()
	cfg, log := gatewayConfig(name)
	addr := freeAddr()
	args := append([]string{"mcp", "gateway", "--config", cfg, "--listen", addr, "--recheck", "500ms", "--call-timeout", "30s"}, upstreamFlags...)
	p := start(name, addr, toolgate, args...)
	p.log = log
	// Ready means the upstream's definitions were compared: the reviewed
	// tool is served from the first request on, not after a delay.
	waitHTTP("http://"+addr+"/readyz", p)
	Expect(toolNames(p)).To(Equal([]string{"submit_payment"}))
	return p
}

var _ = BeforeSuite(func() {
	var err error
	workDir, err = os.MkdirTemp("", "toolgate-mcp-e2e-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, workDir)
	toolgate = filepath.Join(workDir, "toolgate")
	upBinary = filepath.Join(workDir, "upstream")
	build("./cmd/toolgate", toolgate)
	build("./test/mcp/upstream", upBinary)
	effects = filepath.Join(workDir, "effects")

	service = startService("service", filepath.Join(workDir, "state"))
	foreign = startService("foreign service", filepath.Join(workDir, "foreign-state"))
	agent = client.New("http://"+service.addr, agentToken, nil)
	other = client.New("http://"+foreign.addr, agentToken, nil)

	upstreamAddr = freeAddr()
	startUpstream()
	gateways[0] = startGateway("gateway-0", "--upstream-url", "http://"+upstreamAddr+"/mcp")
	gateways[1] = startGateway("gateway-1", "--upstream-url", "http://"+upstreamAddr+"/mcp")
	stdioGateway = startGateway("gateway-stdio", "--upstream-command", upBinary+" --effects "+filepath.Join(workDir, "stdio-effects"))
	DeferCleanup(func() {
		for _, p := range []*proc{stdioGateway, gateways[0], gateways[1], upstream, foreign, service} {
			p.kill()
		}
	})
})

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		for _, p := range []*proc{service, upstream, gateways[0], gateways[1]} {
			if p != nil {
				AddReportEntry(p.name, p.out.String())
			}
		}
	}
})

// session connects a real SDK client to a gateway.
func session(p *proc) *mcp.ClientSession {
	GinkgoHelper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + p.addr + "/mcp", MaxRetries: -1}, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(cs.Close)
	return cs
}

func toolNames(p *proc) []string {
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-probe", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + p.addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		return nil
	}
	defer func() { _ = cs.Close() }()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil
	}
	names := []string{}
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names
}

// effectCount is how many calls the upstream performed: the lines of its
// side-effect file (it survives the upstream's restarts).
func effectCount() int {
	b, err := os.ReadFile(effects)
	if os.IsNotExist(err) {
		return 0
	}
	Expect(err).NotTo(HaveOccurred())
	return strings.Count(string(b), "\n")
}

var seq int

// allowRequest is examples/api/authorize-allow.json with fresh identities.
func allowRequest() client.AuthorizeRequest { return request("authorize-allow.json") }

func request(file string) client.AuthorizeRequest {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "examples", "api", file))
	Expect(err).NotTo(HaveOccurred())
	var r client.AuthorizeRequest
	Expect(json.Unmarshal(raw, &r)).To(Succeed())
	seq++
	id := fmt.Sprintf("mcp-e2e-%d-%d", os.Getpid(), seq)
	r.DecisionID, r.AuthorizationID, r.ReplayID, r.ConsumptionID = "decision-"+id, "authz-"+id, "replay-"+id, "consumption-"+id
	r.Proposal.ProposalID = "proposal-" + id
	return r
}

func control(what string) {
	GinkgoHelper()
	resp, err := http.Post("http://"+upstreamAddr+"/control/"+what, "text/plain", nil)
	Expect(err).NotTo(HaveOccurred())
	_ = resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
}
