package main

import (
	"context"
	"errors"
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
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/toolgate/toolgate/internal/mcpgate"
)

// mcpGatewayVerb runs `toolgate mcp gateway` (docs/mcp.md) until SIGINT
// or SIGTERM.
func mcpGatewayVerb(o *mcpGatewayOptions, args []string, _ io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpGateway(ctx, *o, args, os.Stderr)
}

// mcpGatewayOptions are mcp gateway's flags.
type mcpGatewayOptions struct {
	config      string
	listen      string
	command     string
	upURL       string
	toolgateURL string
	recheck     time.Duration
	callTimeout time.Duration
	pprofAddr   string
}

func mcpGatewayFlags(fs *pflag.FlagSet) *mcpGatewayOptions {
	var o mcpGatewayOptions
	fs.StringVar(&o.config, "config", "", "the gateway configuration `FILE` (kind MCPGateway)")
	required(fs, "config")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8090", "address (`ADDR`) to serve MCP (Streamable HTTP at /mcp), /metrics, /healthz and /readyz on")
	fs.StringVar(&o.command, "upstream-command", "", "the upstream MCP server as a command line (`'CMD ARG...'`), split at white space (no shell), spoken to over stdio")
	fs.StringVar(&o.upURL, "upstream-url", "", "the upstream MCP server's Streamable HTTP endpoint (`URL`)")
	oneOf(fs, "upstream-command", "upstream-url")
	fs.StringVar(&o.toolgateURL, "toolgate-url", "", "the toolgate service (`URL`, http or https) instead of the configuration's toolgate.url")
	fs.DurationVar(&o.recheck, "recheck", 30*time.Second, "how often the upstream's tool definitions are compared with the reviewed ones (also on each tools/list_changed)")
	fs.DurationVar(&o.callTimeout, "call-timeout", 60*time.Second, "bound of one forwarded call; a call without an answer by then is uncertain")
	pprofFlag(fs, &o.pprofAddr)
	return &o
}

// mcpGatewayConfig is the configuration file with --toolgate-url, when
// given, in place of its toolgate.url. The file must be valid on its own:
// one reviewed file serves every environment.
func mcpGatewayConfig(o mcpGatewayOptions) (*mcpgate.Config, error) {
	if o.toolgateURL != "" {
		var ce *mcpgate.ConfigError
		if err := mcpgate.CheckToolgateURL(o.toolgateURL); errors.As(err, &ce) {
			return nil, usageError{"invalid value for --toolgate-url: " + ce.Reason}
		}
	}
	cfg, err := mcpgate.LoadConfig(o.config)
	if err != nil {
		return nil, err
	}
	if o.toolgateURL != "" {
		cfg.Toolgate.URL = o.toolgateURL
	}
	return cfg, nil
}

func mcpGateway(ctx context.Context, o mcpGatewayOptions, args []string, stderr io.Writer) error {
	if len(args) != 0 {
		return usageError{"mcp gateway takes flags only"}
	}
	if err := checkPprofListen(o.pprofAddr); err != nil {
		return err
	}
	cfg, err := mcpGatewayConfig(o)
	if err != nil {
		return err
	}
	var connect func() mcp.Transport
	if o.command != "" {
		argv := strings.Fields(o.command)
		connect = func() mcp.Transport {
			cmd := exec.Command(argv[0], argv[1:]...) //nolint:gosec // the operator's own upstream command
			cmd.Stderr = stderr
			return &mcp.CommandTransport{Command: cmd}
		}
	} else {
		u := o.upURL
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
	gopts := mcpgate.Options{Connect: connect, Recheck: o.recheck, CallTimeout: o.callTimeout, Logger: logger}
	if cfg.ClientAuth != nil && cfg.ClientAuth.TokenReview {
		// clientAuth.tokenReview: the gateway runs in a cluster and asks
		// its apiserver, as its own ServiceAccount.
		rc, err := rest.InClusterConfig()
		if err != nil {
			return fmt.Errorf("clientAuth.tokenReview needs the in-cluster Kubernetes API: %w", err)
		}
		kc, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return fmt.Errorf("clientAuth.tokenReview: %w", err)
		}
		gopts.TokenReviews = kc.AuthenticationV1().TokenReviews()
	}
	g, err := mcpgate.New(cfg, gopts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: g.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := startPprof(ctx, o.pprofAddr); err != nil {
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
	mode := "meta"
	if cfg.Host != nil {
		mode = "host"
	}
	logger.Info("mcp gateway listening", "address", ln.Addr().String(), "tools", len(cfg.Tools), "mode", mode)
	err = srv.Serve(ln)
	cancel()
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// mcpOutcomesOptions are mcp outcomes's flags.
type mcpOutcomesOptions struct {
	outcome *choice
}

func mcpOutcomesFlags(fs *pflag.FlagSet) *mcpOutcomesOptions {
	o := mcpOutcomesOptions{outcome: newChoice("", mcpgate.OutcomeCompleted, mcpgate.OutcomeFailed, mcpgate.OutcomeUncertain)}
	fs.Var(o.outcome, "outcome", "print only calls with this outcome")
	return &o
}

func mcpOutcomes(o *mcpOutcomesOptions, logs []string, out io.Writer) error {
	if err := needPaths("mcp outcomes", logs, "outcome log"); err != nil {
		return err
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
			if only := o.outcome.value; only != "" && r.Outcome != only {
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
