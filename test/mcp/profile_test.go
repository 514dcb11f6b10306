package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
	"github.com/toolgate/toolgate/hack/npmcache"
)

// The profile spec gates three published reference servers from npm
// (server-filesystem, server-memory, server-everything, pinned in
// testdata/reference/npm/package-lock.json) through their imported
// argument profiles (docs/arguments.md) in a domain of its own
// (testdata/profiles): the arguments the agent authorizes are the MCP
// arguments byte for byte, the service derives the protocol arguments
// from them, and the gateway forwards the same bytes.
var profilesDir = filepath.Join("testdata", "profiles")

const (
	refsAgentToken   = "refs-agent-runtime-token-6d2a9c41"
	refsGatewayToken = "refs-mcp-gateway-token-3e8b07f5"
)

// referenceModules installs the pinned reference servers (once) and
// returns their node_modules.
func referenceModules() string {
	GinkgoHelper()
	modules, err := npmcache.Install(filepath.Join(referenceDir, "npm"), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred(), "npm ci of the pinned reference servers failed")
	return modules
}

// unconfirmedAnnotation matches the draft's annotation: the list of
// suggestions, one a line.
var unconfirmedAnnotation = regexp.MustCompile(`(?m)^  annotations:\n    import\.toolgate\.dev/unconfirmed: \|\n(      .*\n)+`)

// refsServer is one reference server behind its own gateway.
type refsServer struct {
	prefix, command string
	importDir       string
	gateway         *proc
	cs              *mcp.ClientSession
}

var _ = Describe("reference MCP servers through their imported argument profiles", Ordered, func() {
	var (
		root       string // the filesystem server's one allowed directory
		memoryFile string
		servers    map[string]*refsServer
		service    *proc
		agentRefs  *client.Client
		seqRefs    int
	)

	// request is testdata/reference/authorize-echo.json in this domain,
	// for tool with the exact argument text, with fresh identities.
	request := func(registry, toolID, arguments string) client.AuthorizeRequest {
		GinkgoHelper()
		raw, err := os.ReadFile(filepath.Join(referenceDir, "authorize-echo.json"))
		Expect(err).NotTo(HaveOccurred())
		var r client.AuthorizeRequest
		Expect(json.Unmarshal(raw, &r)).To(Succeed())
		seqRefs++
		id := fmt.Sprintf("refs-%d-%d", os.Getpid(), seqRefs)
		r.HostAuthority.Namespace, r.HostAuthority.Name = "refs", "refs-host"
		r.Registry.SnapshotID, r.Registry.Generation = registry, "1"
		r.Policy.SnapshotID, r.Policy.PolicyID = "refs-policy", "refs-guardrails"
		r.Proposal.ToolID, r.Proposal.Version, r.Proposal.Arguments = toolID, "1", json.RawMessage(arguments)
		r.Proposal.ProposalID = "proposal-" + id
		r.DecisionID, r.AuthorizationID, r.ReplayID, r.ConsumptionID = "decision-"+id, "authz-"+id, "replay-"+id, "consumption-"+id
		return r
	}
	authorize := func(registry, toolID, tool, arguments string) *mcp.CallToolParams {
		GinkgoHelper()
		p, err := mcpclient.Authorize(ctx, agentRefs, request(registry, toolID, arguments), tool)
		Expect(err).NotTo(HaveOccurred(), tool+" is authorized")
		return p
	}
	// forwarded calls p and expects the server's own, successful answer.
	forwarded := func(s *refsServer, p *mcp.CallToolParams) string {
		GinkgoHelper()
		res, err := s.cs.CallTool(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		code, _, refused := mcpclient.Refusal(res)
		Expect(refused).To(BeFalse(), "refused: "+code)
		Expect(res.IsError).To(BeFalse(), "the server answered an error")
		var text strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text.WriteString(t.Text)
			}
		}
		return text.String()
	}
	readFile := func(name string) string {
		GinkgoHelper()
		b, err := os.ReadFile(filepath.Join(root, name))
		Expect(err).NotTo(HaveOccurred())
		return string(b)
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
		root = filepath.Join(root, "refs-fs-root")
		Expect(os.MkdirAll(root, 0o755)).To(Succeed())
		memoryFile = filepath.Join(workDir, "refs-memory.jsonl")
		entry := func(pkg string) string {
			e := filepath.Join(modules, "@modelcontextprotocol", pkg, "dist", "index.js")
			Expect(e).To(BeAnExistingFile())
			return e
		}
		servers = map[string]*refsServer{
			"fs":         {prefix: "fs", command: "node " + entry("server-filesystem") + " " + root},
			"memory":     {prefix: "memory", command: "env MEMORY_FILE_PATH=" + memoryFile + " node " + entry("server-memory")},
			"everything": {prefix: "everything", command: "node " + entry("server-everything") + " stdio"},
		}
		serviceAddr := freeAddr()
		tokenFile := filepath.Join(workDir, "refs-gateway.token")
		Expect(os.WriteFile(tokenFile, []byte(refsGatewayToken+"\n"), 0o600)).To(Succeed())
		manifests := filepath.Join(workDir, "refs-manifests")
		Expect(os.MkdirAll(manifests, 0o755)).To(Succeed())

		By("importing each server's live tools/list, and confirming the draft: refused before, valid after")
		for _, name := range []string{"fs", "memory", "everything"} {
			s := servers[name]
			s.importDir = filepath.Join(workDir, "refs-import-"+name)
			code, stdout, stderr := runToolgate("registry", "import", "--command", s.command, "--tool-prefix", s.prefix,
				"--out", s.importDir, "--namespace", "refs", "--snapshot-id", s.prefix+"-mcp",
				"--host-authority", "refs/refs-host", "--toolgate-url", "http://"+serviceAddr,
				"--token-file", tokenFile, "--outcome-log", filepath.Join(workDir, "refs-outcomes-"+name+".jsonl"))
			Expect(code).To(BeNumerically("<=", 1), stderr)
			Expect(stdout).To(ContainSubstring("drafted " + s.prefix + "-mcp generation 1:"))
			draft := filepath.Join(s.importDir, "toolregistry.yaml")
			code, vout, _ := runToolgate("validate", "-f", draft)
			Expect(code).To(Equal(1))
			Expect(vout).To(MatchRegexp(`spec\.definitions\[\d+\]\.arguments/properties/\S+: malformed: an unconfirmed import draft`))
			raw, err := os.ReadFile(draft)
			Expect(err).NotTo(HaveOccurred())
			confirmed := unconfirmedAnnotation.ReplaceAllString(string(raw), "")
			Expect(confirmed).NotTo(Equal(string(raw)), "the draft carries the unconfirmed annotation")
			out := filepath.Join(manifests, name+"-toolregistry.yaml")
			Expect(os.WriteFile(out, []byte(confirmed), 0o600)).To(Succeed())
			code, vout, verr := runToolgate("validate", "-f", out)
			Expect(code).To(Equal(0), vout+verr)
		}
		Expect(servers["fs"].importDir).NotTo(BeEmpty())
		for _, f := range []string{"hostauthority.yaml", "policysnapshot.yaml"} {
			b, err := os.ReadFile(filepath.Join(profilesDir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(manifests, f), b, 0o600)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(manifests, "namespace.yaml"),
			[]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: refs\n"), 0o600)).To(Succeed())

		By("serving the reviewed generations and a gateway in front of each server")
		service = start("refs service", serviceAddr, toolgate, "serve", "--standalone", "--manifests", manifests,
			"--state", filepath.Join(workDir, "refs-state"), "--tokens", filepath.Join(profilesDir, "tokens.yaml"),
			"--decision-log", filepath.Join(workDir, "refs-decisions.jsonl"), "--listen", serviceAddr)
		DeferCleanup(func() { service.kill() })
		waitHTTP("http://"+serviceAddr+"/readyz", service)
		agentRefs = client.New("http://"+serviceAddr, refsAgentToken, nil)
		for _, name := range []string{"fs", "memory", "everything"} {
			s := servers[name]
			addr := freeAddr()
			s.gateway = start("refs gateway "+name, addr, toolgate, "mcp", "gateway", "--config", filepath.Join(s.importDir, "mcp-gateway.yaml"),
				"--listen", addr, "--upstream-command", s.command)
			DeferCleanup(func() { s.gateway.kill() })
			waitHTTP("http://"+addr+"/readyz", s.gateway)
			s.cs = session(s.gateway)
		}
	})

	It("writes text with newlines exactly once; one changed octet is a mismatch and leaves the file untouched", func() {
		fs := servers["fs"]
		path := filepath.Join(root, "hello.txt")
		args := `{"path":` + js(path) + `,"content":"hello\nworld\n"}`
		p := authorize("fs-mcp", "fs.write-file", "write_file", args)

		By("refusing the artifact with one changed octet of content")
		edited := *p
		edited.Arguments = json.RawMessage(strings.Replace(args, `world`, `worle`, 1))
		refusedWith(fs.cs, &edited, "mismatch")
		_, err := os.Stat(path)
		Expect(os.IsNotExist(err)).To(BeTrue(), "the mismatched call never reached the server")

		By("forwarding the authorized call: the file holds exactly those octets")
		forwarded(fs, p)
		Expect(readFile("hello.txt")).To(Equal("hello\nworld\n"))

		By("refusing the replay")
		refusedWith(fs.cs, p, "consumed")
		Expect(readFile("hello.txt")).To(Equal("hello\nworld\n"))
	})

	It("writes a non-ASCII text exactly", func() {
		text := "Grüße, 世界 — ✓ 🦀\n\ttab\\backslash \"quoted\"\n"
		path := filepath.Join(root, "unicode.txt")
		forwarded(servers["fs"], authorize("fs-mcp", "fs.write-file", "write_file", `{"path":`+js(path)+`,"content":`+js(text)+`}`))
		Expect(readFile("unicode.txt")).To(Equal(text))
	})

	It("authorizes and forwards every documented filesystem example with an equal value", func() {
		fs := servers["fs"]
		path := filepath.Join(root, "notes.txt")
		forwarded(fs, authorize("fs-mcp", "fs.write-file", "write_file", `{"path":`+js(path)+`,"content":"line one\nline two\nline three\n"}`))

		By("read_text_file and read_file return the file's text, head and tail included")
		Expect(forwarded(fs, authorize("fs-mcp", "fs.read-text-file", "read_text_file", `{"path":`+js(path)+`}`))).To(Equal("line one\nline two\nline three\n"))
		Expect(forwarded(fs, authorize("fs-mcp", "fs.read-text-file", "read_text_file", `{"path":`+js(path)+`,"head":1}`))).To(Equal("line one"))
		tail := forwarded(fs, authorize("fs-mcp", "fs.read-file", "read_file", `{"path":`+js(path)+`,"tail":2}`))
		Expect(tail).To(ContainSubstring("line three"))
		Expect(tail).NotTo(ContainSubstring("line one"))

		By("edit_file applies the edit (dry run first: the file is unchanged)")
		edit := `{"path":` + js(path) + `,"edits":[{"oldText":"line two","newText":"line 2 — edited"}]`
		diff := forwarded(fs, authorize("fs-mcp", "fs.edit-file", "edit_file", edit+`,"dryRun":true}`))
		Expect(diff).To(ContainSubstring("+line 2 — edited"))
		Expect(readFile("notes.txt")).To(Equal("line one\nline two\nline three\n"))
		forwarded(fs, authorize("fs-mcp", "fs.edit-file", "edit_file", edit+`}`))
		Expect(readFile("notes.txt")).To(Equal("line one\nline 2 — edited\nline three\n"))

		By("create_directory and move_file")
		dir := filepath.Join(root, "archive", "2026")
		forwarded(fs, authorize("fs-mcp", "fs.create-directory", "create_directory", `{"path":`+js(dir)+`}`))
		Expect(dir).To(BeADirectory())
		moved := filepath.Join(dir, "notes.txt")
		forwarded(fs, authorize("fs-mcp", "fs.move-file", "move_file", `{"source":`+js(path)+`,"destination":`+js(moved)+`}`))
		Expect(moved).To(BeAnExistingFile())
		Expect(path).NotTo(BeAnExistingFile())
	})

	It("authorizes and forwards memory's create_entities example with an equal value", func() {
		args := `{"entities":[{"name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish"]}]}`
		out := forwarded(servers["memory"], authorize("memory-mcp", "memory.create-entities", "create_entities", args))
		Expect(out).To(ContainSubstring(`"entityType": "person"`))
		b, err := os.ReadFile(memoryFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish"]`))
	})

	It("authorizes and forwards everything's get-sum with 1.5 with an equal value", func() {
		out := forwarded(servers["everything"], authorize("everything-mcp", "everything.get-sum", "get-sum", `{"a":1.5,"b":2.25}`))
		Expect(out).To(Equal("The sum of 1.5 and 2.25 is 3.75."))

		By("refusing what the profile's decimal at scale 2 cannot bind exactly, before anything is issued")
		_, err := mcpclient.Authorize(ctx, agentRefs, request("everything-mcp", "everything.get-sum", `{"a":1.125,"b":1}`), "get-sum")
		Expect(err).To(HaveOccurred())
	})
})
