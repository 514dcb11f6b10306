package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/spf13/pflag"
)

// Operators can profile the service (docs/performance.md, "Profiling the service"): `serve`,
// `manager` and `mcp gateway` take --pprof-listen, off by default, which serves
// net/http/pprof on a loopback address of its own and on a mux of its own
// — never on the API's address or mux, and never http.DefaultServeMux
// (which importing net/http/pprof fills, and which nothing here serves).

// pprofFlag declares --pprof-listen, one definition for serve, the manager
// and the MCP gateway; checkPprofListen checks it.
func pprofFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "pprof-listen", "", "serve net/http/pprof on this loopback host:port (`ADDR`; default off); profiles expose the process's memory, so only loopback addresses are accepted")
}

// checkPprofListen accepts "" (off) or a host:port whose host names only
// loopback addresses; anything else is a usage error.
func checkPprofListen(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !isLoopback(host) {
		return usageError{"--pprof-listen is a loopback host:port (127.0.0.1, [::1] or localhost): profiles expose the process's memory"}
	}
	return nil
}

// pprofMux serves net/http/pprof's handlers under /debug/pprof/.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and every named profile: heap, allocs, goroutine, …
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// startPprof serves pprofMux on addr (checked by checkPprofListen) until
// ctx is done and returns the address it listens on. The server has no
// write timeout: a CPU profile or trace answers after the duration the
// operator asks for.
func startPprof(ctx context.Context, addr string) (net.Addr, error) {
	if err := checkPprofListen(addr); err != nil || addr == "" {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	context.AfterFunc(ctx, func() { _ = hs.Close() })
	return ln.Addr(), nil
}
