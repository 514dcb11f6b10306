package mcpimport

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// List reads a live server's tools/list (every page) through t, with the
// official SDK client, as the gateway does: the definitions, and so their
// digests, are read the way the gateway will read them. The client declares
// no capability, so the server cannot ask anything back.
func List(ctx context.Context, t mcp.Transport) ([]Tool, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "toolgate-registry-import", Version: "v1alpha1"}, nil)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cs, err := c.Connect(cctx, t, nil)
	if err != nil {
		return nil, errors.New("tools/list: cannot connect to the MCP server: " + err.Error())
	}
	defer func() { _ = cs.Close() }()
	var tools []Tool
	for lt, err := range cs.Tools(cctx, nil) {
		if err != nil {
			return nil, errors.New("tools/list: the MCP server's answer failed: " + err.Error())
		}
		schema, err := json.Marshal(lt.InputSchema)
		if err != nil {
			return nil, errors.New("tools/list: an inputSchema cannot be read")
		}
		var ann json.RawMessage
		if lt.Annotations != nil {
			ann, _ = json.Marshal(lt.Annotations)
		}
		tools = append(tools, Tool{Name: lt.Name, Title: lt.Title, Description: lt.Description, InputSchema: schema, Annotations: ann})
	}
	if len(tools) == 0 {
		return nil, errors.New("tools/list: no tools")
	}
	return tools, nil
}
