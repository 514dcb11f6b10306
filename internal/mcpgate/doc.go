// Package mcpgate holds toolgate's MCP gateway (docs/mcp.md): an MCP
// server that stands in front of one upstream MCP server and is the
// Executor of the SecureToolKit protocol for it (spec Sections 29–32, and
// the Section 41 facilities "Executor implementation binding" and
// "Tool-response validation"). A tools/call reaches the upstream only after
// the toolgate service consumed the Authorization the call carries in
// params._meta under MetaKey, checked against expectations the gateway
// derives from the call it is about to forward.
//
// The MCP mapping (which MCP tool is which toolID and version, its
// reviewed definition and an optional output Schema) is the gateway's own
// configuration (Config), kept out of the protocol objects; see
// docs/mcp.md and docs/decisions.md.
package mcpgate
