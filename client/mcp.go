package client

import "encoding/json"

// The MCP wire form both sides of the toolgate MCP gateway share (the
// agent's client/mcpclient and the gateway, internal/mcpgate): one
// definition, so the two can never drift.
const (
	// MCPMetaKey is the params._meta key of a tools/call that carries an
	// MCPAuthorization. The gateway removes it before forwarding.
	MCPMetaKey = "dev.toolgate/authorization"
	// MCPRefusalMetaKey is the _meta key of an error result the gateway
	// returns instead of forwarding: {"code": …, "path": …}.
	MCPRefusalMetaKey = "dev.toolgate/refusal"
)

// MCPAuthorization is the value under MCPMetaKey: the artifact and the
// identities and facts of the request that obtained it. The gateway passes
// them to the service as its expectations together with what it derives
// itself (tool, version, the exact arguments it is about to forward); the
// service checks each against the signed artifact, so none of them can
// widen a call.
type MCPAuthorization struct {
	Artifact        string          `json:"artifact"`
	AuthorizationID string          `json:"authorizationID"`
	ReplayID        string          `json:"replayID"`
	ConsumptionID   string          `json:"consumptionID"`
	ProposalID      string          `json:"proposalID"`
	Identity        Identity        `json:"identity"`
	Capabilities    []string        `json:"capabilities"`
	Resources       []string        `json:"resources"`
	IntentBinding   json.RawMessage `json:"intentBinding,omitempty"`
}
