// Command httppeers compares toolgate's authorization service with OPA's
// server over HTTP on loopback (`make bench-http-peers`; docs/decisions.md,
// "The HTTP comparison with OPA"). Both servers are started as separate
// processes and driven by the same pinned, independent load generator —
// vegeta, used as a library — in interleaved rounds at each client count:
// every round attacks each server once, so a change in the shared machine's
// load falls on all of them. It prints each attack, then the medians of
// req/s, p50 and p99 per server and client count and their ratios to OPA.
//
// The servers and the work each request asks for:
//
//   - opa: `opa run --server` with the bench module's generated 20-rule
//     policy (the Rego of the peer table, package peers), answering POST
//     /v1/data/peers/allow for one of 64 generated inputs; no
//     authentication, no decision log.
//   - toolgate-issue: `toolgate serve` on the shipped samples, answering
//     POST /v1/authorize for examples/api/authorize-allow.json with fresh
//     identities per request: bearer-token authentication, strict decoding,
//     argument validation and canonicalization, the policy decision, about
//     13 digests, an Ed25519-signed artifact, and a read of the bbolt
//     Consumption store (are its three identities held?) before the
//     answer; nothing durable is written.
//   - toolgate-deny: the same service and request path on
//     examples/api/authorize-deny.json, which the policy refuses: every
//     step up to the decision and its digest, but no artifact, no signature
//     and no durable write — the work closest to OPA's.
//   - go-http-floor: this command re-executed as a minimal net/http server
//     that reads OPA's request body and answers a fixed 15-octet JSON
//     document: no decoding, no decision. It is the ceiling any Go HTTP
//     service reaches on this machine under this generator, and the floor
//     of its CPU per request, so the other rows can be read against what
//     the HTTP round trip alone costs here.
//
// Each row also reports the server process's CPU time (user + system,
// /proc/PID/stat) divided by the requests it answered in the attack.
//
// Both services run with their request logs off (toolgate: --decision-log
// /dev/null, --audit-log off).
package main

import (
	"bytes"
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/toolgate/toolgate/bench"
	"github.com/toolgate/toolgate/hack/procstat"
)

// The development token of examples/standalone/tokens.yaml.
const agentToken = "dev-agent-runtime-token-4f8b2c1e9d7a"

func main() {
	opaBin := flag.String("opa", "", "OPA binary (built from the bench module's pinned version)")
	tgBin := flag.String("toolgate", "", "toolgate binary")
	root := flag.String("root", "..", "the toolgate repository (config/samples, examples/)")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	dur := flag.Duration("d", 5*time.Second, "duration of each attack")
	clientsFlag := flag.String("clients", "4,16", "client counts (each one keep-alive connection, requests back to back)")
	floor := flag.String("serve-floor", "", "only serve the go-http-floor row's minimal handler on this loopback address (used by the command itself and hack/instructions)")
	opaDir := flag.String("write-opa", "", "only write the opa row's policy (peers.rego) and request bodies (requests.jsonl, one a line) to this directory (for hack/instructions)")
	flag.Parse()
	if *floor != "" {
		log.Fatal(serveFloor(*floor))
	}
	if *opaDir != "" {
		if _, _, err := writeOPA(*opaDir); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*opaBin, *tgBin, *root, *rounds, *dur, *clientsFlag); err != nil {
		log.Fatal(err)
	}
}

type server struct {
	name, work string
	targeter   vegeta.Targeter
	pid        int
}

// floorAnswer is the go-http-floor row's whole response body.
const floorAnswer = `{"result":true}`

// serveFloor is the go-http-floor row: net/http with the defaults, one
// handler that reads the body and writes a constant.
func serveFloor(addr string) error {
	return http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, floorAnswer)
	}))
}

func run(opaBin, tgBin, root string, rounds int, dur time.Duration, clientsFlag string) error {
	if opaBin == "" || tgBin == "" {
		return errors.New("-opa and -toolgate are required")
	}
	var clients []int
	for f := range strings.SplitSeq(clientsFlag, ",") {
		c, err := strconv.Atoi(f)
		if err != nil || c < 1 {
			return fmt.Errorf("-clients: %q is not a positive count", f)
		}
		clients = append(clients, c)
	}
	tmp, err := os.MkdirTemp("", "httppeers-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()

	policy, opaBodies, err := writeOPA(tmp)
	if err != nil {
		return err
	}
	opaAddr, err := freeAddr()
	if err != nil {
		return err
	}
	opa, err := start(opaBin, "run", "--server", "--addr", opaAddr, "--log-level", "error", policy)
	if err != nil {
		return err
	}
	defer stop(opa)

	// toolgate on the shipped samples.
	tgAddr, err := freeAddr()
	if err != nil {
		return err
	}
	tg, err := start(tgBin, "serve", "--manifests", filepath.Join(root, "config/samples"),
		"--state", filepath.Join(tmp, "state"), "--tokens", filepath.Join(root, "examples/standalone/tokens.yaml"),
		"--listen", tgAddr, "--decision-log", os.DevNull, "--audit-log", "off")
	if err != nil {
		return err
	}
	defer stop(tg)
	allow, err := os.ReadFile(filepath.Join(root, "examples/api/authorize-allow.json"))
	if err != nil {
		return err
	}
	deny, err := os.ReadFile(filepath.Join(root, "examples/api/authorize-deny.json"))
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	floorAddr, err := freeAddr()
	if err != nil {
		return err
	}
	floor, err := start(self, "-serve-floor", floorAddr)
	if err != nil {
		return err
	}
	defer stop(floor)
	for _, a := range []string{opaAddr, tgAddr, floorAddr} {
		if err := waitUp(a); err != nil {
			return err
		}
	}

	prefix := "hp-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	servers := []server{
		{"opa", "OPA server, 20-rule generated Rego policy, POST /v1/data/peers/allow",
			rotating("http://"+opaAddr+"/v1/data/peers/allow", nil, opaBodies), opa.Process.Pid},
		{"toolgate-issue", "toolgate authorize, allowed: auth, validation, decision, digests, Ed25519 artifact, durable bbolt claim (fsync)",
			fresh("http://"+tgAddr+"/v1/authorize", allow, prefix+"i-"), tg.Process.Pid},
		{"toolgate-deny", "toolgate authorize, refused by policy: auth, validation, decision and digest; no artifact, no write",
			fresh("http://"+tgAddr+"/v1/authorize", deny, prefix+"d-"), tg.Process.Pid},
		{"go-http-floor", "net/http, defaults, reads OPA's request body and writes a constant: the HTTP round trip alone",
			rotating("http://"+floorAddr+"/", nil, opaBodies), floor.Process.Pid},
	}
	fmt.Printf("machine: %s/%s, %d CPUs, %s; load average %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), loadavg())
	fmt.Printf("load generator: vegeta v12.13.0 (library), one keep-alive connection per client, requests back to back, %s per attack, %d interleaved rounds\n", dur, rounds)
	for _, s := range servers {
		fmt.Printf("  %-15s %s\n", s.name, s.work)
	}
	type key struct {
		server string
		c      int
	}
	results := map[key][]result{}
	for r := range rounds {
		for _, c := range clients {
			for _, s := range servers {
				before, err := procstat.CPUTime(s.pid)
				if err != nil {
					return err
				}
				m, err := attack(s, c, dur)
				if err != nil {
					return err
				}
				after, err := procstat.CPUTime(s.pid)
				if err != nil {
					return err
				}
				res := result{m, (after - before) / time.Duration(m.Requests)}
				results[key{s.name, c}] = append(results[key{s.name, c}], res)
				fmt.Printf("round %d  %-15s c=%-3d %8.0f req/s  p50 %-10s p99 %-10s cpu %6.1f µs/req  success %.4f  codes %v  load %s\n",
					r+1, s.name, c, m.Throughput, m.Latencies.P50.Round(time.Microsecond), m.Latencies.P99.Round(time.Microsecond),
					micros(res.cpu), m.Success, m.StatusCodes, loadavg())
			}
		}
	}
	fmt.Printf("\nmedians over %d rounds (ratios: a server's req/s over OPA's; latency ratios OPA's over the server's, so above 1 means better than OPA;\n", rounds)
	fmt.Printf("cpu: the server process's CPU time per request; \"floor\" columns divide by go-http-floor's)\n")
	fmt.Printf("%-15s %4s %9s %9s %9s %9s %8s %8s %8s %10s %10s\n", "server", "c", "req/s", "p50", "p99", "cpu µs", "× req/s", "× p50", "× p99", "req/s÷flr", "cpu÷flr")
	for _, c := range clients {
		opaM := median(results[key{"opa", c}])
		floorM := median(results[key{"go-http-floor", c}])
		for _, s := range servers {
			m := median(results[key{s.name, c}])
			fmt.Printf("%-15s %4d %9.0f %9s %9s %9.1f %8.2f %8.2f %8.2f %10.2f %10.2f\n", s.name, c, m.rate,
				m.p50.Round(time.Microsecond), m.p99.Round(time.Microsecond), micros(m.cpu),
				m.rate/opaM.rate, float64(opaM.p50)/float64(m.p50), float64(opaM.p99)/float64(m.p99),
				m.rate/floorM.rate, float64(m.cpu)/float64(floorM.cpu))
		}
	}
	return nil
}

// writeOPA writes the opa row's policy, the peer table's 20 generated
// rules, to dir/peers.rego and its bench.NumInputs request bodies to
// dir/requests.jsonl, and returns the policy's path and the bodies.
func writeOPA(dir string) (string, [][]byte, error) {
	policy := filepath.Join(dir, "peers.rego")
	if err := os.WriteFile(policy, []byte(bench.RegoModule(bench.Generate(bench.Seed, 20))), 0o600); err != nil {
		return "", nil, err
	}
	var bodies [][]byte
	for _, in := range bench.Inputs(bench.Seed, bench.NumInputs) {
		b, err := json.Marshal(map[string]any{"input": bench.InputDoc(in)})
		if err != nil {
			return "", nil, err
		}
		bodies = append(bodies, b)
	}
	lines := append(bytes.Join(bodies, []byte("\n")), '\n')
	if err := os.WriteFile(filepath.Join(dir, "requests.jsonl"), lines, 0o600); err != nil {
		return "", nil, err
	}
	return policy, bodies, nil
}

// result is one attack's metrics and the server's CPU time per request.
type result struct {
	m   vegeta.Metrics
	cpu time.Duration
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// attack drives s from c workers, each with its own connection and one
// request in flight, for d; a non-2xx answer or an error fails the run
// (toolgate's deny is a 200 with a refused decision).
func attack(s server, c int, d time.Duration) (vegeta.Metrics, error) {
	a := vegeta.NewAttacker(vegeta.Workers(uint64(c)), vegeta.MaxWorkers(uint64(c)), vegeta.Connections(c),
		vegeta.MaxConnections(c), vegeta.KeepAlive(true), vegeta.HTTP2(false), vegeta.Timeout(10*time.Second))
	var m vegeta.Metrics
	for res := range a.Attack(s.targeter, vegeta.ConstantPacer{}, d, s.name) {
		m.Add(res)
	}
	m.Close()
	if m.Success < 1 {
		return m, fmt.Errorf("%s at %d clients: success ratio %.4f, status codes %v, errors %v", s.name, c, m.Success, m.StatusCodes, m.Errors)
	}
	return m, nil
}

// rotating cycles through bodies.
func rotating(url string, header http.Header, bodies [][]byte) vegeta.Targeter {
	var n atomic.Uint64
	return func(t *vegeta.Target) error {
		i := n.Add(1) - 1
		*t = vegeta.Target{Method: http.MethodPost, URL: url, Header: header, Body: bodies[i%uint64(len(bodies))]}
		return nil
	}
}

// fresh renders the authorize request example with fresh identities for
// every request: an identity backs one Authorization, and a repeated one
// would be an idempotent replay, not the work measured.
func fresh(url string, example []byte, prefix string) vegeta.Targeter {
	var doc map[string]any
	if err := json.Unmarshal(example, &doc); err != nil {
		panic(err)
	}
	marker := "\x00id\x00"
	doc["authorizationID"], doc["replayID"], doc["consumptionID"], doc["decisionID"] = marker, "replay-"+marker, "consumption-"+marker, "decision-"+marker
	tmpl, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	enc, _ := json.Marshal(marker)
	parts := bytes.Split(tmpl, enc[1:len(enc)-1])
	header := http.Header{"Authorization": {"Bearer " + agentToken}, "Content-Type": {"application/json"}}
	var n atomic.Uint64
	return func(t *vegeta.Target) error {
		id := prefix + strconv.FormatUint(n.Add(1), 36)
		body := bytes.Join(parts, []byte(id))
		*t = vegeta.Target{Method: http.MethodPost, URL: url, Header: header, Body: body}
		return nil
	}
}

type summary struct {
	rate          float64
	p50, p99, cpu time.Duration
}

// median takes each column's median on its own.
func median(rs []result) summary {
	rates := make([]float64, len(rs))
	p50s := make([]time.Duration, len(rs))
	p99s := make([]time.Duration, len(rs))
	cpus := make([]time.Duration, len(rs))
	for i, r := range rs {
		rates[i], p50s[i], p99s[i], cpus[i] = r.m.Throughput, r.m.Latencies.P50, r.m.Latencies.P99, r.cpu
	}
	slices.Sort(rates)
	slices.Sort(p50s)
	slices.Sort(p99s)
	slices.Sort(cpus)
	return summary{rates[len(rs)/2], p50s[len(rs)/2], p99s[len(rs)/2], cpus[len(rs)/2]}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

func start(bin string, args ...string) (*exec.Cmd, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	return cmd, cmd.Start()
}

func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// waitUp waits until addr accepts connections.
func waitUp(addr string) error {
	for range 300 {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s after 30s", addr)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
