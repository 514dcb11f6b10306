package mcpclient

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/client"
)

func TestADecisionWithoutAnAuthorizationIsDenied(t *testing.T) {
	for name, resp := range map[string]*client.AuthorizeResponse{
		"deny":       {Decision: client.Decision{Outcome: "deny", Reasons: []string{"denyRuleMatched"}}},
		"ineligible": {Decision: client.Decision{Outcome: "allow"}, Ineligible: &client.Error{Code: "ineligible"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := FromResponse(client.AuthorizeRequest{}, resp)
			var d *DeniedError
			if !errors.As(err, &d) || d.Decision.Outcome != resp.Decision.Outcome {
				t.Fatalf("got %v, want a *DeniedError for %s", err, resp.Decision.Outcome)
			}
		})
	}
}

func TestTheCallCarriesTheAuthorizedArgumentsByteForByteAndTheArtifactUnderTheMetaKey(t *testing.T) {
	args := json.RawMessage(`{ "b": 1,  "a": "x" }`)
	req := client.AuthorizeRequest{AuthorizationID: "authz-1", ReplayID: "replay-1", ConsumptionID: "consumption-1",
		Proposal: client.Proposal{ProposalID: "p-1", Arguments: args}}
	req.Facts.SecurityContext.Identity = client.Identity{Subject: "alice"}
	req.Facts.Intent.Binding = json.RawMessage(`{"actor":"alice"}`)
	resp := &client.AuthorizeResponse{Decision: client.Decision{Outcome: "allow", Capabilities: []string{"data.read"}, Resources: []string{"r-1"}},
		Authorization: &client.Authorization{Artifact: "ART"}}
	a, err := FromResponse(req, resp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Attach("tool", req.Proposal.Arguments, a)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.Arguments.(json.RawMessage)); got != string(args) {
		t.Fatalf("arguments %s, want %s", got, args)
	}
	wire, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Meta map[string]Authorization `json:"_meta"`
	}
	if err := json.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	got := back.Meta[MetaKey]
	if got.Artifact != "ART" || got.ConsumptionID != "consumption-1" || got.ProposalID != "p-1" ||
		got.Identity.Subject != "alice" || len(got.Resources) != 1 || string(got.IntentBinding) != `{"actor":"alice"}` {
		t.Fatalf("_meta carries %+v", got)
	}
}

func TestRefusalReadsTheGatewaysCode(t *testing.T) {
	r := &mcp.CallToolResult{IsError: true, Meta: mcp.Meta{RefusalMetaKey: map[string]any{"code": "consumed", "path": "p"}}}
	if code, path, ok := Refusal(r); !ok || code != "consumed" || path != "p" {
		t.Fatalf("got %q %q %v", code, path, ok)
	}
	if _, _, ok := Refusal(&mcp.CallToolResult{IsError: true}); ok {
		t.Fatal("a tool's own error result is not a refusal")
	}
}
