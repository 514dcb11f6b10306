package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
)

// The policy-library spec serves examples/policy-library's reviewed
// registries, mappings and starter policies for the three reference
// servers with the real gateway in front of each, and proves each rule's
// allowed case forwarded and its refused case denied (nothing issued,
// nothing forwarded). The filesystem policy's root /workspace is replaced
// by the server's own directory; everything else is the library's text.
var libraryDir = filepath.Join(repoRoot, "examples", "policy-library")

const (
	libraryAgentToken   = "library-agent-runtime-token-9f1c2b7e"
	libraryGatewayToken = "library-mcp-gateway-token-4a6d8e03"
)

var _ = Describe("the policy library through the real gateway", Ordered, func() {
	var (
		root    string
		css     = map[string]*mcp.ClientSession{}
		agentL  *client.Client
		seqL    int
		service *proc
	)

	request := func(server, toolID, arguments string, caps ...string) client.AuthorizeRequest {
		GinkgoHelper()
		raw, err := os.ReadFile(filepath.Join(referenceDir, "authorize-echo.json"))
		Expect(err).NotTo(HaveOccurred())
		var r client.AuthorizeRequest
		Expect(json.Unmarshal(raw, &r)).To(Succeed())
		seqL++
		id := fmt.Sprintf("library-%d-%d", os.Getpid(), seqL)
		r.HostAuthority.Namespace, r.HostAuthority.Name = "library", "library-host"
		r.Registry.SnapshotID, r.Registry.Generation = server+"-tools", "1"
		r.Policy.SnapshotID, r.Policy.PolicyID = server+"-policy", server+"-rules"
		r.Proposal.ToolID, r.Proposal.Version, r.Proposal.Arguments = toolID, "1", json.RawMessage(arguments)
		r.Proposal.ProposalID = "proposal-" + id
		r.DecisionID, r.AuthorizationID, r.ReplayID, r.ConsumptionID = "decision-"+id, "authz-"+id, "replay-"+id, "consumption-"+id
		r.RequestedCapabilities, r.Facts.Intent.Capabilities = caps, caps
		return r
	}
	allowed := func(server, toolID, tool, arguments string, caps ...string) string {
		GinkgoHelper()
		p, err := mcpclient.Authorize(ctx, agentL, request(server, toolID, arguments, caps...), tool)
		Expect(err).NotTo(HaveOccurred(), tool+" is allowed")
		res, err := css[server].CallTool(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		code, _, refused := mcpclient.Refusal(res)
		Expect(refused).To(BeFalse(), "refused: "+code)
		Expect(res.IsError).To(BeFalse())
		var text strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text.WriteString(t.Text)
			}
		}
		return text.String()
	}
	denied := func(server, toolID, tool, arguments string, caps ...string) {
		GinkgoHelper()
		_, err := mcpclient.Authorize(ctx, agentL, request(server, toolID, arguments, caps...), tool)
		var d *mcpclient.DeniedError
		Expect(errors.As(err, &d)).To(BeTrue(), fmt.Sprintf("%s is denied, not %v", tool, err))
	}
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	BeforeAll(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				Skip(tool + " is not on PATH: the spec against the npm reference MCP servers needs Node.js and npm")
			}
		}
		modules := referenceModules()
		var err error
		root, err = filepath.EvalSymlinks(workDir)
		Expect(err).NotTo(HaveOccurred())
		root = filepath.Join(root, "library-workspace")
		Expect(os.MkdirAll(root, 0o755)).To(Succeed())
		entry := func(pkg string) string {
			return filepath.Join(modules, "@modelcontextprotocol", pkg, "dist", "index.js")
		}
		commands := map[string]string{
			"filesystem": "node " + entry("server-filesystem") + " " + root,
			"memory":     "env MEMORY_FILE_PATH=" + filepath.Join(workDir, "library-memory.jsonl") + " node " + entry("server-memory"),
			"everything": "node " + entry("server-everything") + " stdio",
		}
		manifests := filepath.Join(workDir, "library-manifests")
		Expect(os.MkdirAll(manifests, 0o755)).To(Succeed())
		copyTo := func(from, to string, replace ...string) {
			b, err := os.ReadFile(from)
			Expect(err).NotTo(HaveOccurred())
			s := strings.NewReplacer(replace...).Replace(string(b))
			Expect(os.WriteFile(to, []byte(s), 0o600)).To(Succeed())
		}
		copyTo(filepath.Join(libraryDir, "hostauthority.yaml"), filepath.Join(manifests, "hostauthority.yaml"))
		for s := range commands {
			copyTo(filepath.Join(libraryDir, s, "toolregistry.yaml"), filepath.Join(manifests, s+"-toolregistry.yaml"))
			copyTo(filepath.Join(libraryDir, s, "policy.yaml"), filepath.Join(manifests, s+"-policy.yaml"), "root: /workspace", "root: "+root)
		}
		Expect(os.WriteFile(filepath.Join(manifests, "namespace.yaml"),
			[]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: library\n"), 0o600)).To(Succeed())
		code, vout, verr := runToolgate("validate", "-f", manifests)
		Expect(code).To(Equal(0), vout+verr)

		serviceAddr := freeAddr()
		service = start("library service", serviceAddr, toolgate, "serve", "--standalone", "--manifests", manifests,
			"--state", filepath.Join(workDir, "library-state"), "--tokens", filepath.Join(profilesDir, "library-tokens.yaml"),
			"--decision-log", filepath.Join(workDir, "library-decisions.jsonl"), "--listen", serviceAddr)
		DeferCleanup(func() { service.kill() })
		waitHTTP("http://"+serviceAddr+"/readyz", service)
		agentL = client.New("http://"+serviceAddr, libraryAgentToken, nil)
		tokenFile := filepath.Join(workDir, "library-gateway.token")
		Expect(os.WriteFile(tokenFile, []byte(libraryGatewayToken+"\n"), 0o600)).To(Succeed())
		for s, command := range commands {
			cfg := filepath.Join(workDir, "library-"+s+"-gateway.yaml")
			copyTo(filepath.Join(libraryDir, s, "mcp", "mcp-gateway.yaml"), cfg,
				".state/mcp-executor.token", tokenFile, ".state/mcp-outcomes.jsonl", filepath.Join(workDir, "library-"+s+"-outcomes.jsonl"))
			addr := freeAddr()
			gw := start("library gateway "+s, addr, toolgate, "mcp", "gateway", "--config", cfg, "--listen", addr,
				"--toolgate-url", "http://"+serviceAddr, "--upstream-command", command)
			DeferCleanup(func() { gw.kill() })
			waitHTTP("http://"+addr+"/readyz", gw)
			Expect(toolNames(gw)).NotTo(BeEmpty(), "the reviewed definitions are the live server's: "+gw.out.String())
			css[s] = session(gw)
		}
	})

	It("filesystem: a write under the workspace root is forwarded, one outside it is denied and never reaches the server", func() {
		inside := filepath.Join(root, "notes", "todo.md")
		Expect(os.MkdirAll(filepath.Dir(inside), 0o755)).To(Succeed())
		allowed("filesystem", "filesystem.write-file", "write_file", `{"path":`+js(inside)+`,"content":"- ship it\n"}`, "data.write")
		b, err := os.ReadFile(inside)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("- ship it\n"))
		outside := filepath.Join(filepath.Dir(root), "library-outside.txt")
		denied("filesystem", "filesystem.write-file", "write_file", `{"path":`+js(outside)+`,"content":"x"}`, "data.write")
		denied("filesystem", "filesystem.write-file", "write_file", `{"path":`+js(root+"/../library-outside.txt")+`,"content":"x"}`, "data.write")
		Expect(outside).NotTo(BeAnExistingFile())
	})

	It("memory: the README entity is forwarded, an observation over 280 octets is denied", func() {
		out := allowed("memory", "memory.create-entities", "create_entities",
			`{"entities":[{"name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish"]}]}`, "data.write")
		Expect(out).To(ContainSubstring("John_Smith"))
		denied("memory", "memory.create-entities", "create_entities",
			`{"entities":[{"name":"Jane","entityType":"person","observations":[`+js(strings.Repeat("é", 141))+`]}]}`, "data.write")
	})

	It("everything: a short echo and a small sum are forwarded, a long echo and a large operand are denied", func() {
		Expect(allowed("everything", "everything.echo", "echo", `{"message":"hello from toolgate"}`, "data.read")).To(ContainSubstring("hello from toolgate"))
		denied("everything", "everything.echo", "echo", `{"message":`+js(strings.Repeat("hello ", 20))+`}`, "data.read")
		Expect(allowed("everything", "everything.get-sum", "get-sum", `{"a":1.5,"b":2.25}`, "data.read")).To(Equal("The sum of 1.5 and 2.25 is 3.75."))
		denied("everything", "everything.get-sum", "get-sum", `{"a":1000.01,"b":1}`, "data.read")
	})
})
