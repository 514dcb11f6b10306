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
	schemas := map[string]any{}
	var schemaOf func(t reflect.Type) map[string]any
	schemaOf = func(t reflect.Type) map[string]any {
		if t == reflect.TypeFor[json.RawMessage]() {
			return map[string]any{"description": "raw JSON, passed byte for byte to its own strict parser"}
		}
		switch t.Kind() {
		case reflect.Pointer:
			return schemaOf(t.Elem())
		case reflect.String:
			return map[string]any{"type": "string"}
		case reflect.Bool:
			return map[string]any{"type": "boolean"}
		case reflect.Uint64, reflect.Int:
			return map[string]any{"type": "integer", "minimum": 0}
		case reflect.Slice:
			return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
		case reflect.Struct:
			name := t.Name()
			if _, done := schemas[name]; !done {
				schemas[name] = nil // reserve: types may recur
				props := map[string]any{}
				var required []string
				for i := range t.NumField() {
					f := t.Field(i)
					tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
					if tag == "" || tag == "-" {
						continue
					}
					props[tag] = schemaOf(f.Type)
					if !strings.Contains(opts, "omitempty") {
						required = append(required, tag)
					}
				}
				slices.Sort(required)
				s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
				if len(required) > 0 {
					s["required"] = required
				}
				schemas[name] = s
			}
			return map[string]any{"$ref": "#/components/schemas/" + name}
		default:
			panic("openapi: unsupported wire kind " + t.Kind().String())
		}
	}
	body := func(t reflect.Type) map[string]any {
		return map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": schemaOf(t)}}}
	}
	reply := func(desc string, t reflect.Type) map[string]any {
		r := map[string]any{"description": desc}
		if t != nil {
			r["content"] = map[string]any{"application/json": map[string]any{"schema": schemaOf(t)}}
		}
		return r
	}
	errs := func(codes ...string) map[string]any {
		m := map[string]any{}
		for _, c := range codes {
			m[c] = reply("rejected; see docs/api.md for the status table", reflect.TypeFor[client.ErrorResponse]())
		}
		return m
	}
	post := func(summary string, in, out reflect.Type, extra ...string) map[string]any {
		responses := errs(append([]string{"400", "401", "403", "404", "405", "408", "413", "415", "417", "422", "431", "501", "505"}, extra...)...)
		responses["200"] = reply("success", out)
		return map[string]any{"post": map[string]any{
			"summary": summary, "security": []any{map[string]any{"bearer": []any{}}},
			"requestBody": body(in), "responses": responses,
		}}
	}
	probe := func(summary string) map[string]any {
		return map[string]any{"get": map[string]any{"summary": summary, "responses": map[string]any{"200": reply("ok", nil),
			"405": reply("not GET", reflect.TypeFor[client.ErrorResponse]()), "503": reply("not ready", reflect.TypeFor[client.ErrorResponse]())}}}
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": "toolgate authorization API", "version": "v1"},
		"paths": map[string]any{
			"/v1/authorize": post("Decide one tool call and, on an eligible allow, issue a signed single-use Authorization; an identical request gets the same one (agent runtimes)",
				reflect.TypeFor[client.AuthorizeRequest](), reflect.TypeFor[client.AuthorizeResponse](), "409", "503"),
			"/v1/validate": post("Validate an artifact against the executor's own expectations; consumes nothing (executors)",
				reflect.TypeFor[client.ValidateRequest](), reflect.TypeFor[client.ValidateResponse](), "409"),
			"/v1/consume": post("Validate, recheck the intent binding and atomically consume, immediately before the side effect (executors)",
				reflect.TypeFor[client.ValidateRequest](), reflect.TypeFor[client.ValidateResponse](), "409", "503"),
			"/healthz": probe("liveness"),
			"/readyz":  probe("readiness: domains loaded and the Consumption store answers"),
			"/metrics": map[string]any{"get": map[string]any{"summary": "Prometheus metrics", "responses": map[string]any{"200": reply("text exposition format", nil)}}},
		},
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
			"schemas":         schemas,
		},
	}
	return yaml.Marshal(doc)
}
