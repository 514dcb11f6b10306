package mcpgate

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decodeMeta reads the MetaKey value strictly: an object with only
// AuthorizationMeta's members, each of its JSON type (null reads as absent,
// as encoding/json does). The SDK has already decoded params._meta into
// generic JSON values, so they are read directly instead of re-encoding the
// artifact (a few KB) and decoding it again on every call (docs/performance.md).
// It never echoes a value.
func decodeMeta(meta mcp.Meta) (*AuthorizationMeta, *Refusal) {
	path := "params._meta." + MetaKey
	v, ok := meta[MetaKey]
	if !ok {
		return nil, &Refusal{Code: "missing", Path: path, Message: "the call carries no Authorization; authorize it and attach the artifact"}
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return nil, &Refusal{Code: "kindMismatch", Path: path, Message: "must be an object"}
	}
	bad := &Refusal{Code: "malformed", Path: path, Message: "not an authorization object (unknown member or wrong type)"}
	var am AuthorizationMeta
	for k, val := range obj {
		var ok bool
		switch k {
		case "artifact":
			ok = str(val, &am.Artifact)
		case "authorizationID":
			ok = str(val, &am.AuthorizationID)
		case "replayID":
			ok = str(val, &am.ReplayID)
		case "consumptionID":
			ok = str(val, &am.ConsumptionID)
		case "proposalID":
			ok = str(val, &am.ProposalID)
		case "capabilities":
			ok = strs(val, &am.Capabilities)
		case "resources":
			ok = strs(val, &am.Resources)
		case "identity":
			ok = identity(val, &am)
		case "intentBinding":
			// Passed on as JSON, null included, as encoding/json would.
			raw, err := json.Marshal(val)
			ok = err == nil
			am.IntentBinding = raw
		default:
			ok = false
		}
		if !ok {
			return nil, bad
		}
	}
	if am.Artifact == "" {
		return nil, &Refusal{Code: "missing", Path: path + ".artifact"}
	}
	return &am, nil
}

func identity(v any, am *AuthorizationMeta) bool {
	if v == nil {
		return true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	id := &am.Identity
	for k, val := range obj {
		switch k {
		case "subject":
			ok = str(val, &id.Subject)
		case "tenant":
			ok = str(val, &id.Tenant)
		case "session":
			ok = str(val, &id.Session)
		case "delegation":
			ok = str(val, &id.Delegation)
		case "sessionIndependent":
			switch b := val.(type) {
			case nil:
			case bool:
				id.SessionIndependent = b
			default:
				ok = false
			}
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

func str(v any, dst *string) bool {
	switch s := v.(type) {
	case nil:
		return true
	case string:
		*dst = s
		return true
	}
	return false
}

func strs(v any, dst *[]string) bool {
	switch l := v.(type) {
	case nil:
		return true
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return false
			}
			out[i] = s
		}
		*dst = out
		return true
	}
	return false
}
