package mcpgate

import (
	"bytes"
	"context"
	encjson "encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkClient connects the official SDK client to the gateway at url under
// version, with a progress handler.
func sdkClient(t *testing.T, url, version string, progress func(*mcp.ProgressNotificationParams)) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { progress(req.Params) },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	return cs
}

func paymentCall(meta mcp.Meta) *mcp.CallToolParams {
	meta[MetaKey] = map[string]any{"artifact": "a"}
	return &mcp.CallToolParams{Name: "submit_payment", Meta: meta,
		Arguments: map[string]any{"amount": 1, "currency": "eur", "debtor-account": "a", "creditor-account": "b"}}
}

// TestTheUpstreamsProgressReachesTheClientUnderItsOwnToken: a tools/call
// with a progress token gets each of the upstream's progress notifications
// for it, under the client's token, while the upstream saw a token the
// gateway minted; under both protocol versions.
func TestTheUpstreamsProgressReachesTheClientUnderItsOwnToken(t *testing.T) {
	f := newFixture(t)
	relayed := make(chan *mcp.ProgressNotificationParams, 16)
	upstreamTokens := make(chan any, 16)
	mt := f.g.tools["submit_payment"]
	f.upstream.AddTool(&mcp.Tool{Name: "submit_payment", Description: mt.Definition.Description, InputSchema: rawJSON(sampleSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.calls.Add(1)
			tok := req.Params.GetProgressToken()
			upstreamTokens <- tok
			for i := 1; i <= 3; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: "step"}); err != nil {
					return nil, err
				}
				// The next step once the client has this one: the
				// relay is asserted, not raced.
				select {
				case <-relayed:
				case <-time.After(10 * time.Second):
				}
			}
			return &mcp.CallToolResult{StructuredContent: map[string]any{"paymentID": "p", "status": "submitted"}}, nil
		})
	f.g.Refresh(context.Background())
	srv := httptest.NewServer(f.g.Handler())
	t.Cleanup(srv.Close)

	for _, version := range []string{ProtocolStateless, ProtocolSessions} {
		t.Run(version, func(t *testing.T) {
			got := make(chan *mcp.ProgressNotificationParams, 16)
			cs := sdkClient(t, srv.URL, version, func(p *mcp.ProgressNotificationParams) { got <- p; relayed <- p })
			res, err := cs.CallTool(context.Background(), paymentCall(mcp.Meta{"progressToken": "client-token"}))
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
			if up := <-upstreamTokens; up == "client-token" || up == nil {
				t.Fatalf("the upstream saw token %v, want one the gateway minted", up)
			}
			for i := 1; i <= 3; i++ {
				select {
				case p := <-got:
					if p.ProgressToken != "client-token" || p.Progress != float64(i) || p.Total != 3 {
						t.Fatalf("notification %d: %+v", i, p)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("notification %d never reached the client", i)
				}
			}
		})
	}
}

// TestTheClientsProtocolMetaIsNotForwarded: under 2026-07-28 every
// request's _meta carries the client's protocol version, info and
// capabilities; they describe the client's hop, and a session-based
// upstream would refuse a call carrying them. The upstream reads the
// gateway's own, never the client's.
func TestTheClientsProtocolMetaIsNotForwarded(t *testing.T) {
	f := newFixture(t)
	f.g.Refresh(context.Background())
	srv := httptest.NewServer(f.g.Handler())
	t.Cleanup(srv.Close)
	cs := sdkClient(t, srv.URL, ProtocolStateless, func(*mcp.ProgressNotificationParams) {})
	res, err := cs.CallTool(context.Background(), paymentCall(mcp.Meta{"dev.example/trace": "t-1"}))
	if err != nil || res.IsError || f.calls.Load() != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	wire := f.wire.String()
	if strings.Contains(wire, `"name":"agent"`) {
		t.Fatalf("the upstream read the client's protocol _meta:\n%s", wire)
	}
	if !strings.Contains(wire, `"dev.example/trace":"t-1"`) {
		t.Fatalf("another _meta key was not passed on:\n%s", wire)
	}
}

// TestAClientsCancellationIsRelayedAndTheCallIsUncertain: a client that
// cancels an in-flight call makes the gateway cancel it upstream
// (notifications/cancelled, or the ended request under 2026-07-28), and the
// outcome is uncertain with reason cancelled: the upstream may have acted
// before it read the cancellation. The upstream session survives.
func TestAClientsCancellationIsRelayedAndTheCallIsUncertain(t *testing.T) {
	f := newFixture(t)
	started, cancelled := make(chan struct{}, 4), make(chan struct{}, 4)
	mt := f.g.tools["submit_payment"]
	f.upstream.AddTool(&mcp.Tool{Name: "submit_payment", Description: mt.Definition.Description, InputSchema: rawJSON(sampleSchema)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.calls.Add(1)
			started <- struct{}{}
			select {
			case <-ctx.Done():
				cancelled <- struct{}{}
			case <-time.After(20 * time.Second):
			}
			return nil, ctx.Err()
		})
	f.g.Refresh(context.Background())
	srv := httptest.NewServer(f.g.Handler())
	t.Cleanup(srv.Close)

	for i, version := range []string{ProtocolStateless, ProtocolSessions} {
		t.Run(version, func(t *testing.T) {
			cs := sdkClient(t, srv.URL, version, func(*mcp.ProgressNotificationParams) {})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, paymentCall(mcp.Meta{}))
				errc <- err
			}()
			<-started
			cancel()
			if err := <-errc; err == nil {
				t.Fatal("a cancelled call returned a result")
			}
			select {
			case <-cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("the upstream never saw the cancellation")
			}
			recs := waitOutcomes(t, f.g.cfg.OutcomeLog, i+1)
			if r := recs[i]; r.Outcome != OutcomeUncertain || r.Reason != "cancelled" {
				t.Fatalf("recorded %+v, want uncertain with reason cancelled", r)
			}
		})
	}
	// The upstream session was not dropped: the same one serves on.
	f.g.mu.Lock()
	alive := f.g.session != nil
	f.g.mu.Unlock()
	if !alive {
		t.Fatal("a client's cancellation dropped the upstream session")
	}
}

// waitOutcomes reads the outcome log's outcome lines until there are n
// (line by line: the stand-in service gives every call one binding).
func waitOutcomes(t *testing.T, path string, n int) []Record {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var recs []Record
		for _, line := range bytes.Split(raw, []byte("\n")) {
			var r Record
			if encjson.Unmarshal(line, &r) == nil && r.Event == "outcome" {
				recs = append(recs, r)
			}
		}
		if len(recs) >= n {
			return recs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outcome log holds %d outcomes, want %d", len(recs), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServerDiscoverAdvertisesBothVersions: server/discover is answered
// by the SDK's stateless handler and names 2026-07-28 and 2025-11-25.
func TestServerDiscoverAdvertisesBothVersions(t *testing.T) {
	f := newFixture(t)
	f.g.Refresh(context.Background())
	srv := httptest.NewServer(f.g.Handler())
	t.Cleanup(srv.Close)
	for _, version := range []string{ProtocolStateless} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Method", "server/discover")
		req.Header.Set("Mcp-Protocol-Version", version)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		_ = resp.Body.Close()
		body := buf.String()
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"2026-07-28"`) || !strings.Contains(body, `"2025-11-25"`) {
			t.Fatalf("version header %q: %d %s", version, resp.StatusCode, body)
		}
	}
}

func rawJSON(s string) encjson.RawMessage { return encjson.RawMessage(s) }

// TestACallCancelledWhileConsumedIsNotForwarded: a client's cancellation
// does not interrupt the Consumption (its answer says whether the
// Authorization is spent), and a call cancelled by then is not forwarded:
// failed, reason cancelled.
func TestACallCancelledWhileConsumedIsNotForwarded(t *testing.T) {
	f := newFixture(t)
	f.g.Refresh(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mt := f.g.tools["submit_payment"]
	f.g.call(ctx, mt, &mcp.CallToolParamsRaw{Name: "submit_payment", Arguments: encjson.RawMessage(`{"amount":1}`),
		Meta: mcp.Meta{MetaKey: map[string]any{"artifact": "a"}}})
	if f.consumes.Load() != 1 || f.calls.Load() != 0 {
		t.Fatalf("%d consumes, %d upstream calls; want the Consumption and no call", f.consumes.Load(), f.calls.Load())
	}
	if r := waitOutcomes(t, f.g.cfg.OutcomeLog, 1)[0]; r.Outcome != OutcomeFailed || r.Reason != "cancelled" {
		t.Fatalf("recorded %+v, want failed with reason cancelled", r)
	}
}
