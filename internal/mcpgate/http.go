// The MCP endpoint's HTTP layer: one message per POST, the MCP 2026-07-28
// standard headers checked against the body before the SDK reads it, and
// the choice of the SDK handler that serves the request's protocol version.

package mcpgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/toolgate/toolgate/internal/argprofile"
)

// The protocol versions the gateway negotiates (docs/mcp.md, "Protocol
// versions"): the stateless 2026-07-28 and the session-based ones before it.
const (
	ProtocolStateless = "2026-07-28"
	ProtocolSessions  = "2025-11-25"
)

// The MCP standard request headers (MCP 2026-07-28, Streamable HTTP).
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// CodeHeaderMismatch is the JSON-RPC error code of a request whose MCP
// headers disagree with its body (MCP 2026-07-28; mcp.CodeHeaderMismatch).
const CodeHeaderMismatch = mcp.CodeHeaderMismatch

// mcpHandler serves /mcp. Every POST is read whole (bounded) and must be
// exactly one JSON-RPC message; its Mcp-Method, Mcp-Name and Mcp-Param-*
// headers are checked against it; only then does an SDK handler see it:
// the stateless one for a request that says it speaks 2026-07-28 (with an
// SSE answer when it asks for progress, so the notifications travel with
// its response), the session-based one otherwise.
func (g *Gateway) mcpHandler() http.Handler {
	maxBody := int64(g.cfg.MaxArgs()) + 64<<10
	getServer := func(*http.Request) *mcp.Server { return g.server }
	sessions := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: maxBody,
		// One application/json answer per request instead of an SSE
		// stream: a tools/call has exactly one response, and the stream's
		// framing and flushes cost CPU on every call (docs/performance.md).
		// Notifications, progress included, reach the client on its
		// standalone GET stream.
		JSONResponse: true,
	})
	stateless := func(sse bool) http.Handler {
		return mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
			MaxRequestBodyBytes: maxBody,
			Stateless:           true,
			JSONResponse:        !sse,
			// Under 2026-07-28 the POST is the request's whole life: a
			// client that goes away cancels it, and the gateway relays
			// the cancellation upstream.
			PropagateRequestCancellation: true,
		})
	}
	statelessJSON, statelessSSE := stateless(false), stateless(true)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		modern := r.Header.Get(headerProtocolVersion) >= ProtocolStateless
		if r.Method != http.MethodPost {
			if modern {
				statelessJSON.ServeHTTP(w, r)
			} else {
				sessions.ServeHTTP(w, r)
			}
			return
		}
		body, ok := readOneMessage(w, r, maxBody)
		if !ok {
			return
		}
		env := readEnvelope(body)
		if ref := g.checkHeaders(r.Header, env, modern); ref != nil {
			if env.Method == "tools/call" {
				g.calls.WithLabelValues(ref.Code).Inc()
			}
			g.log.Info("mcp gateway: request refused", "method", safeMethod(env.Method), "code", ref.Code, "path", ref.Path)
			writeHeaderMismatch(w, env.ID, ref)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		switch {
		case modern && env.progress:
			statelessSSE.ServeHTTP(w, r)
		case modern:
			statelessJSON.ServeHTTP(w, r)
		default:
			sessions.ServeHTTP(w, r)
		}
	})
}

// readOneMessage refuses, with 400 and before anything runs, a POST whose
// body is not exactly one JSON-RPC message (an object, white space around
// it). The SDK's transport decodes the first of two concatenated messages
// and drops the rest, and runs a batch (an array) under protocol versions
// before 2025-06-18: either would execute what the agent's reading of the
// exchange may not match. The bound is the transport's own, answered 413 as
// it does.
func readOneMessage(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", limit), http.StatusRequestEntityTooLarge)
			return nil, false
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return nil, false
	}
	// Valid accepts exactly one value, anything after it fails. It is the
	// JSON package the SDK decodes with, and 30 times faster than
	// encoding/json's on a call carrying an artifact.
	if m := bytes.Trim(body, " \t\r\n"); len(m) == 0 || m[0] != '{' || !segjson.Valid(m) {
		http.Error(w, "the body must be exactly one JSON-RPC message: no batch, nothing after it", http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// envelope is what the header checks and the routing read of a message.
type envelope struct {
	ID     json.RawMessage
	Method string
	// Name is params.name (tools/call, prompts/get) or params.uri
	// (resources/read); named says the body has one as a string.
	Name      string
	named     bool
	Arguments json.RawMessage
	progress  bool // params._meta.progressToken is present and not null
}

// readEnvelope reads the members it needs; a message whose params are not
// an object keeps an empty name (the SDK refuses such a message itself).
func readEnvelope(body []byte) envelope {
	var top struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_ = segjson.Unmarshal(body, &top)
	env := envelope{ID: top.ID, Method: top.Method}
	var p struct {
		Name      *string         `json:"name"`
		URI       *string         `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if len(top.Params) == 0 || top.Params[0] != '{' || segjson.Unmarshal(top.Params, &p) != nil {
		return env
	}
	name := p.Name
	if top.Method == "resources/read" {
		name = p.URI
	}
	if name != nil {
		env.Name, env.named = *name, true
	}
	env.Arguments = p.Arguments
	env.progress = len(p.Meta.ProgressToken) > 0 && string(p.Meta.ProgressToken) != "null"
	return env
}

// namedMethods are the methods whose Mcp-Name mirrors a params member.
var namedMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// checkHeaders compares the MCP standard headers with the body. A header
// that is present must agree, whatever the protocol version (an
// intermediary may have routed or filtered by it); under 2026-07-28
// Mcp-Method is required on every message and Mcp-Name on the named
// methods, as the specification asks. For a tools/call of a tool with a
// reviewed argument profile, its Mcp-Param-* headers are checked by the
// profile under 2026-07-28, and under an earlier version when the request
// carries any. No header value is quoted.
func (g *Gateway) checkHeaders(h http.Header, env envelope, modern bool) *Refusal {
	if env.Method == "" {
		// A response to a server request: no method to mirror. A
		// header on it disagrees with the body.
		if len(h.Values(headerMethod)) > 0 || len(h.Values(headerName)) > 0 {
			return mismatch(headerMethod, "a message without a method carries MCP method headers")
		}
		return nil
	}
	switch m := h.Values(headerMethod); {
	case len(m) > 1:
		return mismatch(headerMethod, "the header is repeated")
	case len(m) == 1 && m[0] != env.Method:
		return mismatch(headerMethod, "the header does not match the body's method")
	case len(m) == 0 && modern:
		return mismatch(headerMethod, "the header is required under protocol version "+ProtocolStateless)
	}
	switch n := h.Values(headerName); {
	case !namedMethods[env.Method]:
		if len(n) > 0 {
			return mismatch(headerName, "the header is sent for a method that names nothing")
		}
	case len(n) > 1:
		return mismatch(headerName, "the header is repeated")
	case len(n) == 1 && (!env.named || n[0] != env.Name):
		return mismatch(headerName, "the header does not match the body's name")
	case len(n) == 0 && modern:
		return mismatch(headerName, "the header is required for this method under protocol version "+ProtocolStateless)
	}
	if env.Method != "tools/call" {
		return nil
	}
	mt, ok := g.tools[env.Name]
	if !ok || mt.profile == nil || (!modern && !hasParamHeader(h)) {
		return nil
	}
	args := []byte(env.Arguments)
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if err := mt.profile.CheckHeaders(args, h.Values); err != nil {
		path := "params.arguments"
		var pe *argprofile.Error
		if errors.As(err, &pe) && pe.Path != "" {
			path += pe.Path
		}
		return &Refusal{Code: "headerMismatch", Path: path, Message: "an Mcp-Param header disagrees with the arguments"}
	}
	return nil
}

func hasParamHeader(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(k, argprofile.HeaderPrefix) {
			return true
		}
	}
	return false
}

func mismatch(header, why string) *Refusal {
	return &Refusal{Code: "headerMismatch", Path: header, Message: why}
}

// writeHeaderMismatch answers a refused message as the SDK answers a header
// mismatch (400, a JSON-RPC error -32020), with the refusal's code and
// path as its data.
func writeHeaderMismatch(w http.ResponseWriter, id json.RawMessage, r *Refusal) {
	type refusal struct {
		Code string `json:"code"`
		Path string `json:"path"`
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Error   struct {
			Code    int                `json:"code"`
			Message string             `json:"message"`
			Data    map[string]refusal `json:"data"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	if len(bytes.TrimSpace(id)) == 0 || !validID(id) {
		resp.ID = nil
	}
	resp.Error.Code = CodeHeaderMismatch
	resp.Error.Message = "header mismatch at " + r.Path + ": " + r.Message
	resp.Error.Data = map[string]refusal{RefusalMetaKey: {Code: r.Code, Path: r.Path}}
	b, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// validID is a JSON-RPC id the answer may repeat: a string or a number.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// safeMethod is a method name fit for a log line: one MCP defines, or
// "other" (a client's invented method is its content).
func safeMethod(m string) string {
	if servedMethods[m] || namedMethods[m] {
		return m
	}
	return "other"
}
