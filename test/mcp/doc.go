// Package mcp is the MCP gateway's end-to-end suite (docs/mcp.md):
// real processes — `toolgate serve` on the shipped samples, the test
// upstream MCP server (./upstream, built with the official SDK), two
// `toolgate mcp gateway` processes sharing the one service — and the
// official SDK client through client/mcpclient. It needs no envtest and
// runs in `make test`.
package mcp
