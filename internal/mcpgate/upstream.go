// The upstream: one session to the upstream MCP server, and the check that
// serves a mapped tool only while its live definition is the reviewed one.

package mcpgate

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
)

// upstream returns the current session, connecting one when there is none.
func (g *Gateway) upstream(ctx context.Context) (*mcp.ClientSession, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.session != nil {
		return g.session, nil
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "toolgate-mcp-gateway", Version: "v1alpha1"}, &mcp.ClientOptions{
		// Not nil: with nil Capabilities the SDK announces roots. With
		// no sampling or elicitation handler it adds neither, so the
		// upstream is offered no way to ask the agent anything.
		Capabilities: &mcp.ClientCapabilities{},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			g.progress.relay(req.Params)
		},
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
	// Ready once the upstream was read, also when every definition
	// differs: the gateway then answers each call definitionChanged,
	// which is the signal a review needs, not a reason to stop routing.
	g.ready.Store(err == nil)
}
