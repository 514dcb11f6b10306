// Package agentsafe implements the agent-safe.intent/1 canonical JSON and
// digest (docs/spec/agent-safe-intent-v1.txt; decisions in docs/decisions.md,
// section "agent-safe.intent/1") with exact JavaScript semantics, so a Go service
// and the Node.js reference produce the same bytes and hash for one binding.
//
// # Reference followed
//
// The spec names the Apache-2.0 Agent-Safe reference implementation. It is
// github.com/decionis/agent-safe-pipeline, file
// packages/pipeline/src/intent/CanonicalIntentHasher.ts (read at commit
// acb2871ab8085b9201ed066cb26ea2ede316d7f9), with the seven vectors in
// conformance/agent-safe-intent-v1.json and conformance/vectors/*.json.
// This package restates its algorithm and limits in Go; no code is copied.
// All seven vectors reproduce byte for byte (TestUpstreamVectors, run with
// AGENTSAFE_UPSTREAM_VECTORS naming a directory holding those files; they
// are not vendored here), and TestNodeDifferential compares this package
// with the algorithm running in Node.js on generated documents.
//
// # Algorithm
//
//	canonical = JSON.stringify(rebuild(value))
//	digest    = "sha256:" + lowercase hex(SHA-256(UTF-8(canonical)))
//
// where rebuild creates every object afresh with its keys inserted in
// Object.keys(v).sort() order (UTF-16 code units, not UTF-8 bytes or code
// points: "\uffff" sorts after "\ud83d\ude00") and keeps arrays in order.
// Consequences reproduced here:
//
//   - JS property order still applies after the rebuild: array-index keys
//     (canonical decimal integers 0..2^32-2: "2", "10", not "01", "-1",
//     "4294967295") come first in ascending numeric order, then the other
//     keys in sorted order. {"b":1,"a":2,"10":0,"2":0} becomes
//     {"2":0,"10":0,"a":2,"b":1}.
//   - Numbers are IEEE doubles: literals round as JSON.parse rounds them
//     (9007199254740993 becomes 9007199254740992) and print as
//     Number::toString does (-0 -> 0, 1e21 -> 1e+21, 0.0000001 -> 1e-7).
//   - Strings are UTF-16 code-unit sequences. JSON.stringify (ES2019
//     well-formed) escapes only " \ and controls (\b \f \n \r \t short
//     forms, others \u00xx) and lone surrogates (\udxxx, lowercase); <, >,
//     &, U+2028, U+2029 and all other non-ASCII text are emitted verbatim.
//     Lone surrogates written as \u escapes in the input survive.
//   - No Unicode normalization: composed and decomposed text stay distinct.
//
// # Limits (the reference's CanonicalIntentHasher defaults)
//
//   - Depth: the top-level value is at depth 0 and any value (scalar or
//     container) deeper than MaxDepth (20) rejects, as the reference's
//     capture path (assertBounded) checks scalars too.
//   - Entries: every array element and every object member counts one,
//     over the whole document, the top-level value not counted; more than
//     MaxEntries (5,000) rejects.
//   - Arrays: more than MaxArrayLength (1,000) elements rejects.
//   - Size: "100 KB" is the reference's 100 * 1024 = 102,400 bytes of
//     UTF-8 canonical JSON (MaxCanonicalBytes); 102,400 passes, 102,401
//     rejects. It is checked after every other rule, as in the reference.
//
// # Input handling and where this package is stricter than the reference
//
// The reference hashes in-memory JS values; this package also parses JSON
// text (Parse), where JSON.parse would quietly resolve ambiguity. We fail
// closed instead:
//
//   - Duplicate object keys (after escape decoding) reject with
//     CodeDuplicateKey; JSON.parse would keep the last one.
//   - Input must be valid UTF-8; Node would replace bad bytes with U+FFFD.
//   - Keys __proto__, constructor and prototype reject at any depth
//     (CodeForbiddenKey), as in the reference.
//   - A number literal that overflows a double (1e400) is non-finite and
//     rejects, as the reference rejects Infinity; underflow rounds to 0.
//   - null, booleans, numbers, strings, arrays and objects are the only
//     values; the zero Value of the programmatic model is rejected as
//     unsupported (the reference rejects unsupported JS values).
//   - Empty input, a byte order mark, trailing data and any other JSON
//     syntax error reject.
//
// Cycles, which the reference also rejects, cannot occur: JSON text is a
// tree and Values are immutable trees built by copying constructors.
//
// When a document breaks several rules, which Code is reported is not part
// of the contract: Parse stops at the first problem it meets reading left
// to right (duplicate keys are noticed when their object closes), while
// the reference walks the parsed value.
// Messages never quote input content, so they are safe to log.
//
// # API
//
// Parse turns JSON text into a Value; Null, Bool, Number, String,
// StringUTF16, Array and Object build one in Go (for example an intent
// binding {actor, tenant, parameters, expiry, target}); Canonical
// serializes a Value; Digest hashes canonical bytes; CanonicalDigest does
// all three for a document.
package agentsafe
