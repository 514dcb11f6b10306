package mcp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
	"github.com/toolgate/toolgate/hack/npmcache"
)

// The reference-server spec gates a published MCP server from npm,
// @modelcontextprotocol/server-everything, pinned by the exact version and
// integrity in testdata/reference/npm/package-lock.json, in its own
// authority domain (testdata/reference: a HostAuthority whose executor is
// the gateway, a policy that allows everything.echo once per Authorization).
var referenceDir = filepath.Join("testdata", "reference")

const (
	referenceAgentToken   = "reference-agent-runtime-token-0b7d3e9a"
	referenceGatewayToken = "reference-mcp-gateway-token-5c1f8a2e"
)

// installReference installs the pinned package with `npm ci` (hack/npmcache) into
// $XDG_CACHE_HOME/toolgate/npm/<digest of the lock file> (~/.cache/…),
// once: a later run, or another clone with the same lock, reuses it. It
// returns the server's entry point. A failed install fails the spec.
func installReference() string {
	GinkgoHelper()
	modules, err := npmcache.Install(filepath.Join(referenceDir, "npm"), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred(), "npm ci of the pinned reference server failed")
	entry := filepath.Join(modules, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	Expect(entry).To(BeAnExistingFile())
	return entry
}

var _ = Describe("a published reference MCP server from npm", Ordered, func() {
	var (
		server     string
		importDir  string
		refService *proc
		refGateway *proc
	)

	BeforeAll(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				Skip(tool + " is not on PATH: the spec against the npm reference MCP server needs Node.js and npm")
			}
		}
		server = installReference()
		importDir = filepath.Join(workDir, "reference-import")
		DeferCleanup(func() {
			refGateway.kill()
			refService.kill()
		})
	})

	It("imports its tools, and after review gates them: an allowed echo passes once, its replay is refused", func() {
		upstreamCmd := "node " + server + " stdio"
		tokenFile := filepath.Join(workDir, "reference-gateway.token")
		Expect(os.WriteFile(tokenFile, []byte(referenceGatewayToken+"\n"), 0o600)).To(Succeed())
		serviceAddr := freeAddr()
		outcomes := filepath.Join(workDir, "reference-outcomes.jsonl")

		By("importing the live server's tools/list over stdio")
		code, stdout, stderr := runToolgate("registry", "import", "--command", upstreamCmd, "--tool-prefix", "everything",
			"--out", importDir, "--namespace", "everything", "--snapshot-id", "everything-mcp",
			"--host-authority", "everything/everything-host", "--toolgate-url", "http://"+serviceAddr,
			"--token-file", tokenFile, "--outcome-log", outcomes)
		// Some of its tools are refused (exit 1, listed); echo, one
		// string argument, is drafted with its profile.
		Expect(code).To(BeNumerically("<=", 1), stderr)
		Expect(stdout).To(ContainSubstring("drafted everything-mcp generation 1:"))
		Expect(stdout).To(ContainSubstring("chose    echo /properties/message: free text: bound as its SHA-256 and length"))
		Expect(stdout).NotTo(MatchRegexp(`refused +echo `))

		By("reviewing the draft: refused until confirmed, valid after")
		draft := filepath.Join(importDir, "toolregistry.yaml")
		code, vout, _ := runToolgate("validate", "-f", draft)
		Expect(code).To(Equal(1))
		Expect(vout).To(ContainSubstring("an unconfirmed import draft"))
		raw, err := os.ReadFile(draft)
		Expect(err).NotTo(HaveOccurred())
		confirmed := unconfirmedAnnotation.ReplaceAllString(string(raw), "")
		Expect(confirmed).NotTo(Equal(string(raw)), "the draft carries the unconfirmed annotation")
		manifests := filepath.Join(workDir, "reference-manifests")
		Expect(os.MkdirAll(manifests, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(manifests, "toolregistry.yaml"), []byte(confirmed), 0o600)).To(Succeed())
		code, vout, verr := runToolgate("validate", "-f", filepath.Join(manifests, "toolregistry.yaml"))
		Expect(code).To(Equal(0), vout+verr)
		for _, f := range []string{"hostauthority.yaml", "policysnapshot.yaml"} {
			b, err := os.ReadFile(filepath.Join(referenceDir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(manifests, f), b, 0o600)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(manifests, "namespace.yaml"),
			[]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: everything\n"), 0o600)).To(Succeed())

		By("serving the reviewed generation and running the gateway in front of the server as a stdio upstream")
		state := filepath.Join(workDir, "reference-state")
		refService = start("reference service", serviceAddr, toolgate, "serve", "--standalone", "--manifests", manifests,
			"--state", state, "--tokens", filepath.Join(referenceDir, "tokens.yaml"),
			"--decision-log", filepath.Join(workDir, "reference-decisions.jsonl"), "--listen", serviceAddr)
		waitHTTP("http://"+serviceAddr+"/readyz", refService)
		gwAddr := freeAddr()
		refGateway = start("reference gateway", gwAddr, toolgate, "mcp", "gateway", "--config", filepath.Join(importDir, "mcp-gateway.yaml"),
			"--listen", gwAddr, "--recheck", "1s", "--upstream-command", upstreamCmd)
		waitHTTP("http://"+gwAddr+"/readyz", refGateway)
		Expect(toolNames(refGateway)).To(ContainElement("echo"))

		By("authorizing one echo and calling it through the gateway with the official SDK client")
		rawReq, err := os.ReadFile(filepath.Join(referenceDir, "authorize-echo.json"))
		Expect(err).NotTo(HaveOccurred())
		var req client.AuthorizeRequest
		Expect(json.Unmarshal(rawReq, &req)).To(Succeed())
		params, err := mcpclient.Authorize(ctx, client.New("http://"+serviceAddr, referenceAgentToken, nil), req, "echo")
		Expect(err).NotTo(HaveOccurred())
		cs := session(refGateway)
		res, err := cs.CallTool(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		_, _, refused := mcpclient.Refusal(res)
		Expect(refused).To(BeFalse(), "the allowed call is forwarded")
		Expect(res.IsError).To(BeFalse())
		Expect(res.Content).NotTo(BeEmpty())
		text, ok := res.Content[0].(*mcp.TextContent)
		Expect(ok).To(BeTrue())
		Expect(text.Text).To(ContainSubstring("hello from toolgate"), "the server itself answered")

		By("refusing the replay of the same artifact")
		refusedWith(cs, params, "consumed")

		By("recording exactly one consumed call, completed")
		code, outList, outErr := runToolgate("mcp", "outcomes", outcomes)
		Expect(code).To(Equal(0), outErr)
		lines := strings.Split(strings.TrimSpace(outList), "\n")
		Expect(lines).To(HaveLen(1))
		Expect(lines[0]).To(ContainSubstring("\tcompleted\t"))
		Expect(lines[0]).To(ContainSubstring("everything.echo@1\techo"))
	})
})
