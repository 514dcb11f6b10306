// Command mcpbench measures the latency toolgate's MCP gateway adds to one
// tools/call (docs/decisions.md, "The MCP gateway: latency"): the same call
// through the gateway (which consumes a fresh Authorization with the
// toolgate service before forwarding) and directly to the upstream, each
// from -c concurrent SDK clients, p50/p99 and throughput. Authorizations are
// obtained before the timed run. Results go to docs/performance.md.
//
//	go run ./hack/mcpbench -url http://127.0.0.1:18080 -gateway http://127.0.0.1:18090/mcp -upstream http://127.0.0.1:18091/mcp
//
// -cpu name=PID,... adds each named process's CPU time per call in each
// mode (Linux, from /proc/PID/stat), and the bench's own as "clients": the
// breakdown of where a gated call's CPU goes. -floor DIR measures, instead,
// what bounds any gated call on this machine: fdatasync of a small append in
// DIR (the durable consume's floor) and a no-op HTTP POST round trip on
// loopback from -c clients (one hop's floor).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:18080", "the toolgate service")
	gateway := flag.String("gateway", "http://127.0.0.1:18090/mcp", "the gateway's endpoint")
	upstream := flag.String("upstream", "http://127.0.0.1:18091/mcp", "the upstream's endpoint (direct)")
	n := flag.Int("n", 2000, "calls per mode")
	c := flag.Int("c", 8, "concurrent clients")
	cpuFlag := flag.String("cpu", "", "name=PID,... processes whose CPU time per call to report per mode (Linux)")
	floorDir := flag.String("floor", "", "measure the floors instead (fdatasync in this directory, a no-op HTTP round trip)")
	flag.Parse()
	if *floorDir != "" {
		if err := floor(*floorDir, *n, *c); err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench:", err)
			os.Exit(1)
		}
		return
	}
	procs, err := parseProcs(*cpuFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
	if err := run(*url, *gateway, *upstream, *n, *c, procs); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func run(url, gateway, upstream string, n, c int, procs []proc) error {
	ctx := context.Background()
	raw, err := os.ReadFile("examples/api/authorize-allow.json")
	if err != nil {
		return err
	}
	// Every client keeps its connections, as the gateway does: the default
	// transport keeps 2 idle connections per host, so with more concurrent
	// calls most would open a new one (and the direct mode more often than
	// the gateway's, being faster).
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	hc := &http.Client{Transport: t}
	agent := client.New(url, "dev-agent-runtime-token-4f8b2c1e9d7a", hc)
	params := make([]*mcp.CallToolParams, 2*n)
	stamp := time.Now().UnixNano()
	if err := parallel(2*n, c, func(_, i int) error {
		var req client.AuthorizeRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			return err
		}
		id := fmt.Sprintf("bench-%d-%d", stamp, i)
		req.DecisionID, req.AuthorizationID, req.ReplayID, req.ConsumptionID = "decision-"+id, "authz-"+id, "replay-"+id, "consumption-"+id
		req.Proposal.ProposalID = "proposal-" + id
		req.MaxLifetimeSeconds = 300
		p, err := mcpclient.Authorize(ctx, agent, req, "submit_payment")
		params[i] = p
		return err
	}); err != nil {
		return err
	}
	args := params[0].Arguments
	direct := func(int) *mcp.CallToolParams { return &mcp.CallToolParams{Name: "submit_payment", Arguments: args} }
	cpu := cpuMeter{procs: procs}
	cpu.start()
	dl, dd, err := measure(ctx, hc, upstream, n, c, direct)
	if err != nil {
		return err
	}
	cpu.stop("direct ", n)
	gl, gd, err := measure(ctx, hc, gateway, n, c, func(i int) *mcp.CallToolParams { return params[i] })
	if err != nil {
		return err
	}
	cpu.stop("gateway", n)
	// What bounds the gateway: the same Consumption, sent by the executor
	// directly (the gateway's expectations, without MCP).
	executor := client.New(url, "dev-payments-executor-token-7c3e5a9b1f2d", hc)
	cl := make([]time.Duration, n)
	cstart := time.Now()
	if err := parallel(n, c, func(_, i int) error {
		p := params[n+i]
		var a mcpclient.Authorization
		raw, _ := json.Marshal(p.Meta[mcpclient.MetaKey])
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		t := time.Now()
		_, err := executor.Consume(ctx, client.ValidateRequest{Artifact: a.Artifact, Expectations: client.Expectations{
			AuthorizationID: a.AuthorizationID, ReplayID: a.ReplayID, ConsumptionID: a.ConsumptionID, ProposalID: a.ProposalID,
			ToolID: "payments.submit", Version: "1", Arguments: p.Arguments.(json.RawMessage), Identity: a.Identity,
			Capabilities: a.Capabilities, Resources: a.Resources, IntentBinding: a.IntentBinding}})
		cl[i] = time.Since(t)
		return err
	}); err != nil {
		return err
	}
	cd := time.Since(cstart)
	cpu.stop("consume", n)
	fmt.Printf("calls per mode: %d, concurrent clients: %d\n", n, c)
	report("direct ", dl, dd)
	report("gateway", gl, gd)
	report("consume", cl, cd)
	fmt.Printf("added: p50 %.2f ms, p99 %.2f ms\n", ms(pct(gl, 50)-pct(dl, 50)), ms(pct(gl, 99)-pct(dl, 99)))
	for _, l := range cpu.lines {
		fmt.Println(l)
	}
	return nil
}

func report(name string, l []time.Duration, total time.Duration) {
	fmt.Printf("%s p50 %.2f ms  p99 %.2f ms  throughput %.0f calls/s\n", name, ms(pct(l, 50)), ms(pct(l, 99)), float64(len(l))/total.Seconds())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func pct(l []time.Duration, p int) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// measure times n calls from c sessions; every call must succeed.
func measure(ctx context.Context, hc *http.Client, endpoint string, n, c int, params func(int) *mcp.CallToolParams) ([]time.Duration, time.Duration, error) {
	sessions := make([]*mcp.ClientSession, c)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true, HTTPClient: hc}, nil)
		if err != nil {
			return nil, 0, err
		}
		defer func() { _ = cs.Close() }()
		sessions[i] = cs
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return nil, 0, err
		}
	}
	lat := make([]time.Duration, n)
	start := time.Now()
	err := parallel(n, c, func(w, i int) error {
		t := time.Now()
		res, err := sessions[w].CallTool(ctx, params(i))
		lat[i] = time.Since(t)
		if err != nil {
			return err
		}
		if code, _, refused := mcpclient.Refusal(res); refused {
			return fmt.Errorf("call %d refused: %s", i, code)
		}
		return nil
	})
	return lat, time.Since(start), err
}

// parallel runs f for every index 0..n-1 from c workers, each taking the
// next index when it is done with its last; f learns its worker (0..c-1),
// for the connection or file that worker owns. The first error stops that
// worker and is returned once all have stopped.
func parallel(n, c int, f func(w, i int) error) error {
	var next atomic.Int64
	return parallelWorkers(c, func(w int) error {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			if err := f(w, i); err != nil {
				return err
			}
		}
		return nil
	})
}

func parallelWorkers(c int, f func(int) error) error {
	errs := make(chan error, c)
	for w := range c {
		go func() { errs <- f(w) }()
	}
	var first error
	for range c {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
