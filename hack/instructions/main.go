// Command instructions counts the user-mode instructions a server process
// executes per request, under valgrind's callgrind (`make
// bench-instructions`). Unlike time, an instruction count does not depend on
// the machine's load, so two commits compare on a shared, busy host.
//
// Every workload runs its server twice under callgrind, in a fresh state
// directory each time: once answering n measured requests, once 2n, with
// everything else the same. In each run, after start-up and the workload's
// set-up requests, `callgrind_control --zero` resets the counters, the
// measured requests follow, and `callgrind_control --dump` writes the count
// since the zero; then the process is killed (nothing after the dump
// counts). The row is the difference of the two runs' counts over n.
//
// Why both, and why this is exact: the zero and the dump are synchronous
// (callgrind_control talks to valgrind's gdbserver through vgdb and returns
// once callgrind carried the command out), so start-up, set-up and
// shutdown are not in either count, with their garbage collections and
// timers; the difference then cancels what one run's measured phase does
// once, whatever n: the first request's lazy initialization, the new
// connection, the idle moments around the zero and the dump. What remains
// is what each request adds, its share of the store's growth included (and
// of the collector's work, with -gogc ""). Work that depends on wall time rather
// than on requests (the Go runtime's sysmon, idle timers) does not cancel,
// so the requests are sent back to back from one client on one keep-alive
// connection, and n should be a few hundred. Callgrind counts user-mode
// instructions only: the kernel's share of a request (the loopback
// socket, the fsync) is not in the figure.
//
// Go programs run with GODEBUG=asyncpreemptoff=1 (callgrind aborts on the
// runtime's preemption signals otherwise), a fixed GOMAXPROCS (-procs, 2),
// so that the count does not depend on the machine's core count, and
// GOGC=off (-gogc): a garbage collection of toolgate's heap costs about 18
// million instructions, so whether one falls inside a run's window or just
// outside it moved a row by about 90 thousand per request at n = 200
// (refused authorize: 286 k to 473 k over six runs). Without collections
// two runs agree within 1 %; the collector's share, which follows the
// bytes allocated per request, is what the engine benchmarks' -benchmem
// columns measure. -gogc "" keeps each program's own setting.
//
// Workloads, in the order the table prints them:
//
//   - go-http-floor: bench's httppeers -serve-floor (net/http with the
//     defaults, reads the body, writes a constant), given OPA's request
//     bodies: the HTTP round trip alone.
//   - opa: `opa run --server --skip-version-check` (the bench module's
//     pinned OPA; no call to GitHub in the background) with the peer
//     table's 20-rule generated Rego policy (bench's httppeers -write-opa),
//     POST /v1/data/peers/allow, cycling through its 64 inputs.
//   - authorize-refused, authorize-issuing: `toolgate serve` on the shipped
//     samples (decision log /dev/null, audit log off), POST /v1/authorize of
//     examples/api/authorize-deny.json and authorize-allow.json with fresh
//     identities per request.
//   - consume-cache-hit: the process first signs 2n Authorizations (the
//     same in both runs), then consumes n or 2n of them: the rebuild cache
//     holds each artifact it issued.
//   - consume-cache-miss: another toolgate process, not measured, issues the
//     Authorizations on the same state directory and stops; the measured
//     process consumes them with an empty rebuild cache: signature
//     verification and the rebuild of each.
//   - validate: as consume-cache-hit, POST /v1/validate.
//   - mcp-direct: test/mcp/upstream (the MCP gateway's tests' server, one
//     tool built with the MCP Go SDK), a tools/call of submit_payment with
//     the sample's arguments from the SDK's client, no gateway: the set-up
//     is the session's initialize and a tools/list (as hack/mcpbench's
//     direct mode).
//   - mcp-gated-gateway: `toolgate mcp gateway` alone on
//     config/mcp/gateway.yaml, the same call, each with its own
//     Authorization (client/mcpclient), which the gateway consumes with the
//     service before it forwards: the service and the upstream run, not
//     measured, as hack/mcpbench/run.sh starts them.
//
// The output is a table, one row per workload (workload, requests,
// instructions per request, commit), or with -o json the same rows with
// both runs' totals.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/client/mcpclient"
)

// The development tokens of examples/standalone/tokens.yaml.
const (
	agentToken    = "dev-agent-runtime-token-4f8b2c1e9d7a"
	executorToken = "dev-payments-executor-token-7c3e5a9b1f2d"
)

type options struct {
	toolgate, httppeers, opa string
	upstream                 string
	valgrind, control        string
	root                     string
	n                        int
	procs                    int
	gogc                     string
	output                   string
	commit                   string
	only                     string
	keep                     bool
}

func main() {
	var o options
	flag.StringVar(&o.toolgate, "toolgate", "bin/toolgate", "toolgate binary")
	flag.StringVar(&o.httppeers, "httppeers", "bin/peers/httppeers", "bench's httppeers binary (the go-http-floor server and the opa row's policy)")
	flag.StringVar(&o.opa, "opa", "bin/peers/opa", "OPA binary (the bench module's pinned version)")
	flag.StringVar(&o.upstream, "upstream", "bin/mcp-upstream", "the MCP gateway tests' upstream (go build ./test/mcp/upstream)")
	flag.StringVar(&o.valgrind, "valgrind", "valgrind", "valgrind binary")
	flag.StringVar(&o.control, "callgrind-control", "callgrind_control", "callgrind_control binary")
	flag.StringVar(&o.root, "root", ".", "the toolgate repository (config/samples, examples/)")
	flag.IntVar(&o.n, "n", 200, "measured requests per workload: each server runs once with n and once with 2n")
	flag.IntVar(&o.procs, "procs", 2, "GOMAXPROCS of every measured Go process")
	flag.StringVar(&o.gogc, "gogc", "off", "GOGC of every measured Go process; empty: each program's own")
	flag.StringVar(&o.output, "o", "text", "output: text (a table) or json")
	flag.StringVar(&o.commit, "commit", "", "the commit measured, for the table (default: git rev-parse of -root, with -dirty)")
	flag.StringVar(&o.only, "workloads", "", "comma-separated workloads to run (default all)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (callgrind outputs, logs) and print its path")
	flag.Parse()
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func run(o options) error {
	if o.n < 1 {
		return errors.New("-n must be at least 1")
	}
	if o.output != "text" && o.output != "json" {
		return fmt.Errorf("-o %q: text or json", o.output)
	}
	if o.commit == "" {
		o.commit = commitOf(o.root)
	}
	work, err := os.MkdirTemp("", "instructions-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "work directory:", work)
	} else {
		defer func() { _ = os.RemoveAll(work) }()
	}
	b := &bench{o: o, work: work}
	all, err := b.workloads()
	if err != nil {
		return err
	}
	var selected []workload
	if o.only == "" {
		selected = all
	} else {
		for name := range strings.SplitSeq(o.only, ",") {
			i := slices.IndexFunc(all, func(w workload) bool { return w.name == name })
			if i < 0 {
				return fmt.Errorf("-workloads: no workload %q", name)
			}
			selected = append(selected, all[i])
		}
	}
	var rows []row
	for _, w := range selected {
		small, err := b.measure(w, o.n)
		if err != nil {
			return fmt.Errorf("%s, %d requests: %w", w.name, o.n, err)
		}
		large, err := b.measure(w, 2*o.n)
		if err != nil {
			return fmt.Errorf("%s, %d requests: %w", w.name, 2*o.n, err)
		}
		per, err := perRequest(o.n, small, large)
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		rows = append(rows, row{Workload: w.name, Requests: o.n, PerRequest: per, Small: small, Large: large, Commit: o.commit})
		fmt.Fprintf(os.Stderr, "%s: %d and %d instructions: %s per request\n", w.name, small, large, thousands(per))
	}
	if o.output == "json" {
		return writeJSON(os.Stdout, rows)
	}
	fmt.Printf("user-mode instructions per request under callgrind (GOMAXPROCS=%d, GOGC=%s, one client, back to back; runs of n and 2n requests differenced)\n", o.procs, cmp.Or(o.gogc, "each program's own"))
	for _, w := range selected {
		fmt.Printf("  %-26s %s\n", w.name, w.work)
	}
	return writeTable(os.Stdout, rows)
}

// workload is one row: the measured server and the requests it answers.
type workload struct {
	name, work string
	// start starts the server (under callgrind when wrap) in state on
	// addr; nil for toolgate serve.
	start func(b *bench, state, addr string, wrap bool) (*process, error)
	// prepare runs before the measured process starts, in its state
	// directory, for k measured requests.
	prepare func(b *bench, state string, k int) (any, error)
	// setup runs in the measured process before the measured requests;
	// the same in both runs.
	setup func(b *bench, addr string, prepared any) (any, error)
	// request sends measured request i; prepared is what prepare or setup
	// returned.
	request func(b *bench, addr string, prepared any, i int) error
}

type bench struct {
	o         options
	work      string
	runs      int
	opaPolicy string
	opaBodies [][]byte
	allow     client.AuthorizeRequest
	deny      client.AuthorizeRequest
	expect    client.Expectations
	hc        *http.Client
	// cleanups stop what a workload's prepare started for one run.
	cleanups    []func() error
	upstreamURL string
}

func (b *bench) workloads() ([]workload, error) {
	if err := readJSON(filepath.Join(b.o.root, "examples/api/authorize-allow.json"), &b.allow); err != nil {
		return nil, err
	}
	if err := readJSON(filepath.Join(b.o.root, "examples/api/authorize-deny.json"), &b.deny); err != nil {
		return nil, err
	}
	if err := readJSON(filepath.Join(b.o.root, "examples/api/expectations-allow.json"), &b.expect); err != nil {
		return nil, err
	}
	// One keep-alive connection, one request in flight.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost, t.MaxConnsPerHost = 1, 1
	b.hc = &http.Client{Transport: t, Timeout: 5 * time.Minute}
	opaDir := filepath.Join(b.work, "opa")
	if err := os.Mkdir(opaDir, 0o700); err != nil {
		return nil, err
	}
	if out, err := exec.Command(b.o.httppeers, "-write-opa", opaDir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s -write-opa: %w: %s", b.o.httppeers, err, out)
	}
	b.opaPolicy = filepath.Join(opaDir, "peers.rego")
	raw, err := os.ReadFile(filepath.Join(opaDir, "requests.jsonl"))
	if err != nil {
		return nil, err
	}
	for l := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		b.opaBodies = append(b.opaBodies, []byte(l))
	}
	issued := func(b *bench, addr string, _ any) (any, error) { return b.issue(addr, 2*b.o.n) }
	return []workload{
		{name: "go-http-floor", work: "bench's httppeers -serve-floor: net/http, reads the body, writes a constant",
			start: func(b *bench, _, addr string, wrap bool) (*process, error) {
				return b.startProcess("floor", wrap, b.o.httppeers, "-serve-floor", addr)
			},
			request: func(b *bench, addr string, _ any, i int) error {
				return b.post("http://"+addr+"/", b.opaBodies[i%len(b.opaBodies)])
			}},
		{name: "opa", work: "opa run --server --skip-version-check, the peer table's 20-rule generated Rego policy (package peers), POST /v1/data/peers/allow",
			start: func(b *bench, _, addr string, wrap bool) (*process, error) {
				return b.startProcess("opa", wrap, b.o.opa, "run", "--server", "--addr", addr, "--log-level", "error", "--skip-version-check", b.opaPolicy)
			},
			request: func(b *bench, addr string, _ any, i int) error {
				return b.post("http://"+addr+"/v1/data/peers/allow", b.opaBodies[i%len(b.opaBodies)])
			}},
		{name: "authorize-refused", work: "toolgate serve, POST /v1/authorize, examples/api/authorize-deny.json: refused, no artifact",
			request: func(b *bench, addr string, _ any, i int) error {
				_, err := b.authorize(addr, b.deny, i, "refused")
				return err
			}},
		{name: "authorize-issuing", work: "toolgate serve, POST /v1/authorize, examples/api/authorize-allow.json: signed artifact, a held-identity read, no durable write",
			request: func(b *bench, addr string, _ any, i int) error {
				_, err := b.authorize(addr, b.allow, i, "issued")
				return err
			}},
		{name: "consume-cache-hit", work: "toolgate serve, POST /v1/consume of artifacts this process issued (set-up: 2n authorize)",
			setup: issued, request: (*bench).consume},
		{name: "consume-cache-miss", work: "toolgate serve, POST /v1/consume of artifacts another process issued: verify and rebuild each",
			prepare: func(b *bench, state string, k int) (any, error) {
				addr, err := freeAddr()
				if err != nil {
					return nil, err
				}
				p, err := b.startToolgate(state, addr, false)
				if err != nil {
					return nil, err
				}
				err = waitUp(addr, p)
				var as any
				if err == nil {
					as, err = b.issue(addr, k)
				}
				b.hc.CloseIdleConnections()
				if serr := p.stop(); err == nil {
					err = serr
				}
				return as, err
			},
			request: (*bench).consume},
		{name: "validate", work: "toolgate serve, POST /v1/validate of artifacts this process issued (set-up: 2n authorize)",
			setup: issued, request: (*bench).validate},
		{name: "mcp-direct", work: "test/mcp/upstream alone, tools/call submit_payment over Streamable HTTP from the MCP Go SDK client, no gateway",
			start: func(b *bench, state, addr string, wrap bool) (*process, error) {
				return b.startProcess("upstream", wrap, b.o.upstream, "--listen", addr, "--effects", filepath.Join(state, "effects"))
			},
			setup: func(b *bench, addr string, _ any) (any, error) { return b.session(addr, nil) },
			request: func(b *bench, _ string, s any, _ int) error {
				return s.(*mcpSession).call(&mcp.CallToolParams{Name: "submit_payment", Arguments: b.allow.Proposal.Arguments})
			}},
		{name: "mcp-gated-gateway", work: "toolgate mcp gateway alone (config/mcp/gateway.yaml), the same call with a fresh Authorization each; service and upstream not measured",
			prepare: (*bench).prepareGateway,
			start: func(b *bench, state, addr string, wrap bool) (*process, error) {
				return b.startProcess("gateway", wrap, b.o.toolgate, "mcp", "gateway", "--config", filepath.Join(state, "gateway.yaml"),
					"--listen", addr, "--upstream-url", b.upstreamURL)
			},
			setup: func(b *bench, addr string, params any) (any, error) {
				return b.session(addr, params.([]*mcp.CallToolParams))
			},
			request: func(b *bench, _ string, s any, i int) error {
				ms := s.(*mcpSession)
				return ms.call(ms.params[i])
			}},
	}, nil
}

// measure runs w's server under callgrind for k measured requests and
// returns the instructions the whole process executed.
func (b *bench) measure(w workload, k int) (uint64, error) {
	defer func() {
		for _, stop := range slices.Backward(b.cleanups) {
			_ = stop()
		}
		b.cleanups = nil
	}()
	b.runs++
	state := filepath.Join(b.work, fmt.Sprintf("%s-%d-%d", w.name, k, b.runs))
	if err := os.Mkdir(state, 0o700); err != nil {
		return 0, err
	}
	var prepared any
	if w.prepare != nil {
		var err error
		if prepared, err = w.prepare(b, state, k); err != nil {
			return 0, fmt.Errorf("prepare: %w", err)
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return 0, err
	}
	start := w.start
	if start == nil {
		start = func(b *bench, state, addr string, wrap bool) (*process, error) {
			return b.startToolgate(state, addr, wrap)
		}
	}
	p, err := start(b, state, addr, true)
	if err != nil {
		return 0, err
	}
	err = func() error {
		if err := waitUp(addr, p); err != nil {
			return err
		}
		if w.setup != nil {
			var err error
			if prepared, err = w.setup(b, addr, prepared); err != nil {
				return fmt.Errorf("set-up: %w", err)
			}
		}
		if err := b.control("--zero", p); err != nil {
			return err
		}
		for i := range k {
			if err := w.request(b, addr, prepared, i); err != nil {
				return fmt.Errorf("request %d: %w", i, err)
			}
		}
		return b.control("--dump", p)
	}()
	b.hc.CloseIdleConnections()
	// Nothing after the dump is measured: kill, no shutdown (callgrind
	// also asserts on some signal deliveries to a Go program, SIGINT to
	// toolgate serve among them).
	_ = p.cmd.Process.Kill()
	<-p.exited
	if err != nil {
		return 0, fmt.Errorf("%w (log: %s)", err, p.log)
	}
	dump := p.out + ".1" // callgrind numbers the dumps after the output file
	f, err := os.Open(dump)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	n, err := total(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", dump, err)
	}
	return n, nil
}

// control sends callgrind_control's command (--zero, --dump) to p and
// waits for callgrind to have carried it out: callgrind_control talks to
// valgrind's gdbserver through vgdb, which returns once the command ran.
func (b *bench) control(command string, p *process) error {
	out, err := exec.Command(b.o.control, command, strconv.Itoa(p.cmd.Process.Pid)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		return fmt.Errorf("%s %s: %v: %s", b.o.control, command, err, out)
	}
	return nil
}

// process is a started server.
type process struct {
	cmd      *exec.Cmd
	out, log string
	exited   chan struct{}
}

// startProcess starts bin with args, under callgrind when wrap, its
// output to a log in the work directory.
func (b *bench) startProcess(name string, wrap bool, bin string, args ...string) (*process, error) {
	b.runs++
	base := filepath.Join(b.work, fmt.Sprintf("%s-%d", name, b.runs))
	p := &process{out: base + ".callgrind", log: base + ".log", exited: make(chan struct{})}
	if wrap {
		args = append([]string{"--tool=callgrind", "--callgrind-out-file=" + p.out,
			"--dump-line=no", "--dump-instr=no", "--compress-strings=no", "--compress-pos=no", bin}, args...)
		bin = b.o.valgrind
	}
	logf, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	p.cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS="+strconv.Itoa(b.o.procs))
	if wrap && b.o.gogc != "" {
		p.cmd.Env = append(p.cmd.Env, "GOGC="+b.o.gogc)
	}
	if err := p.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, err
	}
	go func() { _ = p.cmd.Wait(); _ = logf.Close(); close(p.exited) }()
	return p, nil
}

func (b *bench) startToolgate(state, addr string, wrap bool) (*process, error) {
	return b.startProcess("toolgate", wrap, b.o.toolgate, "serve", "--manifests", filepath.Join(b.o.root, "config/samples"),
		"--state", state, "--tokens", filepath.Join(b.o.root, "examples/standalone/tokens.yaml"),
		"--listen", addr, "--decision-log", os.DevNull, "--audit-log", "off")
}

// stop interrupts a process not under callgrind and waits for it.
func (p *process) stop() error {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(3 * time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s did not stop on SIGINT", p.cmd.Path)
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Errorf("%s ended by signal %s", p.cmd.Path, ws.Signal())
	}
	return nil
}

// waitUp waits until addr accepts connections (a server starts slowly
// under callgrind) or the process exits.
func waitUp(addr string, p *process) error {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before it listened", p.cmd.Path)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s after 5 minutes", addr)
}

func (b *bench) post(url string, body []byte) error {
	resp, err := b.hc.Post(url, "application/json", strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s %s", url, resp.Status, raw)
	}
	return nil
}

// ids gives request i its own identities, the same length for every i so
// that each request is the same work.
func ids(req client.AuthorizeRequest, i int) client.AuthorizeRequest {
	id := fmt.Sprintf("instr-%07d", i)
	req.DecisionID, req.AuthorizationID, req.ReplayID, req.ConsumptionID = "decision-"+id, "authz-"+id, "replay-"+id, "consumption-"+id
	req.MaxLifetimeSeconds = 300 // the samples' maximum: outlives a run under callgrind
	return req
}

// authorize sends request i and checks the outcome: "issued" (an
// artifact) or "refused" (a deny, no artifact).
func (b *bench) authorize(addr string, req client.AuthorizeRequest, i int, want string) (*client.Authorization, error) {
	resp, err := client.New("http://"+addr, agentToken, b.hc).Authorize(context.Background(), ids(req, i))
	if err != nil {
		return nil, err
	}
	switch {
	case want == "issued" && resp.Authorization == nil:
		return nil, fmt.Errorf("no Authorization issued (decision %s, ineligible %+v)", resp.Decision.Outcome, resp.Ineligible)
	case want == "refused" && (resp.Authorization != nil || resp.Decision.Outcome != "deny"):
		return nil, fmt.Errorf("decision %s, want a deny", resp.Decision.Outcome)
	}
	return resp.Authorization, nil
}

// issue authorizes k allowed requests and returns their artifacts.
func (b *bench) issue(addr string, k int) (any, error) {
	as := make([]string, k)
	for i := range k {
		a, err := b.authorize(addr, b.allow, i, "issued")
		if err != nil {
			return nil, fmt.Errorf("authorize %d: %w", i, err)
		}
		as[i] = a.Artifact
	}
	return as, nil
}

// expectation is request i's ValidateRequest for its artifact.
func (b *bench) expectation(artifacts any, i int) client.ValidateRequest {
	id := ids(b.allow, i)
	e := b.expect
	e.AuthorizationID, e.ReplayID, e.ConsumptionID = id.AuthorizationID, id.ReplayID, id.ConsumptionID
	return client.ValidateRequest{Artifact: artifacts.([]string)[i], Expectations: e}
}

func (b *bench) consume(addr string, artifacts any, i int) error {
	_, err := client.New("http://"+addr, executorToken, b.hc).Consume(context.Background(), b.expectation(artifacts, i))
	return err
}

func (b *bench) validate(addr string, artifacts any, i int) error {
	_, err := client.New("http://"+addr, executorToken, b.hc).Validate(context.Background(), b.expectation(artifacts, i))
	return err
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

// commitOf is root's HEAD, abbreviated, with "-dirty" for uncommitted
// changes; "unknown" outside a git checkout.
func commitOf(root string) string {
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty", "--abbrev=12", "--exclude=*").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// mcpSession is an MCP client session and, for the gateway, the calls
// with their Authorizations.
type mcpSession struct {
	cs     *mcp.ClientSession
	params []*mcp.CallToolParams
}

// session connects an MCP client to addr/mcp and lists its tools.
func (b *bench) session(addr string, params []*mcp.CallToolParams) (any, error) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "instructions", Version: "v1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", DisableStandaloneSSE: true, HTTPClient: b.hc}, nil)
	if err != nil {
		return nil, err
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		return nil, err
	}
	return &mcpSession{cs: cs, params: params}, nil
}

func (s *mcpSession) call(p *mcp.CallToolParams) error {
	res, err := s.cs.CallTool(context.Background(), p)
	if err != nil {
		return err
	}
	if code, _, refused := mcpclient.Refusal(res); refused {
		return fmt.Errorf("refused: %s", code)
	}
	if res.IsError {
		return errors.New("the tool answered an error")
	}
	return nil
}

// prepareGateway starts, not measured, the toolgate service and the
// upstream the gateway stands between (as hack/mcpbench/run.sh does),
// writes the gateway's configuration into state, and obtains k
// Authorizations for the gated calls.
func (b *bench) prepareGateway(state string, k int) (any, error) {
	svcAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	upAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	svcState := filepath.Join(state, "service")
	if err := os.Mkdir(svcState, 0o700); err != nil {
		return nil, err
	}
	svc, err := b.startToolgate(svcState, svcAddr, false)
	if err != nil {
		return nil, err
	}
	b.cleanups = append(b.cleanups, svc.stop)
	up, err := b.startProcess("upstream", false, b.o.upstream, "--listen", upAddr, "--effects", filepath.Join(state, "effects"))
	if err != nil {
		return nil, err
	}
	b.cleanups = append(b.cleanups, up.stop)
	b.upstreamURL = "http://" + upAddr + "/mcp"
	token := filepath.Join(state, "executor.token")
	if err := os.WriteFile(token, []byte(executorToken+"\n"), 0o600); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(b.o.root, "config/mcp/gateway.yaml"))
	if err != nil {
		return nil, err
	}
	config := strings.NewReplacer("tokenFile: .state/mcp-executor.token", "tokenFile: "+token,
		"outcomeLog: .state/mcp-outcomes.jsonl", "outcomeLog: "+filepath.Join(state, "outcomes.jsonl"),
		"http://127.0.0.1:8080", "http://"+svcAddr).Replace(string(raw))
	if err := os.WriteFile(filepath.Join(state, "gateway.yaml"), []byte(config), 0o600); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		addr string
		p    *process
	}{{svcAddr, svc}, {upAddr, up}} {
		if err := waitUp(p.addr, p.p); err != nil {
			return nil, err
		}
	}
	agent := client.New("http://"+svcAddr, agentToken, b.hc)
	params := make([]*mcp.CallToolParams, k)
	for i := range k {
		req := ids(b.allow, i)
		req.Proposal.ProposalID = "proposal-" + req.AuthorizationID
		if params[i], err = mcpclient.Authorize(context.Background(), agent, req, "submit_payment"); err != nil {
			return nil, fmt.Errorf("authorize %d: %w", i, err)
		}
	}
	b.hc.CloseIdleConnections() // the service's shutdown need not wait for this client
	return params, nil
}
