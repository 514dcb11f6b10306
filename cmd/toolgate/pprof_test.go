package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestPprofListenIsLoopbackOnly: --pprof-listen takes a
// loopback host:port only; anything else is a usage error (exit 2) of
// serve and of manager, before either opens anything.
func TestPprofListenIsLoopbackOnly(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		addr string
		ok   bool
	}{
		"off by default":                {"", true},
		"IPv4 loopback":                 {"127.0.0.1:6060", true},
		"IPv6 loopback":                 {"[::1]:6060", true},
		"localhost":                     {"localhost:0", true},
		"every interface is refused":    {"0.0.0.0:6060", false},
		"an empty host is refused":      {":6060", false},
		"a routable address is refused": {"10.0.0.7:6060", false},
		"a host name is refused":        {"profiler.example:6060", false},
		"a bare port is refused":        {"6060", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := checkPprofListen(tc.addr)
			var ue usageError
			if tc.ok != (err == nil) || (err != nil && !errors.As(err, &ue)) {
				t.Fatalf("checkPprofListen(%q) = %v, want ok %v or a usage error", tc.addr, err, tc.ok)
			}
			if tc.ok {
				return
			}
			for _, args := range [][]string{
				{"serve", "--manifests", "m", "--state", "s", "--pprof-listen", tc.addr},
				{"manager", "--pprof-listen", tc.addr},
				{"mcp", "gateway", "--config", "c", "--upstream-url", "http://127.0.0.1:1/mcp", "--pprof-listen", tc.addr},
			} {
				var stderr strings.Builder
				if code := run(args, strings.NewReader(""), io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "--pprof-listen is a loopback host:port") {
					t.Errorf("%s: exit %d, %q; want 2 and the loopback usage error", args[0], code, stderr.String())
				}
			}
		})
	}
}

// TestPprofIsServedOnlyWhenAskedAndApart: with --pprof-listen, serve
// serves the profiles on that address and not the API; the API's address
// never serves them; without the flag there is no profile listener.
func TestPprofIsServedOnlyWhenAskedAndApart(t *testing.T) {
	t.Parallel()
	t.Run("asked", func(t *testing.T) {
		t.Parallel()
		api, pprof := startServe(t, "--pprof-listen", "127.0.0.1:0")
		if pprof == "" {
			t.Fatal("serve logged no pprof address")
		}
		if status, body := get(t, "http://"+pprof+"/debug/pprof/allocs?debug=1"); status != http.StatusOK || !strings.Contains(body, "heap profile") {
			t.Errorf("pprof allocs: %d %.80q", status, body)
		}
		if status, _ := get(t, "http://"+pprof+"/healthz"); status != http.StatusNotFound {
			t.Errorf("the pprof address serves the API: /healthz %d", status)
		}
		if status, body := get(t, "http://"+api+"/debug/pprof/"); status != http.StatusNotFound || !strings.Contains(body, `"notFound"`) {
			t.Errorf("the API's address serves pprof: %d %.80q", status, body)
		}
	})
	t.Run("not asked", func(t *testing.T) {
		t.Parallel()
		api, pprof := startServe(t)
		if pprof != "" {
			t.Errorf("serve started pprof on %s without --pprof-listen", pprof)
		}
		if status, _ := get(t, "http://"+api+"/debug/pprof/"); status != http.StatusNotFound {
			t.Errorf("the API's address serves pprof: %d", status)
		}
	})
}

// startServe runs serve on the shipped samples on a loopback port with
// extra flags and returns the API's and pprof's addresses from its log
// ("serving pprof" comes before "serving").
func startServe(t *testing.T, extra ...string) (api, pprof string) {
	t.Helper()
	root := testutil.RepoRoot(t)
	state := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var logs testutil.SyncBuffer
	done := make(chan error, 1)
	args := append([]string{"--manifests", filepath.Join(root, "config", "samples"), "--state", state,
		"--tokens", filepath.Join(root, "examples", "standalone", "tokens.yaml"), "--listen", "127.0.0.1:0",
		"--decision-log", filepath.Join(state, "decisions.log")}, extra...)
	go func() { done <- serveContext(ctx, args, &logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); api == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var line struct{ Msg, Address string }
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			switch line.Msg {
			case "serving":
				api = line.Address
			case "serving pprof":
				pprof = line.Address
			}
		}
	}
	if api == "" {
		t.Fatalf("the service did not start:\n%s", logs.String())
	}
	return api, pprof
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
