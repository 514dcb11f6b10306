// Package mcpimport drafts a ToolRegistry generation and the MCP gateway's
// mapping (kind MCPGateway, package mcpgate) from an MCP server's
// tools/list: `toolgate registry import` (docs/mcp.md).
//
// Each inputSchema becomes a closed Schema (spec Section 10, bounds of
// Section 39). The converter may narrow — close an open object, read number
// as integer, add the protocol's string, array and 64-bit integer bounds —
// and reports every narrowing with its JSON pointer; it never widens: a
// constraint it cannot express (pattern, format, a smaller bound, a union of
// differing shapes, a $ref cycle, a keyword it does not know) refuses the
// tool, every refusal reported at once. What needs human judgment
// (capabilities, risk, side effect, reversibility, resource-identifier
// fields) is suggested at its most restrictive, never read from the
// server's annotations, and marked for confirmation (UnconfirmedAnnotation,
// ConfirmMarker). Beside the closed Schema it proposes each tool's argument
// profile (docs/arguments.md: ProposeProfile, rendered by
// Result.ProfilesYAML and read back by ParseProfiles), with the reason for
// every choice that needed judgment and, on a re-import, the profile diff
// by pointer. The rules and their reasons are in docs/decisions.md.
package mcpimport
