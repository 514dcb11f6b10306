// Package jsonexact is an occurrence-preserving, fail-closed JSON decoder for
// untrusted tool-call arguments.
//
// It serves the SecureToolKit protocol (docs/spec/securetoolkit-protocol-phase1-6.txt)
// Section 10 ("Object input MUST preserve field occurrences until validation";
// no null, no floating point, no coercion between kinds) and the
// "Duplicate-key ambiguity" and "Type confusion" threats, which the spec
// leaves to the Host parser. encoding/json is unsuitable for that job: it
// keeps the last of several duplicate keys and round-trips numbers through
// float64, so two parsers can disagree about what a request means.
//
// # Accepted profile
//
// Decode accepts a strict subset of RFC 8259 JSON text:
//
//   - objects, arrays, strings, true and false, at any level including the top;
//   - integers only, spelled -?(0|[1-9][0-9]*), within [-2^63, 2^64-1] and not
//     -0; the literal text is kept and parsed exactly, never via float64;
//   - object member names unique after escape decoding; members are kept in
//     input occurrence order;
//   - valid UTF-8 throughout, no lone surrogate escapes, no raw control
//     characters in strings;
//   - at most Limits.MaxBytes of input and Limits.MaxDepth nested containers.
//
// Everything else (null, fractions, exponents, duplicate names, a byte order
// mark, empty input, trailing data, ...) rejects with an *Error carrying a
// closed Code and the byte offset where the problem was detected. Error
// messages never quote input, so they are safe to log.
//
// DecodeAny is the same decoder for the argument profile
// (internal/argprofile, docs/arguments.md), which maps MCP arguments before
// they reach the core: it also keeps null (Kind Null) and every well-formed
// number outside the integer profile as its exact token (Kind Number).
// Nothing on the protocol path calls it.
//
// Decode is iterative, so hostile nesting cannot overflow the stack; the
// package has no global mutable state and uses no reflection. Decoded Values
// are immutable: accessors return copies of member and element lists.
//
// jsonexact only guarantees a faithful parse. Schema rules such as the
// printable-ASCII string domain, field-name grammar or the signed/unsigned
// integer domain of a field are applied by the Schema validator on top.
package jsonexact
