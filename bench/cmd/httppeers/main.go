// Command httppeers compares toolgate's authorization service with OPA's
// server over HTTP on loopback (issue 18, item 4; `make bench-http-peers`).
// Both servers are started as separate processes and driven by the same
// pinned, independent load generator — vegeta, used as a library — in
// interleaved rounds at each client count: every round attacks each
// server once, so a change in the shared machine's load falls on all of
// them. It prints each attack, then the medians of req/s, p50 and p99 per
// server and client count and their ratios to OPA.
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
//     13 digests, an Ed25519-signed artifact, and the durable claim of the
//     three identities in the bbolt Consumption store (one fsync, shared
//     by concurrent requests) before the answer.
//   - toolgate-deny: the same service and request path on
//     examples/api/authorize-deny.json, which the policy refuses: every
//     step up to the decision and its digest, but no artifact, no signature
//     and no durable write — the work closest to OPA's.
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
	flag.Parse()
	if err := run(*opaBin, *tgBin, *root, *rounds, *dur, *clientsFlag); err != nil {
		log.Fatal(err)
	}
}

type server struct {
	name, work string
	targeter   vegeta.Targeter
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

	// OPA on the peer table's 20 rules.
	rules := bench.Generate(bench.Seed, 20)
	policy := filepath.Join(tmp, "peers.rego")
	if err := os.WriteFile(policy, []byte(bench.RegoModule(rules)), 0o600); err != nil {
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
	var opaBodies [][]byte
	for _, in := range bench.Inputs(bench.Seed, bench.NumInputs) {
		b, err := json.Marshal(map[string]any{"input": bench.InputDoc(in)})
		if err != nil {
			return err
		}
		opaBodies = append(opaBodies, b)
	}

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
	for _, a := range []string{opaAddr, tgAddr} {
		if err := waitUp(a); err != nil {
			return err
		}
	}

	prefix := "hp-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	servers := []server{
		{"opa", "OPA server, 20-rule generated Rego policy, POST /v1/data/peers/allow",
			rotating("http://"+opaAddr+"/v1/data/peers/allow", nil, opaBodies)},
		{"toolgate-issue", "toolgate authorize, allowed: auth, validation, decision, digests, Ed25519 artifact, durable bbolt claim (fsync)",
			fresh("http://"+tgAddr+"/v1/authorize", allow, prefix+"i-")},
		{"toolgate-deny", "toolgate authorize, refused by policy: auth, validation, decision and digest; no artifact, no write",
			fresh("http://"+tgAddr+"/v1/authorize", deny, prefix+"d-")},
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
	results := map[key][]vegeta.Metrics{}
	for r := range rounds {
		for _, c := range clients {
			for _, s := range servers {
				m, err := attack(s, c, dur)
				if err != nil {
					return err
				}
				results[key{s.name, c}] = append(results[key{s.name, c}], m)
				fmt.Printf("round %d  %-15s c=%-3d %8.0f req/s  p50 %-10s p99 %-10s success %.4f  codes %v  load %s\n",
					r+1, s.name, c, m.Throughput, m.Latencies.P50.Round(time.Microsecond), m.Latencies.P99.Round(time.Microsecond), m.Success, m.StatusCodes, loadavg())
			}
		}
	}
	fmt.Printf("\nmedians over %d rounds (ratio: toolgate's req/s over OPA's; latency ratios OPA's over toolgate's, so above 1 means toolgate is better)\n", rounds)
	fmt.Printf("%-15s %4s %10s %10s %10s %10s %10s %10s\n", "server", "c", "req/s", "p50", "p99", "× req/s", "× p50", "× p99")
	for _, c := range clients {
		opaM := median(results[key{"opa", c}])
		for _, s := range servers {
			m := median(results[key{s.name, c}])
			fmt.Printf("%-15s %4d %10.0f %10s %10s %10.2f %10.2f %10.2f\n", s.name, c, m.rate,
				m.p50.Round(time.Microsecond), m.p99.Round(time.Microsecond),
				m.rate/opaM.rate, float64(opaM.p50)/float64(m.p50), float64(opaM.p99)/float64(m.p99))
		}
	}
	return nil
}

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
	rate     float64
	p50, p99 time.Duration
}

func median(ms []vegeta.Metrics) summary {
	rates := make([]float64, len(ms))
	p50s := make([]time.Duration, len(ms))
	p99s := make([]time.Duration, len(ms))
	for i, m := range ms {
		rates[i], p50s[i], p99s[i] = m.Throughput, m.Latencies.P50, m.Latencies.P99
	}
	slices.Sort(rates)
	slices.Sort(p50s)
	slices.Sort(p99s)
	return summary{rates[len(ms)/2], p50s[len(ms)/2], p99s[len(ms)/2]}
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
