package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
)

// The progress spec runs the published reference server's
// trigger-long-running-operation through the gateway
// (testdata/reference-progress: a policy that allows it once per
// Authorization, in the reference domain): its progress notifications reach
// an SDK client that asked for them, under the client's token, under both
// protocol versions the gateway negotiates; a client's cancellation reaches
// the server as notifications/cancelled and the call is recorded uncertain.
var progressDir = filepath.Join("testdata", "reference-progress")

var _ = Describe("progress and cancellation through the gateway to the reference server", Ordered, func() {
	var (
		serviceAddr string
		wire        string // every line the server read on stdin
		refService  *proc
		refGateway  *proc
		outcomes    string
		seqLong     int
	)

	BeforeAll(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				Skip(tool + " is not on PATH: the spec against the npm reference MCP server needs Node.js and npm")
			}
		}
		server := installReference()
		DeferCleanup(func() {
			refGateway.kill()
			refService.kill()
		})
		// The server behind a tee of its stdin: the spec reads what the
		// gateway sent it. No shell word splitting reaches the gateway's
		// --upstream-command: it runs this one script.
		wire = filepath.Join(workDir, "progress-upstream-stdin.jsonl")
		script := filepath.Join(workDir, "progress-upstream.sh")
		Expect(os.WriteFile(script, []byte("#!/bin/sh\nexec tee -a '"+wire+"' | exec node '"+server+"' stdio\n"), 0o700)).To(Succeed())
		tokenFile := filepath.Join(workDir, "progress-gateway.token")
		Expect(os.WriteFile(tokenFile, []byte(referenceGatewayToken+"\n"), 0o600)).To(Succeed())
		serviceAddr = freeAddr()
		outcomes = filepath.Join(workDir, "progress-outcomes.jsonl")
		importDir := filepath.Join(workDir, "progress-import")

		code, stdout, stderr := runToolgate("registry", "import", "--command", script, "--tool-prefix", "everything",
			"--out", importDir, "--namespace", "everything", "--snapshot-id", "everything-mcp",
			"--host-authority", "everything/everything-host", "--toolgate-url", "http://"+serviceAddr,
			"--token-file", tokenFile, "--outcome-log", outcomes)
		Expect(code).To(BeNumerically("<=", 1), stderr)
		Expect(stdout).NotTo(MatchRegexp(`refused +trigger-long-running-operation `))
		raw, err := os.ReadFile(filepath.Join(importDir, "toolregistry.yaml"))
		Expect(err).NotTo(HaveOccurred())
		manifests := filepath.Join(workDir, "progress-manifests")
		Expect(os.MkdirAll(manifests, 0o755)).To(Succeed())
		confirmed := unconfirmedAnnotation.ReplaceAllString(string(raw), "")
		Expect(os.WriteFile(filepath.Join(manifests, "toolregistry.yaml"), []byte(confirmed), 0o600)).To(Succeed())
		for src, dst := range map[string]string{
			filepath.Join(referenceDir, "hostauthority.yaml"): "hostauthority.yaml",
			filepath.Join(progressDir, "policysnapshot.yaml"): "policysnapshot.yaml",
		} {
			b, err := os.ReadFile(src)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(manifests, dst), b, 0o600)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(manifests, "namespace.yaml"),
			[]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: everything\n"), 0o600)).To(Succeed())

		refService = start("progress service", serviceAddr, toolgate, "serve", "--standalone", "--manifests", manifests,
			"--state", filepath.Join(workDir, "progress-state"), "--tokens", filepath.Join(referenceDir, "tokens.yaml"),
			"--decision-log", filepath.Join(workDir, "progress-decisions.jsonl"), "--listen", serviceAddr)
		waitHTTP("http://"+serviceAddr+"/readyz", refService)
		gwAddr := freeAddr()
		refGateway = start("progress gateway", gwAddr, toolgate, "mcp", "gateway", "--config", filepath.Join(importDir, "mcp-gateway.yaml"),
			"--listen", gwAddr, "--recheck", "1s", "--upstream-command", script)
		waitHTTP("http://"+gwAddr+"/readyz", refGateway)
		Expect(toolNames(refGateway)).To(ContainElement("trigger-long-running-operation"))
	})

	// authorize returns a fresh Authorization of the operation, 2 s in
	// 4 steps.
	authorize := func() *mcp.CallToolParams {
		GinkgoHelper()
		raw, err := os.ReadFile(filepath.Join(progressDir, "authorize-long-running.json"))
		Expect(err).NotTo(HaveOccurred())
		var req client.AuthorizeRequest
		Expect(json.Unmarshal(raw, &req)).To(Succeed())
		seqLong++
		id := fmt.Sprintf("progress-%d-%d", os.Getpid(), seqLong)
		req.DecisionID, req.AuthorizationID, req.ReplayID, req.ConsumptionID = "decision-"+id, "authz-"+id, "replay-"+id, "consumption-"+id
		req.Proposal.ProposalID = "proposal-" + id
		params, err := mcpclient.Authorize(ctx, client.New("http://"+serviceAddr, referenceAgentToken, nil), req, "trigger-long-running-operation")
		Expect(err).NotTo(HaveOccurred())
		return params
	}

	// connect is the official SDK client under version, collecting the
	// progress notifications it receives.
	connect := func(version string) (*mcp.ClientSession, func() []*mcp.ProgressNotificationParams) {
		GinkgoHelper()
		var mu sync.Mutex
		var got []*mcp.ProgressNotificationParams
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "v1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, req.Params)
				mu.Unlock()
			},
		})
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cs, err := c.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: "http://" + refGateway.addr + "/mcp", MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cs.Close)
		Expect(cs.InitializeResult().ProtocolVersion).To(Equal(version))
		return cs, func() []*mcp.ProgressNotificationParams {
			mu.Lock()
			defer mu.Unlock()
			return append([]*mcp.ProgressNotificationParams(nil), got...)
		}
	}

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		It("relays the server's progress to the client that asked for it, under its token ("+version+")", func() {
			cs, got := connect(version)
			params := authorize()
			params.Meta["progressToken"] = "agent-token-" + version
			res, err := cs.CallTool(ctx, params)
			Expect(err).NotTo(HaveOccurred())
			_, _, refused := mcpclient.Refusal(res)
			Expect(refused).To(BeFalse())
			Expect(res.Content[0].(*mcp.TextContent).Text).To(ContainSubstring("Long running operation completed"))
			// Steps 1–3 come while the call runs; the last may race the
			// result on the session-based version's separate stream.
			Eventually(func() int { return len(got()) }).WithTimeout(5 * time.Second).Should(BeNumerically(">=", 3))
			for i, p := range got() {
				Expect(p.ProgressToken).To(Equal("agent-token-"+version), "the client's own token")
				Expect(p.Progress).To(BeNumerically("==", i+1))
				Expect(p.Total).To(BeNumerically("==", 4))
			}
			b, err := os.ReadFile(wire)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring("agent-token-"), "the server saw the gateway's token, not the agent's")
			Expect(string(b)).To(ContainSubstring(`"progressToken":"toolgate-progress-`))
		})
	}

	It("relays a client's cancellation to the server and records the call uncertain", func() {
		cs, _ := connect("2025-11-25")
		params := authorize()
		before, err := os.ReadFile(wire)
		Expect(err).NotTo(HaveOccurred())
		cctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(cctx, params)
			errc <- err
		}()
		// Cancel once the server has read the call.
		Eventually(func() string {
			b, _ := os.ReadFile(wire)
			return string(b[len(before):])
		}).WithTimeout(5 * time.Second).Should(ContainSubstring(`"method":"tools/call"`))
		cancel()
		Eventually(errc).WithTimeout(5 * time.Second).Should(Receive(HaveOccurred()))
		Eventually(func() string {
			b, _ := os.ReadFile(wire)
			return string(b[len(before):])
		}).WithTimeout(5 * time.Second).Should(ContainSubstring(`"method":"notifications/cancelled"`))
		Eventually(func() string {
			_, out, _ := runToolgate("mcp", "outcomes", "--outcome", "uncertain", outcomes)
			return out
		}).WithTimeout(5 * time.Second).Should(ContainSubstring("everything.trigger-long-running-operation@1"))

		By("the gateway's upstream session serves on")
		cs2, _ := connect("2026-07-28")
		res, err := cs2.CallTool(ctx, authorize())
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeFalse())
	})
})
