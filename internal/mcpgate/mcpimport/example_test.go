package mcpimport_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/internal/mcpgate/mcpimport"
)

// Import one tool: its definition carries the proposed argument profile,
// bound by docRef and schema.root, the reason above it, the judgment
// marked and listed in the unconfirmed annotation.
func ExampleResult_RegistryYAML() {
	r, err := mcpimport.Import([]mcpimport.Tool{{
		Name:        "search",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"maxResults":{"type":"integer","minimum":1}},"additionalProperties":false}`),
	}}, mcpimport.Options{Namespace: "ns", SnapshotID: "tools", ToolPrefix: "docs"})
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := r.RegistryYAML()
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _ = os.Stdout.Write(y)
	// Output:
	// # A ToolRegistry generation drafted by `toolgate registry import` from an MCP server's tools/list.
	// # Review it before publishing: every line marked '# toolgate: confirm' is a suggestion: the
	// # classifications are the most restrictive values (never read from the server's annotations), a
	// # closed Schema's string field may be a resource identifier (kind: resourceID), and each choice of
	// # an argument profile (arguments, docs/arguments.md) has its reason in the comments above. The
	// # annotation import.toolgate.dev/unconfirmed lists every suggestion as 'ID FIELD [POINTER]';
	// # confirm or change each, then remove its line (and the annotation once empty): `toolgate validate -f`
	// # refuses the draft until then, reporting each listed suggestion at its path. A changed profile
	// # changes docRef and schema.root: `toolgate registry bind` rewrites them.
	// apiVersion: stk.toolgate.dev/v1alpha1
	// kind: ToolRegistry
	// metadata:
	//   annotations:
	//     import.toolgate.dev/unconfirmed: |
	//       docs-search-1 risk
	//       docs-search-1 sideEffect
	//       docs-search-1 reversibility
	//       docs-search-1 capabilities
	//       docs-search-1 arguments /properties/maxResults
	//   name: tools-1
	//   namespace: ns
	// spec:
	//   snapshotID: tools
	//   snapshotGeneration: "1"
	//   definitions:
	//   # chose /properties/maxResults: member renamed to a protocol field name; the forwarded call keeps the server's name
	//   - arguments:
	//       arguments:
	//         choice: object
	//         members:
	//         - field: max-results  # toolgate: confirm
	//           json: maxResults
	//           value:
	//             choice: integer
	//             minimum: "1"
	//       limits: {}
	//       profile: toolgate.mcp-arguments/1
	//       tool: search
	//     capabilities:  # toolgate: confirm
	//     - communication.external
	//     - data.read
	//     - data.write
	//     - financial.transfer
	//     - resource.delete
	//     docRef: argprofile.52bbfabc8787452ee0ba86a9655bd62eafeb666f4b7de5b99882
	//     id: docs-search-1
	//     lifecycle: active
	//     reversibility: irreversible  # toolgate: confirm
	//     risk: critical  # toolgate: confirm
	//     schema:
	//       id: docs-search-1-args
	//       root:
	//         fields:
	//         - name: max-results
	//           requirement: optional
	//           type:
	//             kind: signedInteger
	//         kind: object
	//       version: v1
	//     sideEffect: irreversibleMutation  # toolgate: confirm
	//     summary: MCP tool search; the reviewed description is in the MCP mapping.
	//     title: search
	//     toolID: docs.search
	//     version: "1"
}
