// Package argprofile is the argument profile toolgate.mcp-arguments/1: a
// reviewed, deterministic, per-tool mapping from one MCP tool's JSON
// arguments to the protocol arguments of its ToolRegistry definition
// (docs/arguments.md).
//
// The protocol core (spec Sections 10, 39 and 47–51) accepts only closed
// Schemas over printable-ASCII strings, Resource identifiers, booleans,
// 64-bit integers, lowercase enumerations, short arrays and closed objects
// with lowercase field names. Real MCP tools send camelCase names, free
// text, fractions, nulls and unions. A [Profile] maps such arguments in
// front of the core without changing it: [Profile.Derive] reads the exact
// argument bytes of a tools/call and returns protocol-shaped JSON that the
// ordinary authorize path decodes (internal/jsonexact), validates against
// the tool's Schema ([Profile.Schema]) and canonicalizes (Section 47) into an
// ordinary Canonical Request (Section 11).
//
// The mapping is injective on JSON values (docs/arguments.md, I1), narrows
// and never widens (I3): every JSON Schema constraint the core cannot hold is
// enforced here and refuses, nothing is rounded, truncated or coerced. It is
// pure (no clock, environment or randomness, no map-order output: I2), has
// limits of its own (I4), and refuses with an *[Error] carrying a closed
// [Code] and a JSON pointer, never the value, every refusal at once (I5).
// [Profile.Digest] commits to the complete profile, so a changed profile is
// a changed definition (I6).
//
// A Profile is built by [New] from a [Draft] (or by [Parse] from its strict
// YAML or JSON form), which rejects anything outside the vocabulary with every
// error at once, each at its path in the draft.
package argprofile
