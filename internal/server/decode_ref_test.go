package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// rawFields are the members whose values pass through byte for byte to a
// stricter parser of their own: arguments to the occurrence-preserving
// argument decoder, bindings to agent-safe.intent/1.
var rawFields = map[string]bool{"arguments": true, "binding": true, "intentBinding": true}

// jsonNames returns every JSON member name the wire type t (and the types
// it holds) declares, exactly as spelled.
func jsonNames(t reflect.Type, into map[string]bool) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			jsonNames(t.Elem(), into)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				jsonNames(f.Type, into)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" {
				into[name] = true
			}
			jsonNames(f.Type, into)
		}
	default:
	}
}

// refDecode is the former two-pass decoding of a request body (after the
// content type, size and UTF-8 checks), kept as the reference the strict
// single-pass decoder is tested against: a token walk rejecting
// duplicates, nulls and names the API does not declare anywhere, then
// encoding/json with unknown fields disallowed.
func refDecode(body []byte, v any) error {
	known := map[string]bool{}
	jsonNames(reflect.TypeFor[client.AuthorizeRequest](), known)
	jsonNames(reflect.TypeFor[client.ValidateRequest](), known)
	if err := checkMembers(body, known); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fault.At(te.Field, fault.KindMismatch, "the value has the wrong JSON type")
		}
		return fault.At("body", fault.Malformed, "the request body is not the API's JSON object")
	}
	if dec.More() {
		return fault.At("body", fault.Malformed, "data follows the JSON object")
	}
	return nil
}

// checkMembers walks body's tokens and rejects a duplicate member name, a
// null, or a member name the API does not declare exactly.
func checkMembers(body []byte, known map[string]bool) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []frame
	pending := "" // the path of the value about to be read
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fault.At("body", fault.Malformed, "the request body is not valid JSON")
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			top := &stack[n-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				valueDone(stack)
				continue
			}
			name, _ := tok.(string)
			pending = fault.Join(top.path, name)
			switch {
			case top.seen[name]:
				return fault.At(pending, fault.Duplicate, "a member name appears twice in one object")
			case !known[name]:
				return fault.At(top.path, fault.UnknownField, "the object has a member the API does not declare (names are case-sensitive)")
			}
			top.seen[name] = true
			if rawFields[name] {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return fault.At(pending, fault.Malformed, "the value is not valid JSON")
				}
				continue // the next token is again a member name
			}
			top.wantKey = false
			continue
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true, seen: map[string]bool{}, path: pending})
				continue
			case '[':
				stack = append(stack, frame{path: pending})
				continue
			default: // ']' closes an array: a value is done
				stack = stack[:len(stack)-1]
			}
		case nil:
			return fault.At(pending, fault.KindMismatch, "null is not a value of this API; omit the member instead")
		}
		valueDone(stack)
	}
}

// frame is one open container of checkMembers.
type frame struct {
	object, wantKey bool
	seen            map[string]bool
	path            string
}

// valueDone records that a value inside the innermost container was read:
// in an object, a member name comes next.
func valueDone(stack []frame) {
	if n := len(stack); n > 0 && stack[n-1].object {
		stack[n-1].wantKey = true
	}
}
