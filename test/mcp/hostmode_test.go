package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/hack/npmcache"
)

// The Host-mode spec runs examples/mcp-host-mode against the published
// @modelcontextprotocol/server-filesystem (pinned in the corpus lock,
// testdata/corpus/npm): an unmodified SDK client with only a bearer token
// reads and writes through the gateway, which authorizes each call itself.
const (
	hostGatewayToken = "host-mode-gateway-token-9d2e7b4a1c"
	hostClientToken  = "host-mode-alice-client-token-3f6a0e8b"
)

// bearerOnly adds one bearer token to every request and nothing else.
type bearerOnly struct{ token string }

func (b bearerOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

var _ = Describe("Host mode in front of the published filesystem server", Ordered, func() {
	var (
		gw        *proc
		svc       *proc
		workspace string
		outside   string
	)

	BeforeAll(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				Skip(tool + " is not on PATH: the Host-mode spec against server-filesystem needs Node.js and npm")
			}
		}
		modules, err := npmcache.Install(filepath.Join("testdata", "corpus", "npm"), GinkgoWriter)
		Expect(err).NotTo(HaveOccurred(), "npm ci of the pinned corpus servers failed")
		server := filepath.Join(modules, "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
		Expect(server).To(BeAnExistingFile())

		sample := filepath.Join(repoRoot, "examples", "mcp-host-mode")
		workspace = filepath.Join(workDir, "host-workspace")
		outside = filepath.Join(workDir, "host-outside")
		for _, d := range []string{workspace, outside} {
			Expect(os.MkdirAll(d, 0o755)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(workspace, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o600)).To(Succeed())

		By("serving the sample's manifests, its writes rooted at this run's workspace")
		manifests := filepath.Join(workDir, "host-manifests")
		Expect(os.MkdirAll(manifests, 0o755)).To(Succeed())
		for _, f := range []string{"hostauthority.yaml", "toolregistry.yaml", "policysnapshot.yaml"} {
			raw, err := os.ReadFile(filepath.Join(sample, "manifests", f))
			Expect(err).NotTo(HaveOccurred())
			doc := strings.ReplaceAll(string(raw), "root: /workspace}", "root: "+workspace+"}")
			Expect(os.WriteFile(filepath.Join(manifests, f), []byte(doc), 0o600)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(manifests, "namespace.yaml"),
			[]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: coding\n"), 0o600)).To(Succeed())
		tokens := filepath.Join(workDir, "host-service-tokens.yaml")
		Expect(os.WriteFile(tokens, []byte("tokens:\n- token: "+hostGatewayToken+"\n  name: system:serviceaccount:coding:host-gateway\n"), 0o600)).To(Succeed())
		svcAddr := freeAddr()
		svc = start("host-mode service", svcAddr, toolgate, "serve", "--standalone", "--manifests", manifests,
			"--state", filepath.Join(workDir, "host-state"), "--tokens", tokens,
			"--decision-log", filepath.Join(workDir, "host-decisions.jsonl"), "--listen", svcAddr)
		DeferCleanup(svc.kill)
		waitHTTP("http://"+svcAddr+"/readyz", svc)

		By("running the sample's gateway, its clients verified against a token file")
		raw, err := os.ReadFile(filepath.Join(sample, "gateway.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var cfg map[string]any
		Expect(yaml.Unmarshal(raw, &cfg)).To(Succeed())
		gwAddr := freeAddr()
		gwToken := filepath.Join(workDir, "host-gateway.token")
		Expect(os.WriteFile(gwToken, []byte(hostGatewayToken+"\n"), 0o600)).To(Succeed())
		clients := filepath.Join(workDir, "host-clients.yaml")
		Expect(os.WriteFile(clients, []byte("tokens:\n- token: "+hostClientToken+"\n  name: alice\n"), 0o600)).To(Succeed())
		cfg["toolgate"] = map[string]any{"url": "http://" + svcAddr, "tokenFile": gwToken}
		cfg["outcomeLog"] = filepath.Join(workDir, "host-outcomes.jsonl")
		cfg["clientAuth"] = map[string]any{"resource": "http://" + gwAddr + "/mcp",
			"authorizationServers": []string{"https://idp.example.com"}, "tokenFile": clients}
		host := cfg["host"].(map[string]any)
		host["identity"] = map[string]any{"tenant": "acme",
			"subjects": []any{map[string]any{"issuer": "urn:toolgate:token-file", "subject": "alice", "as": "alice"}}}
		// server-filesystem has no payment tool: map only its two.
		host["tools"] = host["tools"].([]any)[:2]
		cfg["tools"] = cfg["tools"].([]any)[:2]
		out, err := yaml.Marshal(cfg)
		Expect(err).NotTo(HaveOccurred())
		cfgPath := filepath.Join(workDir, "host-gateway.yaml")
		Expect(os.WriteFile(cfgPath, out, 0o600)).To(Succeed())
		gw = start("host-mode gateway", gwAddr, toolgate, "mcp", "gateway", "--config", cfgPath, "--listen", gwAddr,
			"--upstream-command", "node "+server+" "+workspace)
		DeferCleanup(gw.kill)
		waitHTTP("http://"+gwAddr+"/readyz", gw)
	})

	connect := func(token string) (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "unmodified", Version: "v1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hc := &http.Client{}
		if token != "" {
			hc.Transport = bearerOnly{token: token}
		}
		return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + gw.addr + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	}
	call := func(cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
		GinkgoHelper()
		raw, err := json.Marshal(args)
		Expect(err).NotTo(HaveOccurred())
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(raw)})
		Expect(err).NotTo(HaveOccurred())
		return res
	}
	refusal := func(res *mcp.CallToolResult) string {
		m, _ := res.Meta["dev.toolgate/refusal"].(map[string]any)
		code, _ := m["code"].(string)
		return code
	}

	It("reads, writes within the workspace exactly once, refuses a write outside it, and answers a client without a token 401", func() {
		cs, err := connect(hostClientToken)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cs.Close)

		By("an allowed read returns the file's first lines")
		res := call(cs, "read_text_file", map[string]any{"path": filepath.Join(workspace, "notes.txt"), "head": 2})
		Expect(res.IsError).To(BeFalse(), refusal(res))
		text := res.Content[0].(*mcp.TextContent).Text
		Expect(text).To(ContainSubstring("two"))
		Expect(text).NotTo(ContainSubstring("three"))

		By("an allowed write creates the file once")
		target := filepath.Join(workspace, "out.txt")
		res = call(cs, "write_file", map[string]any{"path": target, "content": "hello\nworld\n"})
		Expect(res.IsError).To(BeFalse(), refusal(res))
		Expect(os.ReadFile(target)).To(Equal([]byte("hello\nworld\n")))

		By("a write outside the workspace is denied and never reaches the server")
		evil := filepath.Join(outside, "evil.txt")
		res = call(cs, "write_file", map[string]any{"path": evil, "content": "x"})
		Expect(refusal(res)).To(Equal("deny"))
		Expect(evil).NotTo(BeAnExistingFile())

		By("the outcome log holds one completed write and one read, no argument value")
		raw, err := os.ReadFile(filepath.Join(workDir, "host-outcomes.jsonl"))
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(raw), `"outcome":"completed"`)).To(Equal(2))
		Expect(string(raw)).NotTo(ContainSubstring("hello"))
		Expect(gw.out.String()).NotTo(ContainSubstring(hostClientToken))

		By("a client without a token is answered 401")
		_, err = connect("")
		Expect(err).To(HaveOccurred())
		resp, err := http.Post("http://"+gw.addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
	})
})
