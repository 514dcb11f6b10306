package mcpgate

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkHeaderCheck is the HTTP layer's added work on one tools/call
// carrying a 3 KB artifact: reading the envelope and checking the standard
// headers.
func BenchmarkHeaderCheck(b *testing.B) {
	f := newFixture(b)
	body := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"submit_payment",`+
		`"arguments":{"amount":1,"currency":"eur","debtor-account":"a","creditor-account":"b"},"_meta":{%q:{"artifact":%q,"authorizationID":"a"}}}}`,
		MetaKey, strings.Repeat("x", 3000)))
	h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"submit_payment"}}
	b.ReportAllocs()
	for b.Loop() {
		if r := f.g.checkHeaders(h, readEnvelope(body), true); r != nil {
			b.Fatal(r.Code)
		}
	}
}

// BenchmarkCallOverHTTP is one forwarded tools/call from the official SDK
// client through the gateway's HTTP layer, per protocol version: the
// stateless 2026-07-28 handler makes a session per request, the 2025-11-25
// one reuses the client's.
func BenchmarkCallOverHTTP(b *testing.B) {
	for _, version := range []string{ProtocolStateless, ProtocolSessions} {
		b.Run(version, func(b *testing.B) {
			f := newFixture(b)
			f.g.Refresh(context.Background())
			srv := httptest.NewServer(f.g.Handler())
			b.Cleanup(srv.Close)
			c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close() })
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), paymentCall(mcp.Meta{}))
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
