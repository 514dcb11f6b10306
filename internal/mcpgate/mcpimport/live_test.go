package mcpimport

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/mcpgate"
)

// TestALiveServersToolsImportWithTheDigestTheGatewayWillSee: tools/list
// read through the official SDK, against an SDK server.
func TestALiveServersToolsImportWithTheDigestTheGatewayWillSee(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"count":{"type":"number"}},"required":["count"]}`)
	server.AddTool(&mcp.Tool{Name: "add_items", Description: "Adds items.", InputSchema: schema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()

	tools, err := List(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Import(tools, options())
	if err != nil {
		t.Fatal(err)
	}
	want, err := mcpgate.Definition{Description: "Adds items.", InputSchema: schema}.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Gateway.Tools) != 1 || r.Gateway.Tools[0].DefinitionDigest != want || r.Gateway.Tools[0].ToolID != "files.add-items" {
		t.Fatalf("mapping = %+v, want add_items as files.add-items with digest %s", r.Gateway.Tools, want)
	}
	got := r.Registry.Spec.Definitions[0].Schema.Root.Raw
	if string(got) != `{"kind":"object","fields":[{"name":"count","requirement":"required","type":{"kind":"signedInteger"}}]}` {
		t.Errorf("closed Schema = %s", got)
	}
}
