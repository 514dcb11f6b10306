package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/mcpgate"
)

const (
	mcpGatewayArgs  = "--config FILE --listen ADDR (--upstream-command 'CMD ARG...' | --upstream-url URL) [--recheck D] [--call-timeout D] [--pprof-listen ADDR]"
	mcpOutcomesArgs = "[--outcome completed|failed|uncertain] LOG..."
)

// mcpVerb dispatches `toolgate mcp gateway` and `toolgate mcp outcomes`
// (issue 19, item 2; docs/mcp.md).
func mcpVerb(args []string, _ io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return usageError{"mcp needs gateway or outcomes"}
	}
	switch args[0] {
	case "gateway":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return mcpGateway(ctx, args[1:], os.Stderr)
	case "outcomes":
		return mcpOutcomes(args[1:], out)
	}
	return usageError{"mcp needs gateway or outcomes"}
}

func mcpGateway(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp gateway", flag.ContinueOnError)
	config := fs.String("config", "", "the gateway configuration (kind MCPGateway)")
	listen := fs.String("listen", "127.0.0.1:8090", "address to serve MCP (Streamable HTTP at /mcp), /metrics and /healthz on")
	command := fs.String("upstream-command", "", "the upstream MCP server as a command line, split at white space (no shell), spoken to over stdio")
	upURL := fs.String("upstream-url", "", "the upstream MCP server's Streamable HTTP endpoint")
	recheck := fs.Duration("recheck", 30*time.Second, "how often the upstream's tool definitions are compared with the reviewed ones (also on each tools/list_changed)")
	callTimeout := fs.Duration("call-timeout", 60*time.Second, "bound of one forwarded call; a call without an answer by then is uncertain")
	pprofAddr := fs.String("pprof-listen", "", pprofListenUsage)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *config == "" {
		return usageError{"mcp gateway needs --config"}
	}
	if err := checkPprofListen(*pprofAddr); err != nil {
		return err
	}
	if (*command == "") == (*upURL == "") {
		return usageError{"mcp gateway needs exactly one of --upstream-command and --upstream-url"}
	}
	cfg, err := mcpgate.LoadConfig(*config)
	if err != nil {
		return err
	}
	var connect func() mcp.Transport
	if *command != "" {
		argv := strings.Fields(*command)
		connect = func() mcp.Transport {
			cmd := exec.Command(argv[0], argv[1:]...) //nolint:gosec // the operator's own upstream command
			cmd.Stderr = stderr
			return &mcp.CommandTransport{Command: cmd}
		}
	} else {
		u := *upURL
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 64 // concurrent calls reuse their connections
		hc := &http.Client{Transport: t}
		connect = func() mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: u, MaxRetries: -1, HTTPClient: hc}
		}
	}
	logger := processLogger(stderr)
	// The SDK's JSON decoder allocates a 32 KiB buffer per message, several
	// per tools/call, over a small live heap: at the default GOGC a fifth of
	// the gateway's CPU went to collecting them.
	logger.Info("garbage collection", "settings", tuneGC(os.Getenv, cgroupMemoryMax).String())
	g, err := mcpgate.New(cfg, mcpgate.Options{Connect: connect, Recheck: *recheck, CallTimeout: *callTimeout, Logger: logger})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: g.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := startPprof(ctx, *pprofAddr); err != nil {
		_ = ln.Close()
		return err
	}
	done := make(chan struct{})
	go func() { g.Run(ctx); close(done) }()
	go func() {
		<-ctx.Done()
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		_ = srv.Shutdown(sctx)
	}()
	logger.Info("mcp gateway listening", "address", ln.Addr().String(), "tools", len(cfg.Tools))
	err = srv.Serve(ln)
	cancel()
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func mcpOutcomes(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mcp outcomes", flag.ContinueOnError)
	only := fs.String("outcome", "", "print only calls with this outcome (completed, failed, uncertain)")
	logs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(logs) == 0 {
		return usageError{"mcp outcomes needs at least one outcome log"}
	}
	switch *only {
	case "", mcpgate.OutcomeCompleted, mcpgate.OutcomeFailed, mcpgate.OutcomeUncertain:
	default:
		return usageError{"--outcome must be completed, failed or uncertain"}
	}
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		recs, err := mcpgate.ReadOutcomes(f)
		_ = f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, r := range recs {
			if *only != "" && r.Outcome != *only {
				continue
			}
			reason := r.Reason
			if reason == "" {
				reason = "-"
			}
			fmt.Fprintf(out, "%s\t%s\t%s\t%s@%s\t%s\t%s\t%s\n", r.Time.Format(time.RFC3339), r.Outcome, reason,
				r.ToolID, r.Version, r.Tool, r.AuthorizationID, r.ConsumptionID)
		}
	}
	return nil
}
