// Package mcpclient is the agent side of toolgate's MCP gateway
// (docs/mcp.md): it authorizes a proposed MCP tools/call with the toolgate
// service and attaches the signed Authorization to the official SDK's call
// parameters under params._meta[MetaKey], where the gateway (the Executor)
// reads it. See docs/mcp.md.
package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
)

// MetaKey is the params._meta key the gateway reads the Authorization
// from; RefusalMetaKey the _meta key of the gateway's refusals
// ({"code", "path"}).
const (
	MetaKey        = client.MCPMetaKey
	RefusalMetaKey = client.MCPRefusalMetaKey
)

// Authorization is the value under MetaKey (client.MCPAuthorization, the
// one definition the gateway reads too).
type Authorization = client.MCPAuthorization

// DeniedError is returned when the service issued no Authorization: a deny,
// a requireConfirmation, or an allow issuance refused.
type DeniedError struct {
	Decision   client.Decision
	Ineligible *client.Error
}

func (e *DeniedError) Error() string {
	if e.Ineligible != nil {
		return fmt.Sprintf("toolgate: %s, but no Authorization was issued: %s", e.Decision.Outcome, e.Ineligible.Code)
	}
	return fmt.Sprintf("toolgate: %s %v", e.Decision.Outcome, e.Decision.Reasons)
}

// ErrArguments is returned when the proposal's arguments are not one JSON
// object (an MCP tool takes an object of arguments).
var ErrArguments = errors.New("toolgate: the proposal's arguments must be a JSON object")

// FromResponse builds the Authorization value of an answered authorize
// request; a *DeniedError when it issued none.
func FromResponse(req client.AuthorizeRequest, resp *client.AuthorizeResponse) (*Authorization, error) {
	if resp.Authorization == nil {
		return nil, &DeniedError{Decision: resp.Decision, Ineligible: resp.Ineligible}
	}
	return &Authorization{
		Artifact:        resp.Authorization.Artifact,
		AuthorizationID: req.AuthorizationID,
		ReplayID:        req.ReplayID,
		ConsumptionID:   req.ConsumptionID,
		ProposalID:      req.Proposal.ProposalID,
		Identity:        req.Facts.SecurityContext.Identity,
		Capabilities:    resp.Decision.Capabilities,
		Resources:       resp.Decision.Resources,
		IntentBinding:   req.Facts.Intent.Binding,
	}, nil
}

// Attach returns MCP call parameters for tool whose arguments are exactly
// the authorized proposal's bytes and whose _meta carries a.
func Attach(tool string, arguments json.RawMessage, a *Authorization) (*mcp.CallToolParams, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	// _meta is a map of JSON values; the Authorization goes as an object.
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return &mcp.CallToolParams{Name: tool, Arguments: arguments, Meta: mcp.Meta{MetaKey: v}}, nil
}

// Authorize asks the service to authorize req and returns the MCP call
// parameters of tool carrying the artifact, with the proposal's arguments
// byte for byte (the gateway checks the bytes it forwards).
func Authorize(ctx context.Context, tg *client.Client, req client.AuthorizeRequest, tool string) (*mcp.CallToolParams, error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(req.Proposal.Arguments, &probe) != nil {
		return nil, ErrArguments
	}
	resp, err := tg.Authorize(ctx, req)
	if err != nil {
		return nil, err
	}
	a, err := FromResponse(req, resp)
	if err != nil {
		return nil, err
	}
	return Attach(tool, req.Proposal.Arguments, a)
}

// Call authorizes req and calls tool through the gateway session cs.
func Call(ctx context.Context, tg *client.Client, cs *mcp.ClientSession, req client.AuthorizeRequest, tool string) (*mcp.CallToolResult, error) {
	p, err := Authorize(ctx, tg, req, tool)
	if err != nil {
		return nil, err
	}
	return cs.CallTool(ctx, p)
}

// Refusal reports the gateway's refusal code and path in a result, if it is
// one.
func Refusal(r *mcp.CallToolResult) (code, path string, ok bool) {
	if r == nil || !r.IsError {
		return "", "", false
	}
	m, _ := r.Meta[RefusalMetaKey].(map[string]any)
	code, _ = m["code"].(string)
	path, _ = m["path"].(string)
	return code, path, code != ""
}
