// Command loadgen measures the standalone authorization service on
// loopback: it serves the shipped samples in this process (bbolt
// Consumption store in a temporary directory), then drives authorize and
// consume with a fixed number of concurrent clients for a bounded number
// of requests and a bounded time, and prints throughput and latency
// percentiles. Every request goes through the kernel's TCP stack on
// 127.0.0.1; nothing leaves the machine.
//
//	go run ./hack/loadgen [-c 32] [-n 20000] [-d 20s] [-validate] [-cpuprofile FILE]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/standalone"
)

const (
	agentToken    = "dev-agent-runtime-token-4f8b2c1e9d7a"
	executorToken = "dev-payments-executor-token-7c3e5a9b1f2d"
)

func main() {
	conc := flag.Int("c", 32, "concurrent clients")
	n := flag.Int("n", 20000, "requests per phase (at most)")
	d := flag.Duration("d", 20*time.Second, "time per phase (at most)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of all phases to this file")
	validate := flag.Bool("validate", false, "validate each artifact before consuming it (an executor's check-then-commit)")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*conc, *n, *d, *validate); err != nil {
		log.Print(err)
		return
	}
}

func run(conc, n int, d time.Duration, validate bool) error {
	state, err := os.MkdirTemp("", "toolgate-loadgen-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(state) }()
	domains, err := standalone.Load(filepath.Join(state, "keys"), "config/samples")
	if err != nil {
		return err
	}
	var set server.StaticDomains
	if err := set.Replace(domains...); err != nil {
		return err
	}
	tokens, err := server.LoadTokens("examples/standalone/tokens.yaml")
	if err != nil {
		return err
	}
	store, err := boltstore.Open(filepath.Join(state, "consumptions"), boltstore.Options{})
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	decisions := server.NewDecisionLog(io.Discard, 8192, false)
	defer decisions.Close()
	srv, err := server.New(server.Config{Domains: &set, Auth: tokens, Store: store, Log: decisions})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Shutdown(context.Background()) }()
	base := "http://" + ln.Addr().String()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}

	var req client.AuthorizeRequest
	var exp client.Expectations
	if err := readJSON("examples/api/authorize-allow.json", &req); err != nil {
		return err
	}
	if err := readJSON("examples/api/expectations-allow.json", &exp); err != nil {
		return err
	}
	fmt.Printf("machine: %s/%s, %d CPUs, %s; %d clients, at most %d requests or %s per phase\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), conc, n, d)

	// Phase 1: authorize (each issues a signed artifact); the artifacts
	// feed phase 2.
	artifacts := make([]string, n)
	var issued atomic.Int64
	authorize := func(i int) (int, error) {
		r := req
		r.AuthorizationID = fmt.Sprintf("authz-%d", i)
		body, _ := json.Marshal(r)
		status, resp, err := post(hc, base+"/v1/authorize", agentToken, body)
		if err == nil && status == http.StatusOK {
			var res client.AuthorizeResponse
			if json.Unmarshal(resp, &res) == nil && res.Authorization != nil {
				artifacts[i] = res.Authorization.Artifact
				issued.Add(1)
			}
		}
		return status, err
	}
	if err := phase("authorize", conc, n, d, authorize); err != nil {
		return err
	}
	// Phase 2 (with -validate): validate each issued artifact, as an
	// executor does before it commits; phase 3: consume each once.
	body := func(i int) []byte {
		e := exp
		e.AuthorizationID = fmt.Sprintf("authz-%d", i)
		b, _ := json.Marshal(client.ValidateRequest{Artifact: artifacts[i], Expectations: e})
		return b
	}
	if validate {
		err := phase("validate", conc, int(issued.Load()), d, func(i int) (int, error) {
			if artifacts[i] == "" {
				return 0, nil
			}
			status, _, err := post(hc, base+"/v1/validate", executorToken, body(i))
			return status, err
		})
		if err != nil {
			return err
		}
	}
	consume := func(i int) (int, error) {
		if artifacts[i] == "" {
			return 0, nil
		}
		status, _, err := post(hc, base+"/v1/consume", executorToken, body(i))
		return status, err
	}
	return phase("consume", conc, int(issued.Load()), d, consume)
}

// phase runs f(0..n-1) on conc workers until n calls or d elapse, and
// prints the throughput and latency percentiles of the calls made.
func phase(name string, conc, n int, d time.Duration, f func(i int) (int, error)) error {
	var next atomic.Int64
	deadline := time.Now().Add(d)
	lat := make([][]time.Duration, conc)
	statuses := make([]map[int]int, conc)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conc {
		statuses[w] = map[int]int{}
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || time.Now().After(deadline) {
					return
				}
				t := time.Now()
				status, err := f(i)
				lat[w] = append(lat[w], time.Since(t))
				if err != nil {
					status = -1
				}
				statuses[w][status]++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	count := map[int]int{}
	for _, s := range statuses {
		for k, v := range s {
			count[k] += v
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("%s: no request completed", name)
	}
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	fmt.Printf("%-9s %7d requests in %6.2fs: %8.0f req/s  p50 %7s  p99 %7s  max %7s  statuses %v\n",
		name, len(all), elapsed.Seconds(), float64(len(all))/elapsed.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), all[len(all)-1].Round(time.Microsecond), count)
	return nil
}

func post(hc *http.Client, url, token string, body []byte) (int, []byte, error) {
	r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(r)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
