package mcpgate

import (
	"context"
	"encoding/json"

	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// paymentProfile is a reviewed argument profile of the sample's
// submit_payment that mirrors amount and debtor-account into headers.
const paymentProfile = `
    profile: toolgate.mcp-arguments/1
    tool: submit_payment
    arguments:
      choice: object
      members:
      - {json: amount, field: amount, required: true, header: Amount, value: {choice: integer, unsigned: true}}
      - json: currency
        field: currency
        required: true
        value: {choice: enum, cases: [{json: eur, case: eur}, {json: gbp, case: gbp}, {json: usd, case: usd}]}
      - {json: debtor-account, field: debtor-account, required: true, header: Debtor, value: {choice: string}}
      - {json: creditor-account, field: creditor-account, required: true, value: {choice: string}}
      - {json: memo, field: memo, value: {choice: text, bind: digest}}
`

// withProfile puts profile under the sample's one tool, whose reviewed
// inputSchema then marks amount and debtor-account x-mcp-header (and has
// no digest line: the edit changes the definition).
func withProfile(t testing.TB, profile string) string {
	t.Helper()
	s := annotated(t, sample(t))
	edited := strings.Replace(s, "  outputSchema:\n", "  arguments:"+profile+"  outputSchema:\n", 1)
	if edited == s {
		t.Fatal("the edit did not apply")
	}
	return edited
}

func annotated(t testing.TB, s string) string {
	t.Helper()
	for _, r := range [][2]string{
		{"amount: {type: integer, minimum: 0}", "amount: {type: integer, minimum: 0, x-mcp-header: Amount}"},
		{"debtor-account: {type: string}", "debtor-account: {type: string, x-mcp-header: Debtor}"},
		{"  definitionDigest: sha256:8a8f672596aa55170edf519fbb9f70cc0b428e67a1348944a81088ac3fc9a3b1\n", ""},
	} {
		edited := strings.Replace(s, r[0], r[1], 1)
		if edited == s {
			t.Fatalf("the edit %q did not apply", r[0])
		}
		s = edited
	}
	return s
}

// annotatedSchema is sampleSchema with the same x-mcp-header members.
var annotatedSchema = strings.NewReplacer(
	`"amount":{"type":"integer","minimum":0}`, `"amount":{"type":"integer","minimum":0,"x-mcp-header":"Amount"}`,
	`"debtor-account":{"type":"string"}`, `"debtor-account":{"type":"string","x-mcp-header":"Debtor"}`,
).Replace(sampleSchema)

// TestAnArgumentProfileIsCheckedAtLoad: a mapping's profile must parse
// (every error at its path under tools[i].arguments) and be the profile of
// the tool it is mapped under.
func TestAnArgumentProfileIsCheckedAtLoad(t *testing.T) {
	if _, err := ParseConfig([]byte(withProfile(t, paymentProfile))); err != nil {
		t.Fatalf("a reviewed profile: %v", err)
	}
	for name, tc := range map[string]struct {
		profile string
		paths   []string
	}{
		"a profile of another tool": {strings.Replace(paymentProfile, "tool: submit_payment", "tool: refund_payment", 1),
			[]string{"tools[0].arguments.tool"}},
		"a profile that does not parse": {strings.Replace(paymentProfile, "profile: toolgate.mcp-arguments/1", "profile: toolgate.mcp-arguments/9", 1),
			[]string{"tools[0].arguments"}},
		"a profile whose headers are not the schema's x-mcp-header members": {strings.Replace(paymentProfile, "header: Debtor, ", "", 1),
			[]string{"tools[0].arguments"}},
		"an unknown field in the profile": {strings.Replace(paymentProfile, "choice: object", "choice: object\n      open: true", 1),
			[]string{"tools[0].arguments"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseConfig([]byte(withProfile(t, tc.profile)))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
			for _, p := range tc.paths {
				if !strings.Contains(err.Error(), "config: "+p) {
					t.Fatalf("got %v, want one at %s", err, p)
				}
			}
		})
	}
}

// TestAClientAuthBlockReportsEveryErrorAtOnce: each invalid field of
// clientAuth is reported with its path under clientAuth, all at once.
func TestAClientAuthBlockReportsEveryErrorAtOnce(t *testing.T) {
	s := sample(t) + `clientAuth:
  resource: http://gateway.example.com/mcp/
  authorizationServers: [http://issuer.example.com]
  jwt: {issuer: https://issuer.example.com, jwksURL: https://issuer.example.com/jwks, algorithms: [HS256]}
`
	_, err := ParseConfig([]byte(s))
	if err == nil {
		t.Fatal("accepted")
	}
	if got := strings.Count(err.Error(), "config: clientAuth.resource:"); got != 2 {
		t.Errorf("%d errors at clientAuth.resource (a trailing slash, not /mcp), want 2: %v", got, err)
	}
	for _, p := range []string{"clientAuth.resource", "clientAuth.authorizationServers[0]", "clientAuth.jwt.algorithms[0]"} {
		if !strings.Contains(err.Error(), "config: "+p+":") {
			t.Errorf("no error at %s in %v", p, err)
		}
	}
	if _, err := ParseConfig([]byte(sample(t) + "clientAuth:\n  resource: https://g.example.com/mcp\n  authorizationServers: [https://i.example.com]\n  tokenReview: true\n  jwks: {}\n")); err == nil {
		t.Error("an unknown field in clientAuth was accepted")
	}
}

// TestMCPHeadersThatDisagreeWithTheBodyAreRefusedBeforeAnything: the
// Mcp-Method, Mcp-Name and (with a profile) Mcp-Param-* headers of a POST
// are compared with its body before the SDK reads it. A disagreement is a
// JSON-RPC error -32020 naming the header or argument pointer, never the
// value, and neither the service nor the upstream sees the call; under
// 2026-07-28 the standard headers are required; under 2025-11-25 they are
// checked when present.
func TestMCPHeadersThatDisagreeWithTheBodyAreRefusedBeforeAnything(t *testing.T) {
	cfg, err := ParseConfig([]byte(withProfile(t, paymentProfile)))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *Config) { c.Tools = cfg.Tools })
	f.upstream.AddTool(&mcp.Tool{Name: "submit_payment", Description: cfg.Tools[0].Definition.Description, InputSchema: json.RawMessage(annotatedSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.calls.Add(1)
			return &mcp.CallToolResult{StructuredContent: map[string]any{"paymentID": "p", "status": "submitted"}}, nil
		})
	f.g.Refresh(context.Background())
	srv := httptest.NewServer(f.g.Handler())
	t.Cleanup(srv.Close)

	const args = `{"amount":12,"currency":"eur","debtor-account":"acct-1","creditor-account":"b"}`
	call := func(id int, name string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{%q:{"artifact":"a"},`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			id, name, args, MetaKey)
	}
	good := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "submit_payment", "Mcp-Param-Amount": "12", "Mcp-Param-Debtor": "acct-1"}
	with := func(edits map[string]string) map[string]string {
		h := map[string]string{}
		for k, v := range good {
			h[k] = v
		}
		for k, v := range edits {
			if v == "" {
				delete(h, k)
			} else {
				h[k] = v
			}
		}
		return h
	}
	post := func(version, body string, headers map[string]string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var msg map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&msg)
		return resp.StatusCode, msg
	}

	if status, msg := post(ProtocolStateless, call(1, "submit_payment"), good); status != http.StatusOK || msg["error"] != nil || f.calls.Load() != 1 {
		t.Fatalf("agreeing headers: %d %v after %d upstream calls, want forwarded once", status, msg, f.calls.Load())
	}
	for name, tc := range map[string]struct {
		version string
		headers map[string]string
		path    string
	}{
		"another method in Mcp-Method":               {ProtocolStateless, with(map[string]string{"Mcp-Method": "tools/list"}), "Mcp-Method"},
		"another tool in Mcp-Name":                   {ProtocolStateless, with(map[string]string{"Mcp-Name": "refund_payment"}), "Mcp-Name"},
		"no Mcp-Method under 2026-07-28":             {ProtocolStateless, with(map[string]string{"Mcp-Method": ""}), "Mcp-Method"},
		"no Mcp-Name under 2026-07-28":               {ProtocolStateless, with(map[string]string{"Mcp-Name": ""}), "Mcp-Name"},
		"another amount in Mcp-Param-Amount":         {ProtocolStateless, with(map[string]string{"Mcp-Param-Amount": "1200"}), "params.arguments/amount"},
		"no Mcp-Param-Debtor under 2026-07-28":       {ProtocolStateless, with(map[string]string{"Mcp-Param-Debtor": ""}), "params.arguments/debtor-account"},
		"another debtor in base64":                   {ProtocolStateless, with(map[string]string{"Mcp-Param-Debtor": "=?base64?YWNjdC0y?="}), "params.arguments/debtor-account"},
		"another tool in Mcp-Name under 2025-11-25":  {ProtocolSessions, with(map[string]string{"Mcp-Name": "refund_payment"}), "Mcp-Name"},
		"another amount under 2025-11-25":            {ProtocolSessions, with(map[string]string{"Mcp-Param-Amount": "13"}), "params.arguments/amount"},
		"a mirrored member missing under 2025-11-25": {ProtocolSessions, with(map[string]string{"Mcp-Param-Debtor": ""}), "params.arguments/debtor-account"},
	} {
		t.Run(name, func(t *testing.T) {
			consumes, calls := f.consumes.Load(), f.calls.Load()
			status, msg := post(tc.version, call(2, "submit_payment"), tc.headers)
			e, _ := msg["error"].(map[string]any)
			if status != http.StatusBadRequest || e == nil || e["code"] != float64(CodeHeaderMismatch) {
				t.Fatalf("%d %v, want 400 and a %d error", status, msg, CodeHeaderMismatch)
			}
			data, _ := e["data"].(map[string]any)
			ref, _ := data[RefusalMetaKey].(map[string]any)
			if ref["code"] != "headerMismatch" || ref["path"] != tc.path {
				t.Fatalf("refusal %v, want headerMismatch at %s", ref, tc.path)
			}
			if msg["id"] != float64(2) {
				t.Fatalf("the error answers id %v", msg["id"])
			}
			for _, v := range []string{"1200", "acct-2", "refund_payment", "YWNjdC0y"} {
				if strings.Contains(fmt.Sprint(msg), v) {
					t.Fatalf("the answer quotes a value: %v", msg)
				}
			}
			if f.consumes.Load() != consumes || f.calls.Load() != calls {
				t.Fatal("a refused request reached the service or the upstream")
			}
		})
	}
	t.Run("the SDK client's own mirrored headers pass", func(t *testing.T) {
		cs := sdkClient(t, srv.URL, ProtocolStateless, func(*mcp.ProgressNotificationParams) {})
		if _, err := cs.ListTools(context.Background(), nil); err != nil { // the SDK mirrors listed tools only
			t.Fatal(err)
		}
		calls := f.calls.Load()
		res, err := cs.CallTool(context.Background(), paymentCall(mcp.Meta{}))
		if err != nil || res.IsError || f.calls.Load() != calls+1 {
			t.Fatalf("%v %+v after %d upstream calls", err, res, f.calls.Load()-calls)
		}
	})
	t.Run("no standard headers under 2025-11-25 are not required", func(t *testing.T) {
		_, sid := initialize(t, srv.URL)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", ProtocolSessions)
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("tools/list without Mcp-Method under 2025-11-25: %d", resp.StatusCode)
		}
	})
}

// initialize opens a 2025-11-25 session by hand.
func initialize(t *testing.T, base string) (int, string) {
	t.Helper()
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", ProtocolSessions)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp.StatusCode, sid
}
