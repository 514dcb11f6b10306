package mcpimport_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/internal/mcpgate/mcpimport"
)

// Import one tool and render its proposed argument profile for review:
// the reason above the document, the judgment marked.
func ExampleResult_ProfilesYAML() {
	r, err := mcpimport.Import([]mcpimport.Tool{{
		Name:        "search",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"maxResults":{"type":"integer","minimum":1}},"additionalProperties":false}`),
	}}, mcpimport.Options{Namespace: "ns", SnapshotID: "tools", ToolPrefix: "docs"})
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := r.ProfilesYAML()
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _ = os.Stdout.Write(y)
	profiles, err := mcpimport.ParseProfiles(y)
	fmt.Println(len(profiles), err)
	// Output:
	// # The argument profiles (toolgate.mcp-arguments/1, docs/arguments.md) proposed by `toolgate registry import`,
	// # one document per MCP tool. Every line marked '# toolgate: confirm' is a choice that needed judgment;
	// # the reason is in the comments above each document. Confirm or change each, then remove the marker.
	// ---
	// # /properties/maxResults: member renamed to a protocol field name; the forwarded call keeps the server's name
	// arguments:
	//   choice: object
	//   members:
	//   - field: max-results  # toolgate: confirm
	//     json: maxResults
	//     value:
	//       choice: integer
	//       minimum: "1"
	// limits: {}
	// profile: toolgate.mcp-arguments/1
	// tool: search
	// 1 <nil>
}
