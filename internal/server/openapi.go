package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/client"
)

// OpenAPI returns the OpenAPI 3.1 document of the API, derived from the
// wire types in package client so that it cannot drift from them
// (docs/openapi.yaml is this output; a test compares them).
func OpenAPI() ([]byte, error) {
	s := wireSchemas{}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": "toolgate authorization API", "version": "v1"},
		"paths":   s.paths(),
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
			"schemas":         map[string]any(s),
		},
	}
	return yaml.Marshal(doc)
}

// wireSchemas collects the component schemas of the wire types a path
// names, by type name.
type wireSchemas map[string]any

// paths are the API's operations: the four POST verbs, the probes and
// the metrics.
func (s wireSchemas) paths() map[string]any {
	return map[string]any{
		"/v1/authorize": s.post("Decide one tool call and, on an eligible allow, issue a signed single-use Authorization; an identical request gets the same one (agent runtimes)",
			reflect.TypeFor[client.AuthorizeRequest](), reflect.TypeFor[client.AuthorizeResponse](), "409", "503"),
		"/v1/validate": s.post("Validate an artifact against the executor's own expectations; consumes nothing (executors)",
			reflect.TypeFor[client.ValidateRequest](), reflect.TypeFor[client.ValidateResponse](), "409"),
		"/v1/consume": s.post("Validate, recheck the intent binding and atomically consume, immediately before the side effect (executors)",
			reflect.TypeFor[client.ValidateRequest](), reflect.TypeFor[client.ValidateResponse](), "409", "503"),
		"/v1/current": s.post("What the domain serves as current: the current generation of each snapshot identity and the active version of each policy, what a selection of \"current\" resolves to now (agent runtimes, executors)",
			reflect.TypeFor[client.CurrentRequest](), reflect.TypeFor[client.CurrentResponse]()),
		// toolgate.confirmations/1 (docs/confirmation.md).
		"/v1/confirmations": map[string]any{"get": s.authenticatedGet(
			"List the pending confirmation requests visible to the caller (its own requests; all of a domain it confirms in)",
			reflect.TypeFor[client.ConfirmationList](), nil)},
		"/v1/confirmations/{id}": map[string]any{"get": s.authenticatedGet(
			"Show one confirmation request visible to the caller",
			reflect.TypeFor[client.Confirmation](), s.idParameter(), "404")},
		"/v1/confirmations/{id}/approve": s.answer("Approve one confirmation request, as one of its domain's confirmers; an answer is final"),
		"/v1/confirmations/{id}/deny":    s.answer("Refuse one confirmation request, as one of its domain's confirmers; a no is final"),
		"/healthz":                       s.probe("liveness"),
		"/readyz":                        s.probe("readiness: domains loaded and the Consumption store answers"),
		"/metrics":                       map[string]any{"get": map[string]any{"summary": "Prometheus metrics", "responses": map[string]any{"200": s.reply("text exposition format", nil)}}},
	}
}

// post is one authenticated JSON verb: its body in, out on success, and
// the API's error body for every refusal status (docs/api.md), plus extra.
func (s wireSchemas) post(summary string, in, out reflect.Type, extra ...string) map[string]any {
	responses := map[string]any{}
	for _, c := range append([]string{"400", "401", "403", "404", "405", "408", "413", "415", "417", "422", "431", "501", "505"}, extra...) {
		responses[c] = s.reply("rejected; see docs/api.md for the status table", reflect.TypeFor[client.ErrorResponse]())
	}
	responses["200"] = s.reply("success", out)
	body := map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": s.of(in)}}}
	return map[string]any{"post": map[string]any{
		"summary": summary, "security": []any{map[string]any{"bearer": []any{}}},
		"requestBody": body, "responses": responses,
	}}
}

// authenticatedGet is one authenticated GET answering out, with the API's
// error body for every refusal status.
func (s wireSchemas) authenticatedGet(summary string, out reflect.Type, params []any, extra ...string) map[string]any {
	responses := map[string]any{"200": s.reply("success", out)}
	for _, c := range append([]string{"401", "404"}, extra...) {
		responses[c] = s.reply("rejected; see docs/api.md for the status table", reflect.TypeFor[client.ErrorResponse]())
	}
	op := map[string]any{"summary": summary, "security": []any{map[string]any{"bearer": []any{}}}, "responses": responses}
	if params != nil {
		op["parameters"] = params
	}
	return op
}

// idParameter is the confirmation request identity in the path.
func (s wireSchemas) idParameter() []any {
	return []any{map[string]any{"name": "id", "in": "path", "required": true,
		"description": "the hex of the confirmation binding digest", "schema": map[string]any{"type": "string"}}}
}

// answer is one authenticated POST without a body that answers a
// confirmation request.
func (s wireSchemas) answer(summary string) map[string]any {
	responses := map[string]any{"200": s.reply("answered", reflect.TypeFor[client.Confirmation]())}
	for _, c := range []string{"400", "401", "403", "404", "409"} {
		responses[c] = s.reply("rejected; see docs/confirmation.md for the refusal codes", reflect.TypeFor[client.ErrorResponse]())
	}
	return map[string]any{"post": map[string]any{
		"summary": summary, "security": []any{map[string]any{"bearer": []any{}}},
		"parameters": s.idParameter(), "responses": responses,
	}}
}

// probe is an unauthenticated GET answered 200 or, not ready, 503 (405
// for another method) with the API's error body.
func (s wireSchemas) probe(summary string) map[string]any {
	return map[string]any{"get": map[string]any{"summary": summary, "responses": map[string]any{
		"200": s.reply("ok", nil), "405": s.reply("not GET", reflect.TypeFor[client.ErrorResponse]()),
		"503": s.reply("not ready", reflect.TypeFor[client.ErrorResponse]()),
	}}}
}

// reply is one response: a description and, when t is not nil, a JSON body
// of type t.
func (s wireSchemas) reply(desc string, t reflect.Type) map[string]any {
	r := map[string]any{"description": desc}
	if t != nil {
		r["content"] = map[string]any{"application/json": map[string]any{"schema": s.of(t)}}
	}
	return r
}

// of returns the schema of wire type t: a struct as a reference to its
// component schema (added on first use: types may recur), every other kind
// inline. A kind the wire types do not use panics, so a new one is decided
// here rather than guessed.
func (s wireSchemas) of(t reflect.Type) map[string]any {
	if t == reflect.TypeFor[json.RawMessage]() {
		return map[string]any{"description": "raw JSON, passed byte for byte to its own strict parser"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return s.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Uint64, reflect.Int:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": s.of(t.Elem())}
	case reflect.Struct:
		if _, done := s[t.Name()]; !done {
			s[t.Name()] = nil // reserve: types may recur
			s[t.Name()] = s.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + t.Name()}
	default:
		panic("openapi: unsupported wire kind " + t.Kind().String())
	}
}

// object is the closed object schema of struct t: a property per JSON
// member, required unless omitempty.
func (s wireSchemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		props[tag] = s.of(f.Type)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, tag)
		}
	}
	slices.Sort(required)
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}
