// A tools/call: it reaches the upstream only after the toolgate service
// consumed the Authorization it carries (the package comment); every other
// answer is a refusal with a reason code.

package mcpgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

// mcpMetaPrefix is the _meta key prefix MCP reserves for the protocol's
// own per-request members (mcp.MetaKeyProtocolVersion and its siblings).
const mcpMetaPrefix = "io.modelcontextprotocol/"

// Refusal is why the gateway did not forward a call (or withheld its
// result): a closed code and the path at fault.
type Refusal struct {
	Code, Path, Message string
}

func (g *Gateway) refuse(ctx context.Context, tool string, r Refusal) *mcp.CallToolResult {
	g.calls.WithLabelValues(r.Code).Inc()
	attrs := []any{"tool", tool, "code", r.Code, "path", r.Path}
	if id, ok := clientauth.IdentityFrom(ctx); ok {
		// Who asked, never with what token.
		attrs = append(attrs, "clientIssuer", id.Issuer, "clientSubject", id.Subject)
	}
	g.log.Info("mcp gateway: call refused", attrs...)
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
		if req.Extra != nil {
			// The client the gateway's clientAuth verified, for the
			// call path (clientauth.IdentityFrom); absent without it.
			ctx = clientauth.ContextFromTokenInfo(ctx, req.Extra.TokenInfo)
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			ctx = withDownstream(ctx, downstream{session: req.Session, token: tok})
		}
		if g.cfg.Host != nil {
			sessionID := ""
			if req.Session != nil {
				sessionID = req.Session.ID()
			}
			return g.hostCall(ctx, mt, req.Params, sessionID), nil
		}
		return g.call(ctx, mt, req.Params), nil
	}
}

func (g *Gateway) call(ctx context.Context, mt *mappedTool, p *mcp.CallToolParamsRaw) *mcp.CallToolResult {
	if !(*g.live.Load())[mt.Name] {
		return g.refuse(ctx, mt.Name, Refusal{Code: "definitionChanged", Path: "params.name",
			Message: "the upstream's definition of this tool differs from the reviewed one; it is withheld until a review"})
	}
	args := []byte(p.Arguments)
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if len(args) > g.cfg.MaxArgs() {
		return g.refuse(ctx, mt.Name, Refusal{Code: "limitExceeded", Path: "params.arguments",
			Message: fmt.Sprintf("arguments exceed %d bytes", g.cfg.MaxArgs())})
	}
	am, r := decodeMeta(p.Meta)
	if r != nil {
		return g.refuse(ctx, mt.Name, *r)
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
	// Consume validates first: one round trip is the whole check. A
	// client's cancellation does not interrupt it (the HTTP client's
	// timeout bounds it): once asked, the service's answer is what tells
	// whether the Authorization is spent.
	res, err := g.api.Load().Consume(context.WithoutCancel(ctx), client.ValidateRequest{Artifact: am.Artifact, Expectations: exp})
	if err != nil {
		var ae *client.APIError
		switch {
		case errors.Is(err, client.ErrConsumed):
			return g.refuse(ctx, mt.Name, Refusal{Code: "consumed", Path: "params._meta." + MetaKey,
				Message: "the Authorization was consumed before; authorize a new call"})
		case errors.As(err, &ae):
			path := ae.Err.Path
			if path != "" {
				path = "params._meta." + MetaKey + "(" + path + ")"
			}
			return g.refuse(ctx, mt.Name, Refusal{Code: ae.Err.Code, Path: path, Message: "the toolgate service refused the Consumption"})
		default:
			return g.refuse(ctx, mt.Name, Refusal{Code: "unavailable", Message: "the toolgate service did not answer; nothing was forwarded"})
		}
	}
	return g.execute(ctx, mt, p, args, Record{Time: time.Now().UTC(), Event: "consumed", Tool: mt.Name, ToolID: mt.ToolID, Version: mt.Version,
		AuthorizationID: am.AuthorizationID, ConsumptionID: am.ConsumptionID, Binding: res.Binding})
}

// execute runs a consumed call: the consumed line of rec, the forward
// unless the client cancelled meanwhile, and the outcome line. Both modes
// end here.
func (g *Gateway) execute(ctx context.Context, mt *mappedTool, p *mcp.CallToolParamsRaw, args []byte, rec Record) *mcp.CallToolResult {
	if err := g.out.Write(rec); err != nil {
		// Without a record no outcome could be reported: do not execute.
		return g.refuse(ctx, mt.Name, Refusal{Code: "unavailable", Message: "the outcome log cannot be written; nothing was forwarded"})
	}
	var result *mcp.CallToolResult
	var outcome, reason string
	if ctx.Err() != nil {
		// Cancelled by the client while consuming: never forwarded.
		result, outcome, reason = g.refuse(ctx, mt.Name, Refusal{Code: "cancelled",
			Message: "the client cancelled the call before it was forwarded; its Authorization is spent"}), OutcomeFailed, "cancelled"
	} else {
		g.forwarded.Inc()
		result, outcome, reason = g.forward(ctx, mt, p, args)
	}
	rec.Time, rec.Event, rec.Outcome, rec.Reason = time.Now().UTC(), "outcome", outcome, reason
	if err := g.out.Write(rec); err != nil {
		g.log.Error("mcp gateway: outcome not recorded", "tool", mt.Name, "authorizationID", rec.AuthorizationID, "outcome", outcome)
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
		// Neither toolgate's key nor the MCP protocol's own members
		// (2026-07-28 carries the client's version, info and
		// capabilities in every request's _meta): those describe the
		// client's hop to the gateway; the gateway's client states its
		// own to the upstream.
		if k == MetaKey || strings.HasPrefix(k, mcpMetaPrefix) {
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
		return g.refuse(ctx, mt.Name, Refusal{Code: "upstreamUnavailable", Message: "the upstream server cannot be reached; the call was not made and its Authorization is spent"}), OutcomeFailed, "transport"
	}
	if d, ok := downstreamOf(ctx); ok {
		// The upstream sees a token the gateway minted; its progress
		// reaches the client under the client's own.
		up, forget := g.progress.register(ctx, d.session, d.token)
		defer forget()
		if meta == nil {
			meta = mcp.Meta{}
		}
		meta["progressToken"] = up
	} else if meta != nil {
		// A token without a session to report to: do not let the
		// upstream report against a token the gateway did not mint.
		delete(meta, "progressToken")
	}
	cctx, cancel := context.WithTimeout(ctx, g.opts.CallTimeout)
	defer cancel()
	// A client's cancellation cancels cctx; the SDK then sends the
	// upstream notifications/cancelled for this call.
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Meta: meta, Name: mt.Name, Arguments: json.RawMessage(args)})
	if err != nil {
		if rejectedBeforeExecution(err) {
			return g.refuse(ctx, mt.Name, Refusal{Code: "upstreamError", Message: "the upstream server rejected the request"}), OutcomeFailed, "upstreamError"
		}
		reason := "transport"
		switch {
		case errors.Is(ctx.Err(), context.Canceled):
			// The client cancelled: the session is sound, the
			// cancellation was relayed, and the upstream may have
			// acted before it read it.
			reason = "cancelled"
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			reason = "timeout"
			g.drop(cs)
		default:
			g.drop(cs)
		}
		return g.refuse(ctx, mt.Name, Refusal{Code: "uncertain", Message: "the upstream did not answer; the call may have happened. It is recorded as uncertain and its Authorization is spent: do not retry it blindly"}), OutcomeUncertain, reason
	}
	if res.IsError {
		return res, OutcomeFailed, "toolError"
	}
	if mt.output != nil && !matches(mt.output, res.StructuredContent) {
		// Failed, not completed: the tool ran, but the agent got a
		// refusal instead of its result (docs/mcp.md, "Outcomes").
		return g.refuse(ctx, mt.Name, Refusal{Code: "outputSchema", Path: "result.structuredContent",
			Message: "the upstream's result does not match the reviewed output Schema; it is withheld"}), OutcomeFailed, "outputSchema"
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
