package server

import (
	"encoding/json"
	"strconv"

	"github.com/toolgate/toolgate/client"
	"github.com/toolgate/toolgate/internal/jsonlex"
)

// The three decision-path response bodies the API has, written without reflection
// (docs/decisions.md, "Authorize CPU"): each appender writes the octets
// encoding/json's Encoder writes for the same value — members in struct
// order, omitempty as tagged, a nil list as null, HTML-safe quoting, a
// trailing newline — so that a client sees no difference
// (TestResponsesAsEncodingJSON).

func appendAuthorizeResponse(b []byte, r *client.AuthorizeResponse) []byte {
	b = append(b, `{"decision":`...)
	b = appendDecision(b, &r.Decision)
	b = appendSelection(append(b, `,"selection":`...), &r.Selection)
	if a := r.Authorization; a != nil {
		b = append(b, `,"authorization":{"artifact":`...)
		b = jsonlex.AppendString(b, a.Artifact, jsonlex.HTMLSafe)
		b = append(b, `,"id":`...)
		b = jsonlex.AppendString(b, a.ID, jsonlex.HTMLSafe)
		b = append(b, `,"consumptionID":`...)
		b = jsonlex.AppendString(b, a.ConsumptionID, jsonlex.HTMLSafe)
		b = append(b, `,"issuedAt":`...)
		b = strconv.AppendUint(b, a.IssuedAt, 10)
		b = append(b, `,"expiresAt":`...)
		b = strconv.AppendUint(b, a.ExpiresAt, 10)
		b = append(b, '}')
	}
	if r.Ineligible != nil {
		b = append(b, `,"ineligible":`...)
		b = appendError(b, r.Ineligible)
	}
	if r.Confirmation != nil {
		// Rare (requireConfirmation in a domain that takes confirmations):
		// encoding/json itself, which is what the appenders imitate.
		b = appendMarshaled(append(b, `,"confirmation":`...), r.Confirmation)
	}
	return append(b, '}', '\n')
}

func appendSelection(b []byte, s *client.Selection) []byte {
	b = append(b, `{"registry":{"snapshotID":`...)
	b = jsonlex.AppendString(b, s.Registry.SnapshotID, jsonlex.HTMLSafe)
	b = append(b, `,"generation":`...)
	b = jsonlex.AppendString(b, s.Registry.Generation, jsonlex.HTMLSafe)
	b = append(b, `},"policy":{"snapshotID":`...)
	b = jsonlex.AppendString(b, s.Policy.SnapshotID, jsonlex.HTMLSafe)
	b = append(b, `,"snapshotGeneration":`...)
	b = jsonlex.AppendString(b, s.Policy.SnapshotGeneration, jsonlex.HTMLSafe)
	b = append(b, `,"policyID":`...)
	b = jsonlex.AppendString(b, s.Policy.PolicyID, jsonlex.HTMLSafe)
	b = append(b, `,"policyGeneration":`...)
	b = jsonlex.AppendString(b, s.Policy.PolicyGeneration, jsonlex.HTMLSafe)
	return append(b, `}}`...)
}

// appendMarshaled appends encoding/json's encoding of v, which cannot fail
// for the wire types (strings, numbers, lists and structs of them).
func appendMarshaled(b []byte, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, out...)
}

func appendDecision(b []byte, d *client.Decision) []byte {
	b = append(b, `{"id":`...)
	b = jsonlex.AppendString(b, d.ID, jsonlex.HTMLSafe)
	b = append(b, `,"outcome":`...)
	b = jsonlex.AppendString(b, d.Outcome, jsonlex.HTMLSafe)
	b = appendStrings(append(b, `,"reasons":`...), d.Reasons)
	b = appendStrings(append(b, `,"matchedRules":`...), d.MatchedRules)
	b = appendStrings(append(b, `,"capabilities":`...), d.Capabilities)
	b = appendStrings(append(b, `,"resources":`...), d.Resources)
	b = append(b, `,"obligations":`...)
	if d.Obligations == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, o := range d.Obligations {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = jsonlex.AppendString(b, o.Kind, jsonlex.HTMLSafe)
			if o.Seconds != 0 {
				b = append(b, `,"seconds":`...)
				b = strconv.AppendUint(b, o.Seconds, 10)
			}
			if o.Boundary != "" {
				b = append(b, `,"boundary":`...)
				b = jsonlex.AppendString(b, o.Boundary, jsonlex.HTMLSafe)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendStrings writes a list as encoding/json does: nil as null, empty as [].
func appendStrings(b []byte, v []string) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonlex.AppendString(b, s, jsonlex.HTMLSafe)
	}
	return append(b, ']')
}

func appendError(b []byte, e *client.Error) []byte {
	b = append(b, `{"code":`...)
	b = jsonlex.AppendString(b, e.Code, jsonlex.HTMLSafe)
	if e.Path != "" {
		b = append(b, `,"path":`...)
		b = jsonlex.AppendString(b, e.Path, jsonlex.HTMLSafe)
	}
	b = append(b, `,"message":`...)
	b = jsonlex.AppendString(b, e.Message, jsonlex.HTMLSafe)
	return append(b, '}')
}

func appendValidateResponse(b []byte, r *client.ValidateResponse) []byte {
	b = append(b, `{"binding":`...)
	b = jsonlex.AppendString(b, r.Binding, jsonlex.HTMLSafe)
	b = append(b, `,"expiresAt":`...)
	b = strconv.AppendUint(b, r.ExpiresAt, 10)
	if r.Consumed {
		b = append(b, `,"consumed":true`...)
	}
	return append(b, '}', '\n')
}

func appendErrorResponse(b []byte, r *client.ErrorResponse) []byte {
	b = append(b, `{"error":`...)
	b = appendError(b, &r.Error)
	return append(b, '}', '\n')
}
