// Package apifixture holds the authorization API's shared test fixtures:
// the shipped example requests as wire values and the payments executor's
// own expectations of the allowed call. Like internal/testutil, whose part
// it is, it is for tests only (depguard rule no-testutil); it is a package
// of its own because it reads YAML, which the engine's tests need not link.
package apifixture

import (
	"encoding/json"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/client"
)

// Example reads examples/requests/<name> below the repository root as the
// API's authorize body, with the explicit time the example is decided at.
func Example(root, name string) (client.AuthorizeRequest, uint64, error) {
	raw, err := os.ReadFile(filepath.Join(root, "examples", "requests", name))
	if err != nil {
		return client.AuthorizeRequest{}, 0, err
	}
	var f struct {
		client.AuthorizeRequest
		Caller json.RawMessage `json:"caller"`
		Time   uint64          `json:"time"`
	}
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		return client.AuthorizeRequest{}, 0, err
	}
	return f.AuthorizeRequest, f.Time, nil
}

// Expectations are the payments executor's own view of the call req
// proposes (the shipped payment-allow example), with artifact to consume.
func Expectations(req client.AuthorizeRequest, artifact string) client.ValidateRequest {
	return client.ValidateRequest{Artifact: artifact, Expectations: client.Expectations{
		AuthorizationID: req.AuthorizationID, ReplayID: req.ReplayID, ConsumptionID: req.ConsumptionID,
		ProposalID: req.Proposal.ProposalID, ToolID: req.Proposal.ToolID, Version: req.Proposal.Version,
		Arguments: req.Proposal.Arguments, Identity: req.Facts.SecurityContext.Identity,
		Capabilities: []string{"financial.transfer", "data.read"}, Resources: []string{"acct-2002", "acct-1001"},
		IntentBinding: req.Facts.Intent.Binding,
	}}
}
