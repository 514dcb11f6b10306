package mcpgate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/logtime"
	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

// MetaKey is the params._meta key of a tools/call that carries the
// Authorization (an AuthorizationMeta object). The gateway removes it
// before forwarding.
const MetaKey = client.MCPMetaKey

// RefusalMetaKey is the _meta key of an error result the gateway returns
// instead of forwarding: {"code": …, "path": …}.
const RefusalMetaKey = client.MCPRefusalMetaKey

// AuthorizationMeta is the value under MetaKey (client.MCPAuthorization,
// the one definition the agent side writes too). None of it can widen
// anything: the service checks each against the signed artifact. What the
// gateway derives itself is what it is about to execute: tool, version and
// the exact arguments.
type AuthorizationMeta = client.MCPAuthorization

// Options are the gateway's run-time settings.
type Options struct {
	// Connect returns a fresh transport to the upstream (a command or a
	// Streamable HTTP endpoint).
	Connect func() mcp.Transport
	// Recheck is how often the upstream's definitions are compared with
	// the reviewed ones besides on its tools/list_changed notifications.
	Recheck time.Duration
	// CallTimeout bounds one forwarded call; a call that times out is
	// uncertain.
	CallTimeout time.Duration
	Logger      *slog.Logger
	// HTTPClient reaches the toolgate service.
	HTTPClient *http.Client
	// TokenReviews is the Kubernetes TokenReview API, needed only when
	// the configuration's clientAuth verifies tokens with it.
	TokenReviews clientauth.TokenReviewer
}

type mappedTool struct {
	ToolMapping
	digest  string
	output  *jsonschema.Resolved
	profile *argprofile.Profile // nil without a reviewed argument profile
}

// Gateway is one MCP gateway in front of one upstream server.
type Gateway struct {
	cfg    *Config
	opts   Options
	api    atomic.Pointer[client.Client]
	token  string // the token api was made with; only Refresh reads it
	log    *slog.Logger
	out    *OutcomeLog
	server *mcp.Server
	gate   *clientauth.Gate // nil without clientAuth
	tools  map[string]*mappedTool
	order  []string

	// live holds the names whose upstream definition matches the review.
	live atomic.Pointer[map[string]bool]
	// ready is whether the last comparison read the upstream's
	// tools/list: /readyz.
	ready atomic.Bool

	mu      sync.Mutex // guards session and refreshing
	session *mcp.ClientSession

	reg       *prometheus.Registry
	calls     *prometheus.CounterVec
	changed   *prometheus.CounterVec
	withheld  prometheus.Gauge
	outcomes  *prometheus.CounterVec
	refreshCh chan struct{}
	// The counters every forwarded call increments, looked up once.
	forwarded prometheus.Counter
	outcomeOf map[string]prometheus.Counter

	progress progressRelay
}

// New builds a gateway; Run connects it to the upstream.
func New(cfg *Config, opts Options) (*Gateway, error) {
	if cfg.Host != nil && cfg.ClientAuth == nil {
		// Host mode attests the verified client; without a verifier
		// there is none (ParseConfig refuses this too).
		return nil, &ConfigError{Path: "clientAuth", Reason: "is required in Host mode: the gateway attests the verified client's identity"}
	}
	token, err := readToken(cfg.Toolgate.TokenFile)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(os.Stderr, logtime.SlogOptions()))
	}
	if opts.Recheck <= 0 {
		opts.Recheck = 30 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 60 * time.Second
	}
	if opts.HTTPClient == nil {
		// The default transport keeps 2 idle connections per host: with
		// more concurrent calls most Consumptions would open a new one.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 64
		if cfg.Toolgate.CAFile != "" {
			pem, err := os.ReadFile(cfg.Toolgate.CAFile)
			if err != nil {
				return nil, fmt.Errorf("toolgate.caFile: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, &ConfigError{Path: "toolgate.caFile", Reason: "holds no PEM certificate"}
			}
			t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
		opts.HTTPClient = &http.Client{Transport: t, Timeout: 30 * time.Second}
	}
	g := &Gateway{
		cfg: cfg, opts: opts, log: opts.Logger,
		token:     token,
		tools:     map[string]*mappedTool{},
		reg:       prometheus.NewRegistry(),
		refreshCh: make(chan struct{}, 1),
	}
	for _, t := range cfg.Tools {
		d, err := t.Definition.Digest()
		if err != nil {
			return nil, err
		}
		mt := &mappedTool{ToolMapping: t, digest: d}
		if len(t.OutputSchema) > 0 {
			if mt.output, err = compileSchema(t.OutputSchema); err != nil {
				return nil, err
			}
		}
		if len(t.Arguments) > 0 {
			if mt.profile, err = argprofile.Parse(t.Arguments); err != nil {
				return nil, err
			}
			if mt.profile.Tool() != t.Name {
				return nil, &ConfigError{Path: "tools[].arguments.tool", Reason: "must be the mapping's name"}
			}
		}
		g.tools[t.Name] = mt
		g.order = append(g.order, t.Name)
	}
	if cfg.ClientAuth != nil {
		if g.gate, err = clientauth.Build(*cfg.ClientAuth, opts.TokenReviews, logr.FromSlogHandler(opts.Logger.Handler())); err != nil {
			return nil, err
		}
	}
	// The outcome log is the last thing New opens, and nothing after it
	// fails: a refused configuration leaves no file open.
	if g.out, err = OpenOutcomeLog(cfg.OutcomeLog); err != nil {
		return nil, err
	}
	g.api.Store(client.New(cfg.Toolgate.URL, token, opts.HTTPClient))
	empty := map[string]bool{}
	g.live.Store(&empty)
	g.calls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_mcp_calls_total",
		Help: "tools/call requests by result: forwarded, or the refusal's reason code"}, []string{"result"})
	g.changed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_mcp_definition_changed_total",
		Help: "times an upstream tool's live definition was found to differ from the reviewed one"}, []string{"tool"})
	g.withheld = prometheus.NewGauge(prometheus.GaugeOpts{Name: "toolgate_mcp_tools_withheld",
		Help: "mapped tools withheld because the upstream's definition differs or is missing"})
	g.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_mcp_outcomes_total",
		Help: "consumed calls by recorded outcome"}, []string{"outcome"})
	g.reg.MustRegister(g.calls, g.changed, g.withheld, g.outcomes)
	g.forwarded = g.calls.WithLabelValues("forwarded")
	g.outcomeOf = map[string]prometheus.Counter{}
	for _, o := range []string{OutcomeCompleted, OutcomeFailed, OutcomeUncertain} {
		g.outcomeOf[o] = g.outcomes.WithLabelValues(o)
	}

	// Only tools: no resources, prompts, completions, logging; the
	// gateway's own client side declares no sampling, roots or elicitation,
	// so the upstream cannot ask the agent for anything.
	g.server = mcp.NewServer(&mcp.Implementation{Name: "toolgate-mcp-gateway", Version: "v1alpha1"},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}})
	g.server.AddReceivingMiddleware(onlyTools)
	return g, nil
}

// servedMethods are the only methods an agent may send: the session's
// lifecycle and tools. Resources, prompts, completions, logging and
// subscriptions are refused as method not found (docs/mcp.md).
var servedMethods = map[string]bool{
	"initialize": true, "notifications/initialized": true, "ping": true,
	// 2026-07-28: the stateless handshake, and the stream its clients
	// receive tools/list_changed on.
	"server/discover": true, "subscriptions/listen": true,
	"notifications/cancelled": true, "notifications/progress": true,
	"tools/list": true, "tools/call": true,
}

func onlyTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !servedMethods[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the toolgate MCP gateway serves tools only"}
		}
		return next(ctx, method, req)
	}
}

// Handler serves MCP (Streamable HTTP) at /mcp, metrics at /metrics,
// liveness at /healthz and readiness at /readyz: 503 until a comparison of
// the upstream's definitions has finished, and while the last one could not
// read the upstream's tools/list (every tool withheld), 200 otherwise. With
// clientAuth, /mcp admits only requests with a verified bearer token and the
// RFC 9728 metadata is served at its well-known paths; the probes and
// metrics stay open (they are for the kubelet and the scraper).
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	endpoint := g.mcpHandler()
	if g.gate != nil {
		meta := g.gate.MetadataHandler()
		for _, p := range g.gate.MetadataPaths() {
			mux.Handle(p, meta)
		}
		endpoint = g.gate.Middleware(endpoint)
	}
	mux.Handle("/mcp", endpoint)
	mux.Handle("/metrics", promhttp.HandlerFor(g.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !g.ready.Load() {
			http.Error(w, "the upstream's tool definitions have not been read", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	return mux
}

// Run compares the upstream's definitions now, on each of its
// tools/list_changed notifications and every Recheck, until ctx ends.
func (g *Gateway) Run(ctx context.Context) {
	g.Refresh(ctx)
	t := time.NewTicker(g.opts.Recheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			g.mu.Lock()
			if g.session != nil {
				_ = g.session.Close()
			}
			g.mu.Unlock()
			_ = g.out.Close()
			return
		case <-t.C:
		case <-g.refreshCh:
		}
		g.Refresh(ctx)
	}
}

func readToken(path string) (string, error) {
	tok, err := os.ReadFile(path)
	if err != nil {
		return "", &ConfigError{Path: "toolgate.tokenFile", Reason: "cannot be read"}
	}
	token := strings.TrimSpace(string(tok))
	if token == "" {
		return "", &ConfigError{Path: "toolgate.tokenFile", Reason: "the file is empty"}
	}
	return token, nil
}
