// Progress: a client's tools/call that carries a progress token gets the
// upstream's progress notifications for that call, under its own token.

package mcpgate

import (
	"context"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressRelay maps the progress tokens the gateway sends upstream to the
// client call they belong to. The gateway mints its own token per forwarded
// call: clients choose theirs freely, so two clients' tokens may be equal,
// and the upstream session is shared.
type progressRelay struct {
	mu    sync.Mutex
	next  uint64
	calls map[string]progressTarget
}

// progressTarget is one in-flight call: the client's session and token, and
// the context of its request, which the SDK's stateless transport needs to
// send a notification on that request's own response stream.
type progressTarget struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
}

// register returns the token to send upstream for a call whose client asked
// for progress with token, and the function that forgets it.
func (r *progressRelay) register(ctx context.Context, session *mcp.ServerSession, token any) (string, func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	up := "toolgate-progress-" + strconv.FormatUint(r.next, 10)
	if r.calls == nil {
		r.calls = map[string]progressTarget{}
	}
	r.calls[up] = progressTarget{ctx: ctx, session: session, token: token}
	return up, func() {
		r.mu.Lock()
		delete(r.calls, up)
		r.mu.Unlock()
	}
}

// relay passes one upstream progress notification to the call it belongs
// to, under the client's token: progress, total and message only (the
// upstream's _meta is not passed on). A token the gateway did not mint, or
// of a call that has ended, is dropped.
func (r *progressRelay) relay(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	up, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	r.mu.Lock()
	t, ok := r.calls[up]
	r.mu.Unlock()
	if !ok || t.session == nil {
		return
	}
	_ = t.session.NotifyProgress(t.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: t.token, Progress: p.Progress, Total: p.Total, Message: p.Message,
	})
}

type downstreamKey struct{}

// downstream is the client's session and its call's progress token, when
// it asked for progress.
type downstream struct {
	session *mcp.ServerSession
	token   any
}

func withDownstream(ctx context.Context, d downstream) context.Context {
	return context.WithValue(ctx, downstreamKey{}, d)
}

func downstreamOf(ctx context.Context) (downstream, bool) {
	d, ok := ctx.Value(downstreamKey{}).(downstream)
	return d, ok && d.session != nil && d.token != nil
}
