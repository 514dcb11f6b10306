package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
)

var ctx = context.Background()

// authorized returns call parameters carrying a fresh allow's artifact.
func authorized() (*mcp.CallToolParams, client.AuthorizeRequest) {
	GinkgoHelper()
	req := allowRequest()
	p, err := mcpclient.Authorize(ctx, agent, req, "submit_payment")
	Expect(err).NotTo(HaveOccurred())
	return p, req
}

// refusedWith calls and expects the gateway's refusal code.
func refusedWith(cs *mcp.ClientSession, p *mcp.CallToolParams, code string) {
	GinkgoHelper()
	res, err := cs.CallTool(ctx, p)
	Expect(err).NotTo(HaveOccurred())
	got, _, ok := mcpclient.Refusal(res)
	Expect(ok).To(BeTrue(), "a refusal result")
	Expect(got).To(Equal(code))
}

func gatewayLogs() string {
	return gateways[0].out.String() + gateways[1].out.String() + stdioGateway.out.String()
}

var _ = Describe("the MCP gateway", Ordered, func() {
	var cs *mcp.ClientSession
	BeforeAll(func() { cs = session(gateways[0]) })

	It("lists only the mapped tool, with its reviewed definition", func() {
		res, err := cs.ListTools(ctx, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Tools).To(HaveLen(1))
		Expect(res.Tools[0].Name).To(Equal("submit_payment"))
		Expect(res.Tools[0].Description).To(Equal("Submits one payment from a debtor account to a creditor account."))
	})

	It("forwards an allowed call exactly once, without toolgate's _meta key", func() {
		before := effectCount()
		p, req := authorized()
		res, err := cs.CallTool(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		_, _, refused := mcpclient.Refusal(res)
		Expect(refused).To(BeFalse(), "not refused: %v", res.Content)
		Expect(res.StructuredContent).To(HaveKeyWithValue("status", "submitted"))
		Expect(effectCount()).To(Equal(before + 1))

		By("a replay of the same artifact is refused and never reaches the upstream")
		refusedWith(cs, p, "consumed")
		refusedWith(session(gateways[1]), p, "consumed")
		Expect(effectCount()).To(Equal(before + 1))

		By("its outcome is recorded as completed")
		out, err := exec.Command(toolgate, "mcp", "outcomes", "--outcome", "completed", gateways[0].log).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring(req.AuthorizationID))
	})

	DescribeTable("leaves the upstream untouched when the call is not the one authorized",
		func(params func() *mcp.CallToolParams, code string) {
			before := effectCount()
			refusedWith(cs, params(), code)
			Expect(effectCount()).To(Equal(before))
		},
		Entry("a call without an Authorization is refused as missing", func() *mcp.CallToolParams {
			return &mcp.CallToolParams{Name: "submit_payment", Arguments: allowRequest().Proposal.Arguments}
		}, "missing"),
		Entry("an artifact of another toolgate service (another domain's key) is refused", func() *mcp.CallToolParams {
			req := allowRequest()
			p, err := mcpclient.Authorize(ctx, other, req, "submit_payment")
			Expect(err).NotTo(HaveOccurred())
			return p
		}, "artifact"),
		Entry("an edited argument is refused as a mismatch", func() *mcp.CallToolParams {
			p, _ := authorized()
			p.Arguments = json.RawMessage(bytes.Replace(p.Arguments.(json.RawMessage), []byte("12500"), []byte("99999"), 1))
			return p
		}, "mismatch"),
		Entry("an extra argument is refused as a mismatch", func() *mcp.CallToolParams {
			p, _ := authorized()
			p.Arguments = json.RawMessage(bytes.Replace(p.Arguments.(json.RawMessage), []byte(`"amount"`), []byte(`"instant": true, "amount"`), 1))
			return p
		}, "mismatch"),
		Entry("an argument sent twice (the second value is what a lenient server would use) is refused", func() *mcp.CallToolParams {
			p, _ := authorized()
			p.Arguments = json.RawMessage(bytes.Replace(p.Arguments.(json.RawMessage), []byte(`"amount": 12500`), []byte(`"amount": 12500, "amount": 99999`), 1))
			Expect(string(p.Arguments.(json.RawMessage))).To(ContainSubstring("99999"))
			return p
		}, "duplicate"),
		Entry("an edited artifact is refused", func() *mcp.CallToolParams {
			p, _ := authorized()
			m := p.Meta[mcpclient.MetaKey].(map[string]any)
			a := m["artifact"].(string)
			m["artifact"] = a[:len(a)-4] + "AAAA"
			return p
		}, "artifact"),
		Entry("an artifact presented with another Authorization identity is refused", func() *mcp.CallToolParams {
			p, _ := authorized()
			p.Meta[mcpclient.MetaKey].(map[string]any)["consumptionID"] = "consumption-someone-else"
			return p
		}, "mismatch"),
		Entry("a _meta value of the wrong type is refused", func() *mcp.CallToolParams {
			return &mcp.CallToolParams{Name: "submit_payment", Arguments: allowRequest().Proposal.Arguments,
				Meta: mcp.Meta{mcpclient.MetaKey: "not-an-object"}}
		}, "kindMismatch"),
		Entry("a _meta object with an unknown member is refused", func() *mcp.CallToolParams {
			p, _ := authorized()
			p.Meta[mcpclient.MetaKey].(map[string]any)["toolID"] = "payments.submit"
			return p
		}, "malformed"),
		Entry("arguments over the configured bound are refused", func() *mcp.CallToolParams {
			p, _ := authorized()
			p.Arguments = json.RawMessage(`{"memo":"` + strings.Repeat("x", 70<<10) + `"}`)
			return p
		}, "limitExceeded"),
	)

	It("refuses an expired artifact", func() {
		before := effectCount()
		req := allowRequest()
		req.MaxLifetimeSeconds = 1
		p, err := mcpclient.Authorize(ctx, agent, req, "submit_payment")
		Expect(err).NotTo(HaveOccurred())
		// Let it expire: the service's clock decides, so wait past it.
		time.Sleep(2100 * time.Millisecond)
		refusedWith(cs, p, "expired")
		Expect(effectCount()).To(Equal(before))
	})

	It("issues nothing for a denied call, and the call without it is refused", func() {
		before := effectCount()
		req := request("authorize-deny.json")
		_, err := mcpclient.Authorize(ctx, agent, req, "submit_payment")
		var denied *mcpclient.DeniedError
		Expect(errors.As(err, &denied)).To(BeTrue())
		Expect(denied.Decision.Outcome).To(Equal("deny"))
		refusedWith(cs, &mcp.CallToolParams{Name: "submit_payment", Arguments: req.Proposal.Arguments}, "missing")
		Expect(effectCount()).To(Equal(before))
	})

	It("lets exactly one of 16 clients racing one artifact through two gateways reach the upstream", func() {
		before := effectCount()
		p, _ := authorized()
		sessions := make([]*mcp.ClientSession, 16)
		for i := range sessions {
			sessions[i] = session(gateways[i%2])
		}
		var wg sync.WaitGroup
		results := make([]*mcp.CallToolResult, 16)
		errs := make([]error, 16)
		start := make(chan struct{})
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[i], errs[i] = sessions[i].CallTool(ctx, p)
			}()
		}
		close(start)
		wg.Wait()
		forwarded, consumed := 0, 0
		for i := range results {
			Expect(errs[i]).NotTo(HaveOccurred())
			code, _, refused := mcpclient.Refusal(results[i])
			switch {
			case !refused:
				forwarded++
			case code == "consumed":
				consumed++
			}
		}
		Expect(forwarded).To(Equal(1))
		Expect(consumed).To(Equal(15))
		Expect(effectCount()).To(Equal(before + 1))
	})

	It("refuses resources, prompts and unknown tools; nothing reaches the upstream", func() {
		before := effectCount()
		_, err := cs.ListResources(ctx, nil)
		Expect(err).To(HaveOccurred())
		_, err = cs.ListPrompts(ctx, nil)
		Expect(err).To(HaveOccurred())
		p, _ := authorized()
		p.Name = "delete_everything"
		_, err = cs.CallTool(ctx, p)
		Expect(err).To(HaveOccurred())
		Expect(effectCount()).To(Equal(before))
	})

	It("answers malformed JSON-RPC and unknown methods with JSON-RPC errors and stays up", func() {
		before := effectCount()
		sid := rawInitialize(gateways[0].addr)
		for _, c := range []struct{ body, want string }{
			// Not JSON, and a method MCP does not define: the SDK's transport
			// answers 400 before anything is dispatched.
			{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"submit_payment",`, ""},
			{`{"jsonrpc":"2.0","id":8,"method":"no/such/method","params":{}}`, ""},
			// A method MCP defines but the gateway does not serve.
			{`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`, `"code":-32601`},
			// A _meta that is not an object: invalid params.
			{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"submit_payment","arguments":{},"_meta":7}}`, `"code":-32602`},
		} {
			status, reply := rawPost(gateways[0].addr, sid, c.body)
			if c.want == "" {
				Expect(status).To(Equal(http.StatusBadRequest), c.body)
			} else {
				Expect(reply).To(ContainSubstring(c.want), c.body)
			}
		}
		Expect(toolNames(gateways[0])).To(Equal([]string{"submit_payment"}))
		Expect(effectCount()).To(Equal(before))
	})

	It("refuses a body of two JSON-RPC messages with 400 and runs neither: the Authorization stays unspent", func() {
		before := effectCount()
		p, _ := authorized()
		params, err := json.Marshal(p)
		Expect(err).NotTo(HaveOccurred())
		call := `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":` + string(params) + `}`
		sid := rawInitialize(gateways[0].addr)
		for _, body := range []string{call + call, call + `{"jsonrpc":"2.0","id":22,"method":"ping"}`, "[" + call + "]"} {
			status, _ := rawPost(gateways[0].addr, sid, body)
			Expect(status).To(Equal(http.StatusBadRequest))
		}
		Expect(effectCount()).To(Equal(before))
		// Nothing was consumed: the same Authorization still runs once.
		res, err := cs.CallTool(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		_, _, refused := mcpclient.Refusal(res)
		Expect(refused).To(BeFalse())
		Expect(effectCount()).To(Equal(before + 1))
	})

	It("withholds a result whose structuredContent breaks the reviewed output Schema", func() {
		control("badoutput")
		DeferCleanup(control, "reset")
		before := effectCount()
		p, req := authorized()
		refusedWith(cs, p, "outputSchema")
		Expect(effectCount()).To(Equal(before + 1))
		// Failed: the tool ran, but the agent got no result.
		Expect(outcomeOf(gateways[0], req.AuthorizationID)).To(Equal("failed\toutputSchema"))
		out, err := exec.Command(toolgate, "mcp", "outcomes", "--outcome", "failed", gateways[0].log).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring(req.AuthorizationID))
	})

	It("catches a rug pull: the changed tool is withheld, its calls refused, a metric and a log line", func() {
		control("rugpull")
		Eventually(func() []string { return toolNames(gateways[0]) }, 20*time.Second, 100*time.Millisecond).Should(BeEmpty())
		Eventually(func() []string { return toolNames(gateways[1]) }, 20*time.Second, 100*time.Millisecond).Should(BeEmpty())
		before := effectCount()
		p, _ := authorized()
		_, err := cs.CallTool(ctx, p)
		// Withheld: the tool is no longer served at all.
		Expect(err).To(HaveOccurred())
		Expect(effectCount()).To(Equal(before))
		Expect(metrics(gateways[0])).To(MatchRegexp(`toolgate_mcp_definition_changed_total\{tool="submit_payment"\} [1-9]`))
		Expect(metrics(gateways[0])).To(ContainSubstring("toolgate_mcp_tools_withheld 1"))
		Expect(gateways[0].out.String()).To(ContainSubstring("upstream definition differs from the reviewed one"))

		By("the reviewed definition back, the tool is served again")
		control("reset")
		Eventually(func() []string { return toolNames(gateways[0]) }, 20*time.Second, 100*time.Millisecond).Should(Equal([]string{"submit_payment"}))
		res, err := cs.CallTool(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		_, _, refused := mcpclient.Refusal(res)
		Expect(refused).To(BeFalse())
		Expect(effectCount()).To(Equal(before + 1))
	})

	It("records an upstream killed mid-call as uncertain and refuses the retry", func() {
		control("hang")
		before := effectCount()
		p, req := authorized()
		type answer struct {
			res *mcp.CallToolResult
			err error
		}
		done := make(chan answer, 1)
		go func() {
			res, err := cs.CallTool(ctx, p)
			done <- answer{res, err}
		}()
		Eventually(effectCount, 10*time.Second, 50*time.Millisecond).Should(Equal(before + 1))
		upstream.kill()
		var a answer
		Eventually(done, 30*time.Second).Should(Receive(&a))
		Expect(a.err).NotTo(HaveOccurred())
		code, _, _ := mcpclient.Refusal(a.res)
		Expect(code).To(Equal("uncertain"))
		out, err := exec.Command(toolgate, "mcp", "outcomes", "--outcome", "uncertain", gateways[0].log).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring(req.AuthorizationID))

		By("the upstream back, a retry with the same artifact is refused")
		startUpstream()
		Eventually(func() []string { return toolNames(gateways[0]) }, 20*time.Second, 100*time.Millisecond).Should(Equal([]string{"submit_payment"}))
		refusedWith(cs, p, "consumed")
		Expect(effectCount()).To(Equal(before + 1))
	})

	It("gates a stdio upstream the same way", func() {
		stdio := session(stdioGateway)
		p, _ := authorized()
		res, err := stdio.CallTool(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		_, _, refused := mcpclient.Refusal(res)
		Expect(refused).To(BeFalse())
		b, err := os.ReadFile(stdioGateway.cmd.Args[len(stdioGateway.cmd.Args)-1][len(upBinary+" --effects "):])
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(b), "\n")).To(Equal(1))
		refusedWith(stdio, p, "consumed")
	})

	It("never logs an argument value or an artifact", func() {
		logs := gatewayLogs()
		Expect(logs).NotTo(ContainSubstring("acct-1001"))
		Expect(logs).NotTo(ContainSubstring("Invoice 2026-114"))
		Expect(logs).NotTo(ContainSubstring("dG9vbGdhdGUu")) // every artifact's header
	})
})

func outcomeOf(p *proc, authorizationID string) string {
	GinkgoHelper()
	out, err := exec.Command(toolgate, "mcp", "outcomes", p.log).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, authorizationID) {
			f := strings.Split(line, "\t")
			return f[1] + "\t" + f[2]
		}
	}
	return ""
}

func metrics(p *proc) string {
	GinkgoHelper()
	resp, err := http.Get("http://" + p.addr + "/metrics")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// rawInitialize opens an MCP session by hand and returns its id.
func rawInitialize(addr string) string {
	GinkgoHelper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	Expect(sid).NotTo(BeEmpty())
	rawPost(addr, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

func rawPost(addr, sid, body string) (int, string) {
	GinkgoHelper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(strings.TrimPrefix(sc.Text(), "data: "))
	}
	return resp.StatusCode, b.String()
}
