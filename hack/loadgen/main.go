// Command loadgen measures the authorization service on loopback, as wrk,
// hey or vegeta do: every request body is rendered before a phase starts
// (a unique authorization ID per request, substituted into a template of
// the shipped example), each client sends its requests one after the other
// over one persistent HTTP/1.1 connection with a single write each, and
// reads back only the status and, on authorize, the artifact string that
// the consume phase presents. The measured loop does no JSON work, so the
// CPU goes to the service.
//
// By default it serves the shipped samples in this same process (bbolt
// Consumption store in a temporary directory, decision log discarded).
// With -target it drives a service started separately, for example
//
//	bin/toolgate serve --standalone --manifests config/samples --state DIR \
//	  --tokens examples/standalone/tokens.yaml --decision-log /dev/null
//	go run ./hack/loadgen -target http://127.0.0.1:8080
//
// Phases: authorize (each issues a signed artifact), then with -validate a
// validate of each issued artifact, then a consume of each. Every phase
// stops after -n requests or -d, whichever comes first. Nothing leaves the
// machine: -target must be a plain-HTTP loopback URL.
//
//	go run ./hack/loadgen [-c 32] [-n 20000] [-d 20s] [-validate] [-cpuprofile FILE] [-state DIR]
//	                      [-target URL] [-server-pid PID] [-agent-token T] [-executor-token T] [-id-prefix P]
//
// With -serve ADDR it only serves (for -d, or until interrupted), so that
// the service can be profiled in a process of its own (-cpuprofile) while
// another loadgen drives it with -target. With -server-pid PID (Linux) each
// phase also prints the CPU time that process spent (user + system, from
// /proc/PID/stat) divided by the requests of the phase: the service's CPU
// per request, which a shared host disturbs far less than its latency.
// With -pprof URL (the service's --pprof-listen, on loopback) each phase
// also writes that process's CPU profile and allocation profile over the
// phase's -d to -profile-dir as PHASE.cpu.pprof and PHASE.allocs.pprof
// (the allocations made during the phase only); `make profile` writes the
// committed baseline this way (docs/profiles).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/hack/procstat"
	"github.com/toolgate/toolgate/internal/consume/boltstore"
	"github.com/toolgate/toolgate/internal/server"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
)

// The development tokens of examples/standalone/tokens.yaml.
const (
	devAgentToken    = "dev-agent-runtime-token-4f8b2c1e9d7a"
	devExecutorToken = "dev-payments-executor-token-7c3e5a9b1f2d"
)

type options struct {
	conc                      int
	n                         int
	d                         time.Duration
	validate                  bool
	target                    string
	agentToken, executorToken string
	idPrefix                  string
	serve                     string
	serverPID                 int
	stateParent               string
	pprof, profileDir         string
}

func main() {
	var o options
	flag.IntVar(&o.conc, "c", 32, "concurrent clients (one keep-alive connection each)")
	flag.IntVar(&o.n, "n", 20000, "requests per phase (at most)")
	flag.DurationVar(&o.d, "d", 20*time.Second, "time per phase (at most)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of all phases to this file (of this process)")
	flag.BoolVar(&o.validate, "validate", false, "validate each artifact before consuming it (an executor's check-then-commit)")
	flag.StringVar(&o.target, "target", "", "base URL of a separately started service (http://127.0.0.1:PORT); default: serve in this process")
	flag.StringVar(&o.agentToken, "agent-token", devAgentToken, "bearer token of the agent runtime (authorize)")
	flag.StringVar(&o.executorToken, "executor-token", devExecutorToken, "bearer token of the executor (validate, consume)")
	flag.StringVar(&o.serve, "serve", "", "only serve the samples on this loopback address (host:port) for -d, then exit: a separately profiled service (-cpuprofile) for another loadgen's -target")
	flag.IntVar(&o.serverPID, "server-pid", 0, "with -target: the service's process ID; each phase prints that process's CPU time per request (Linux /proc)")
	flag.StringVar(&o.stateParent, "state", "", "directory to hold the in-process service's temporary state (the bbolt file); default: the system's temporary directory. On a tmpfs (/dev/shm) the fsync costs nothing: the service's CPU apart from the disk's")
	flag.StringVar(&o.pprof, "pprof", "", "with -target: the service's pprof listener (http://127.0.0.1:PORT); each phase writes that process's CPU and allocation profiles over -d (whole seconds; give an -n the phase does not reach first) to -profile-dir")
	flag.StringVar(&o.profileDir, "profile-dir", ".", "directory for -pprof's PHASE.cpu.pprof and PHASE.allocs.pprof")
	flag.StringVar(&o.idPrefix, "id-prefix", "", "prefix of the authorization IDs (default: unique per run, so a long-running target never sees an ID twice)")
	flag.Parse()
	if o.idPrefix == "" {
		o.idPrefix = "authz-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	}
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
	if err := run(o); err != nil {
		log.Print(err)
		return
	}
}

func run(o options) error {
	if o.conc < 1 || o.n < 1 {
		return errors.New("-c and -n must be at least 1")
	}
	if o.serve != "" {
		if err := loopback(o.serve); err != nil {
			return err
		}
		a, stop, err := serveInProcess(o.serve, o.stateParent)
		if err != nil {
			return err
		}
		defer stop()
		fmt.Printf("serving on %s for %s\n", a, o.d)
		ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer cancel()
		select {
		case <-ctx.Done():
		case <-time.After(o.d):
		}
		return nil
	}
	addr, where := "", "in this process"
	if o.target == "" {
		a, stop, err := serveInProcess("127.0.0.1:0", o.stateParent)
		if err != nil {
			return err
		}
		defer stop()
		addr = a
	} else {
		u, err := url.Parse(o.target)
		if err != nil || u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return errors.New("-target is a plain-HTTP base URL such as http://127.0.0.1:8080")
		}
		if err := loopback(u.Host); err != nil {
			return err
		}
		addr, where = u.Host, "at "+o.target
	}
	var prof *profiler
	if o.pprof != "" {
		var err error
		if prof, err = newProfiler(o); err != nil {
			return err
		}
	}

	authorizeTmpl, err := authorizeTemplate()
	if err != nil {
		return err
	}
	consumeTmpl, err := validateTemplate()
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s/%s, %d CPUs, %s; service %s; %d clients, at most %d requests or %s per phase\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), where, o.conc, o.n, o.d)

	// Phase 1: authorize (each issues a signed artifact); the artifacts
	// feed the later phases.
	reqs := make([][]byte, o.n)
	for i := range reqs {
		body := authorizeTmpl.render(o.idPrefix+strconv.Itoa(i), "")
		reqs[i] = request(addr, "/v1/authorize", o.agentToken, body)
	}
	artifacts := make([]string, o.n)
	var issued atomic.Int64
	err = phase("authorize", addr, prof, o.serverPID, o.conc, o.n, o.d, func(i int) []byte { return reqs[i] }, func(i, status int, body []byte) {
		if status != http.StatusOK {
			return
		}
		if a := artifactOf(body); a != "" {
			artifacts[i] = a
			issued.Add(1)
		}
	})
	if err != nil {
		return err
	}
	// Phase 2 (with -validate): validate each issued artifact, as an
	// executor does before it commits; phase 3: consume each once.
	var valid []int // the request indices that carry an artifact
	for i, a := range artifacts {
		if a != "" {
			valid = append(valid, i)
		}
	}
	if len(valid) == 0 {
		return errors.New("authorize issued no artifact")
	}
	bodies := make([][]byte, len(valid))
	for k, i := range valid {
		bodies[k] = consumeTmpl.render(o.idPrefix+strconv.Itoa(i), artifacts[i])
	}
	for _, verb := range []string{"validate", "consume"} {
		if verb == "validate" && !o.validate {
			continue
		}
		reqs := make([][]byte, len(bodies))
		for k, b := range bodies {
			reqs[k] = request(addr, "/v1/"+verb, o.executorToken, b)
		}
		if err := phase(verb, addr, prof, o.serverPID, o.conc, len(reqs), o.d, func(k int) []byte { return reqs[k] }, nil); err != nil {
			return err
		}
	}
	return nil
}

// loopback requires addr (host:port) to be a loopback address: nothing
// leaves the machine.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("an address is host:port")
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("only loopback addresses: nothing leaves the machine")
	}
	return nil
}

// serveInProcess serves the shipped samples on addr (loopback) in this
// process, configured as `toolgate serve --standalone` configures it, its
// state in a new directory under parent ("": the temporary directory).
func serveInProcess(addr, parent string) (string, func(), error) {
	state, err := os.MkdirTemp(parent, "toolgate-loadgen-")
	if err != nil {
		return "", nil, err
	}
	var closers []func()
	stop := func() {
		for _, c := range slices.Backward(closers) {
			c()
		}
	}
	closers = append(closers, func() { _ = os.RemoveAll(state) })
	fail := func(err error) (string, func(), error) { stop(); return "", nil, err }
	domains, err := standalone.Load(filepath.Join(state, "keys"), "config/samples")
	if err != nil {
		return fail(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(domains...); err != nil {
		return fail(err)
	}
	tokens, err := server.LoadTokens("examples/standalone/tokens.yaml")
	if err != nil {
		return fail(err)
	}
	store, err := boltstore.Open(filepath.Join(state, "consumptions"), boltstore.Options{})
	if err != nil {
		return fail(err)
	}
	closers = append(closers, func() { _ = store.Close() })
	decisions := server.NewDecisionLog(io.Discard, 8192, false)
	closers = append(closers, decisions.Close)
	srv, err := server.New(server.Config{Domains: &set, Auth: tokens, Store: store, Log: decisions})
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fail(err)
	}
	hs := server.NewHTTPServer(srv.Handler(), nil, server.DefaultTimeouts(), nil)
	go func() { _ = hs.Serve(ln) }()
	closers = append(closers, func() { _ = hs.Shutdown(context.Background()) })
	return ln.Addr().String(), stop, nil
}

// template is a JSON body with up to two string placeholders, rendered by
// concatenation: no encoding in the measured loop.
type template struct{ parts [][]byte } // text, id, text[, artifact, text]

const (
	idMark       = "\x00id\x00"
	artifactMark = "\x00artifact\x00"
)

// newTemplate marshals v, whose placeholders are idMark and artifactMark
// (encoding/json writes them as \u0000 escapes), and splits it at them.
func newTemplate(v any) (*template, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	quote := func(s string) []byte { b, _ := json.Marshal(s); return b[1 : len(b)-1] }
	t := &template{}
	for len(raw) > 0 {
		i, j := bytes.Index(raw, quote(idMark)), bytes.Index(raw, quote(artifactMark))
		switch {
		case i < 0 && j < 0:
			t.parts = append(t.parts, raw)
			raw = nil
		case j < 0 || (i >= 0 && i < j):
			t.parts = append(t.parts, raw[:i], []byte(idMark))
			raw = raw[i+len(quote(idMark)):]
		default:
			t.parts = append(t.parts, raw[:j], []byte(artifactMark))
			raw = raw[j+len(quote(artifactMark)):]
		}
	}
	return t, nil
}

// render substitutes id and artifact, which need no JSON escaping (IDs are
// lower tokens, artifacts base64url and dots).
func (t *template) render(id, artifact string) []byte {
	var out []byte
	for _, p := range t.parts {
		switch string(p) {
		case idMark:
			out = append(out, id...)
		case artifactMark:
			out = append(out, artifact...)
		default:
			out = append(out, p...)
		}
	}
	return out
}

func authorizeTemplate() (*template, error) {
	var req client.AuthorizeRequest
	if err := readJSON("examples/api/authorize-allow.json", &req); err != nil {
		return nil, err
	}
	// Every identity fresh per request: an identity backs one Authorization per
	// domain (docs/decisions.md, "Idempotent authorize and durable
	// identities").
	req.AuthorizationID, req.ReplayID, req.ConsumptionID = idMark, "replay-"+idMark, "consumption-"+idMark
	return newTemplate(req)
}

func validateTemplate() (*template, error) {
	var exp client.Expectations
	if err := readJSON("examples/api/expectations-allow.json", &exp); err != nil {
		return nil, err
	}
	exp.AuthorizationID, exp.ReplayID, exp.ConsumptionID = idMark, "replay-"+idMark, "consumption-"+idMark
	return newTemplate(client.ValidateRequest{Artifact: artifactMark, Expectations: exp})
}

// request renders one complete HTTP/1.1 request: sent with one write.
func request(addr, path, token string, body []byte) []byte {
	b := make([]byte, 0, len(body)+256)
	b = append(b, "POST "+path+" HTTP/1.1\r\nHost: "+addr+
		"\r\nUser-Agent: toolgate-loadgen\r\nContent-Type: application/json\r\nAuthorization: Bearer "+token+
		"\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}

// artifactOf returns the artifact of an authorize response body: the
// string after the only "artifact" member name. The service writes it as
// encoding/json does, and an artifact (base64url and dots) is never escaped.
func artifactOf(body []byte) string {
	const name = `"artifact":"`
	i := bytes.Index(body, []byte(name))
	if i < 0 {
		return ""
	}
	rest := body[i+len(name):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// conn is one persistent HTTP/1.1 client connection.
type conn struct {
	addr string
	c    net.Conn
	r    *bufio.Reader
	body []byte
}

// do sends one rendered request and reads the response: its status and
// body (valid until the next call). A connection the server closes, or
// asks to close, is dialled again for the next request.
func (c *conn) do(req []byte) (int, []byte, error) {
	if c.c == nil {
		nc, err := net.Dial("tcp", c.addr)
		if err != nil {
			return 0, nil, err
		}
		c.c = nc
		if c.r == nil {
			c.r = bufio.NewReaderSize(nc, 16<<10)
		} else {
			c.r.Reset(nc)
		}
	}
	status, body, keep, err := c.roundTrip(req)
	if err != nil || !keep {
		_ = c.c.Close()
		c.c = nil
	}
	return status, body, err
}

func (c *conn) roundTrip(req []byte) (status int, body []byte, keep bool, err error) {
	if _, err := c.c.Write(req); err != nil {
		return 0, nil, false, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, nil, false, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, nil, false, fmt.Errorf("malformed status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, false, fmt.Errorf("malformed status line %q", line)
	}
	keep = line[7] == '1'
	length, chunked := -1, false
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, nil, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, nil, false, fmt.Errorf("malformed header line %q", line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return 0, nil, false, fmt.Errorf("malformed Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
			if !chunked {
				return 0, nil, false, fmt.Errorf("unsupported Transfer-Encoding %q", value)
			}
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				keep = false
			}
		}
	}
	c.body = c.body[:0]
	switch {
	case chunked:
		if err := c.readChunked(); err != nil {
			return 0, nil, false, err
		}
	case length >= 0:
		c.body = slices.Grow(c.body, length)[:length]
		if _, err := io.ReadFull(c.r, c.body); err != nil {
			return 0, nil, false, err
		}
	default: // the body runs to the end of the connection
		b, err := io.ReadAll(c.r)
		if err != nil {
			return 0, nil, false, err
		}
		c.body, keep = b, false
	}
	return status, c.body, keep, nil
}

func (c *conn) readChunked() error {
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseUint(string(size), 16, 31)
		if err != nil {
			return fmt.Errorf("malformed chunk size %q", size)
		}
		if n == 0 {
			for { // trailers, up to the empty line
				line, err := c.r.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return nil
				}
			}
		}
		start := len(c.body)
		c.body = slices.Grow(c.body, int(n))[:start+int(n)]
		if _, err := io.ReadFull(c.r, c.body[start:]); err != nil {
			return err
		}
		if _, err := c.r.Discard(2); err != nil { // CRLF
			return err
		}
	}
}

// phase sends req(0..n-1) from conc clients until n requests or d elapse,
// hands each response to seen (when not nil), and prints the throughput
// and latency percentiles of the requests made. With prof, the service's
// profiles are taken over the phase.
func phase(name, addr string, prof *profiler, pid, conc, n int, d time.Duration, req func(i int) []byte, seen func(i, status int, body []byte)) error {
	var next atomic.Int64
	lat := make([][]time.Duration, conc)
	statuses := make([]map[int]int, conc)
	conns := make([]*conn, conc)
	for w := range conc {
		statuses[w] = map[int]int{}
		lat[w] = make([]time.Duration, 0, n/conc+1)
		conns[w] = &conn{addr: addr}
	}
	defer func() {
		for _, c := range conns {
			if c.c != nil {
				_ = c.c.Close()
			}
		}
	}()
	cpu0, err := cpuTime(pid)
	if err != nil {
		return err
	}
	profiled := prof.start(name)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := range conc {
		wg.Go(func() {
			c := conns[w]
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t := time.Now()
				if t.After(deadline) {
					return
				}
				status, body, err := c.do(req(i))
				lat[w] = append(lat[w], time.Since(t))
				if err != nil {
					status = -1
				}
				statuses[w][status]++
				if seen != nil && err == nil {
					seen(i, status, body)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := cpuTime(pid)
	if err != nil {
		return err
	}
	if err := profiled(); err != nil {
		return err
	}
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
	if pid != 0 {
		fmt.Printf("%-9s server CPU %.2fs: %6.1f µs per request\n", name, (cpu1 - cpu0).Seconds(),
			float64((cpu1-cpu0).Microseconds())/float64(len(all)))
	}
	return nil
}

// profiler fetches the service's profiles from its pprof listener.
type profiler struct {
	base    string // http://127.0.0.1:PORT
	seconds int
	dir     string
}

func newProfiler(o options) (*profiler, error) {
	u, err := url.Parse(o.pprof)
	if err != nil || u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, errors.New("-pprof is a plain-HTTP base URL such as http://127.0.0.1:6060")
	}
	if err := loopback(u.Host); err != nil {
		return nil, err
	}
	if o.d < time.Second || o.d%time.Second != 0 {
		return nil, errors.New("-pprof profiles over -d, which must then be whole seconds")
	}
	if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
		return nil, err
	}
	return &profiler{base: "http://" + u.Host, seconds: int(o.d / time.Second), dir: o.profileDir}, nil
}

// start begins the CPU profile and the allocation delta of phase name,
// both over the profiler's seconds, and returns the wait for both files.
// A nil profiler takes none.
func (p *profiler) start(name string) func() error {
	if p == nil {
		return func() error { return nil }
	}
	errs := make(chan error, 2)
	fetch := func(kind, query string) {
		errs <- func() error {
			resp, err := http.Get(p.base + "/debug/pprof/" + query + "?seconds=" + strconv.Itoa(p.seconds))
			if err != nil {
				return err
			}
			defer func() { _ = resp.Body.Close() }()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s profile: %s", kind, resp.Status)
			}
			f, err := os.Create(filepath.Join(p.dir, name+"."+kind+".pprof"))
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, resp.Body); err != nil {
				_ = f.Close()
				return err
			}
			return f.Close()
		}()
	}
	go fetch("cpu", "profile")
	go fetch("allocs", "allocs")
	return func() error { return errors.Join(<-errs, <-errs) }
}

// cpuTime is the CPU time of process pid so far; 0 for pid 0 (no -server-pid).
func cpuTime(pid int) (time.Duration, error) {
	if pid == 0 {
		return 0, nil
	}
	d, err := procstat.CPUTime(pid)
	if err != nil {
		return 0, fmt.Errorf("-server-pid: %w", err)
	}
	return d, nil
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
