package mcpgate

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/logtime"
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
}

type mappedTool struct {
	ToolMapping
	digest string
	output *jsonschema.Resolved
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
	tools  map[string]*mappedTool
	order  []string

	// live holds the names whose upstream definition matches the review.
	live atomic.Pointer[map[string]bool]

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
}

// New builds a gateway; Run connects it to the upstream.
func New(cfg *Config, opts Options) (*Gateway, error) {
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
		g.tools[t.Name] = mt
		g.order = append(g.order, t.Name)
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

// Handler serves MCP (Streamable HTTP) at /mcp, metrics at /metrics and
// /healthz.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server },
		&mcp.StreamableHTTPOptions{
			MaxRequestBodyBytes: int64(g.cfg.MaxArgs()) + 64<<10,
			// One application/json answer per request instead of an SSE
			// stream: a tools/call has exactly one response, and the
			// stream's framing and flushes cost CPU on every call
			// (docs/performance.md). Notifications still reach the
			// client on its standalone GET stream.
			JSONResponse: true,
		}))
	mux.Handle("/metrics", promhttp.HandlerFor(g.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
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

// upstream returns the current session, connecting one when there is none.
func (g *Gateway) upstream(ctx context.Context) (*mcp.ClientSession, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.session != nil {
		return g.session, nil
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "toolgate-mcp-gateway", Version: "v1alpha1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case g.refreshCh <- struct{}{}:
			default:
			}
		},
	})
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cs, err := c.Connect(cctx, g.opts.Connect(), nil)
	if err != nil {
		return nil, err
	}
	g.session = cs
	return cs, nil
}

// drop forgets a session that failed, so the next use reconnects.
func (g *Gateway) drop(cs *mcp.ClientSession) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.session == cs {
		_ = cs.Close()
		g.session = nil
	}
}

// Refresh lists the upstream's tools and serves exactly the mapped tools
// whose live definition has the reviewed digest. A tool that differs or is
// missing is withheld (removed from tools/list, its calls refused).
func (g *Gateway) Refresh(ctx context.Context) {
	if token, err := readToken(g.cfg.Toolgate.TokenFile); err != nil {
		g.log.Warn("mcp gateway: token file unreadable; keeping the token read before", "error", "tokenFile")
	} else if token != g.token {
		g.token = token
		g.api.Store(client.New(g.cfg.Toolgate.URL, token, g.opts.HTTPClient))
	}
	live := map[string]string{}
	cs, err := g.upstream(ctx)
	if err == nil {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		for t, lerr := range cs.Tools(lctx, nil) {
			if lerr != nil {
				err = lerr
				break
			}
			if _, mapped := g.tools[t.Name]; !mapped {
				continue
			}
			schema, merr := json.Marshal(t.InputSchema)
			if merr != nil {
				continue
			}
			if d, derr := (Definition{Description: t.Description, InputSchema: schema}).Digest(); derr == nil {
				live[t.Name] = d
			}
		}
		cancel()
		if err != nil {
			g.drop(cs)
		}
	}
	if err != nil {
		// Fail closed: an upstream that cannot be read serves nothing.
		g.log.Warn("mcp gateway: upstream tools/list failed; every tool withheld", "error", errorClass(err))
		live = map[string]string{}
	}
	prev := *g.live.Load()
	next := map[string]bool{}
	withheld := 0
	for _, name := range g.order {
		mt := g.tools[name]
		d, ok := live[name]
		switch {
		case ok && d == mt.digest:
			next[name] = true
			if !prev[name] {
				g.server.AddTool(&mcp.Tool{Name: name, Description: mt.Definition.Description,
					InputSchema: json.RawMessage(mt.Definition.InputSchema)}, g.handler(mt))
			}
			continue
		case ok:
			withheld++
			g.changed.WithLabelValues(name).Inc()
			g.log.Warn("mcp gateway: upstream definition differs from the reviewed one; tool withheld",
				"tool", name, "toolID", mt.ToolID, "version", mt.Version,
				"reviewedDigest", mt.digest, "liveDigest", d)
		case err == nil:
			withheld++
			g.log.Warn("mcp gateway: upstream does not offer a mapped tool; tool withheld", "tool", name)
		default:
			withheld++
		}
		if prev[name] {
			g.server.RemoveTools(name)
		}
	}
	g.withheld.Set(float64(withheld))
	g.live.Store(&next)
}

// Refusal is why the gateway did not forward a call (or withheld its
// result): a closed code and the path at fault.
type Refusal struct {
	Code, Path, Message string
}

func (g *Gateway) refuse(tool string, r Refusal) *mcp.CallToolResult {
	g.calls.WithLabelValues(r.Code).Inc()
	g.log.Info("mcp gateway: call refused", "tool", tool, "code", r.Code, "path", r.Path)
	text := "toolgate refused the call: " + r.Code
	if r.Path != "" {
		text += " at " + r.Path
	}
	if r.Message != "" {
		text += ": " + r.Message
	}
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		Meta:    mcp.Meta{RefusalMetaKey: map[string]any{"code": r.Code, "path": r.Path}},
	}
}

func (g *Gateway) handler(mt *mappedTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return g.call(ctx, mt, req.Params), nil
	}
}

func (g *Gateway) call(ctx context.Context, mt *mappedTool, p *mcp.CallToolParamsRaw) *mcp.CallToolResult {
	if !(*g.live.Load())[mt.Name] {
		return g.refuse(mt.Name, Refusal{Code: "definitionChanged", Path: "params.name",
			Message: "the upstream's definition of this tool differs from the reviewed one; it is withheld until a review"})
	}
	args := []byte(p.Arguments)
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if len(args) > g.cfg.MaxArgs() {
		return g.refuse(mt.Name, Refusal{Code: "limitExceeded", Path: "params.arguments",
			Message: fmt.Sprintf("arguments exceed %d bytes", g.cfg.MaxArgs())})
	}
	am, r := decodeMeta(p.Meta)
	if r != nil {
		return g.refuse(mt.Name, *r)
	}
	exp := client.Expectations{
		AuthorizationID: am.AuthorizationID, ReplayID: am.ReplayID, ConsumptionID: am.ConsumptionID,
		ProposalID: am.ProposalID, ToolID: mt.ToolID, Version: mt.Version,
		Arguments: json.RawMessage(args), Identity: am.Identity,
		Capabilities: am.Capabilities, Resources: am.Resources, IntentBinding: am.IntentBinding,
	}
	if exp.Capabilities == nil {
		exp.Capabilities = []string{}
	}
	if exp.Resources == nil {
		exp.Resources = []string{}
	}
	// Consume validates first: one round trip is the whole check.
	res, err := g.api.Load().Consume(ctx, client.ValidateRequest{Artifact: am.Artifact, Expectations: exp})
	if err != nil {
		var ae *client.APIError
		switch {
		case errors.Is(err, client.ErrConsumed):
			return g.refuse(mt.Name, Refusal{Code: "consumed", Path: "params._meta." + MetaKey,
				Message: "the Authorization was consumed before; authorize a new call"})
		case errors.As(err, &ae):
			path := ae.Err.Path
			if path != "" {
				path = "params._meta." + MetaKey + "(" + path + ")"
			}
			return g.refuse(mt.Name, Refusal{Code: ae.Err.Code, Path: path, Message: "the toolgate service refused the Consumption"})
		default:
			return g.refuse(mt.Name, Refusal{Code: "unavailable", Message: "the toolgate service did not answer; nothing was forwarded"})
		}
	}
	rec := Record{Time: time.Now().UTC(), Event: "consumed", Tool: mt.Name, ToolID: mt.ToolID, Version: mt.Version,
		AuthorizationID: am.AuthorizationID, ConsumptionID: am.ConsumptionID, Binding: res.Binding}
	if err := g.out.Write(rec); err != nil {
		// Without a record no outcome could be reported: do not execute.
		return g.refuse(mt.Name, Refusal{Code: "unavailable", Message: "the outcome log cannot be written; nothing was forwarded"})
	}
	g.forwarded.Inc()
	result, outcome, reason := g.forward(ctx, mt, p, args)
	rec.Time, rec.Event, rec.Outcome, rec.Reason = time.Now().UTC(), "outcome", outcome, reason
	if err := g.out.Write(rec); err != nil {
		g.log.Error("mcp gateway: outcome not recorded", "tool", mt.Name, "authorizationID", am.AuthorizationID, "outcome", outcome)
	}
	if c, ok := g.outcomeOf[outcome]; ok {
		c.Inc()
	} else {
		g.outcomes.WithLabelValues(outcome).Inc()
	}
	return result
}

func (g *Gateway) forward(ctx context.Context, mt *mappedTool, p *mcp.CallToolParamsRaw, args []byte) (*mcp.CallToolResult, string, string) {
	var meta mcp.Meta
	for k, v := range p.Meta {
		if k == MetaKey {
			continue
		}
		if meta == nil {
			meta = mcp.Meta{}
		}
		meta[k] = v
	}
	cs, err := g.upstream(ctx)
	if err != nil {
		// Nothing was sent: the call did not happen, but the
		// Authorization is spent.
		return g.refuse(mt.Name, Refusal{Code: "upstreamUnavailable", Message: "the upstream server cannot be reached; the call was not made and its Authorization is spent"}), OutcomeFailed, "transport"
	}
	cctx, cancel := context.WithTimeout(ctx, g.opts.CallTimeout)
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Meta: meta, Name: mt.Name, Arguments: json.RawMessage(args)})
	if err != nil {
		if rejectedBeforeExecution(err) {
			return g.refuse(mt.Name, Refusal{Code: "upstreamError", Message: "the upstream server rejected the request"}), OutcomeFailed, "upstreamError"
		}
		g.drop(cs)
		reason := "transport"
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			reason = "timeout"
		}
		return g.refuse(mt.Name, Refusal{Code: "uncertain", Message: "the upstream did not answer; the call may have happened. It is recorded as uncertain and its Authorization is spent: do not retry it blindly"}), OutcomeUncertain, reason
	}
	if res.IsError {
		return res, OutcomeFailed, "toolError"
	}
	if mt.output != nil && !matches(mt.output, res.StructuredContent) {
		return g.refuse(mt.Name, Refusal{Code: "outputSchema", Path: "result.structuredContent",
			Message: "the upstream's result does not match the reviewed output Schema; it is withheld"}), OutcomeCompleted, "outputSchema"
	}
	return res, OutcomeCompleted, ""
}

// rejectedBeforeExecution is true only for the JSON-RPC errors that say
// the upstream refused the request itself (it could not parse it, has no
// such method, or its parameters are invalid). Every other error — an
// internal error, a lost connection, which the SDK also reports as a
// JSON-RPC error — leaves the call uncertain.
func rejectedBeforeExecution(err error) bool {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		return false
	}
	switch we.Code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams:
		return true
	}
	return false
}

// matches validates structuredContent as the SDK's client decoded it from
// the upstream's JSON (maps, slices, float64, strings, bools), which is
// the form jsonschema's Validate reads, so it is not re-encoded first.
func matches(s *jsonschema.Resolved, v any) bool {
	if v == nil {
		return false
	}
	return s.Validate(v) == nil
}

// errorClass names an error's kind for a log line without its text, which
// may quote what a peer sent.
func errorClass(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	default:
		return "transport"
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
