// Package jsonlex is the one JSON lexer of toolgate: the token-level
// primitives every JSON reader and writer in the module builds on, and
// nothing above the token.
//
// Readers: internal/jsonexact (Tool arguments), the schema fast path
// (internal/engine/schema ValidateJSON), internal/agentsafe (JavaScript
// JSON.parse semantics) and the service's strict envelope decoder
// (internal/server). Each keeps its own profile — what it accepts, which
// error code and offset or path it reports, how it represents a decoded
// string or number — and asks this package only the questions whose answer
// does not depend on the profile: where white space ends, where a string's
// plain run ends, what an escape denotes, where a number token ends and
// where its fraction and exponent are, whether input is UTF-8. Where the
// readers differ inside one of those questions (a lone surrogate escape is
// rejected by jsonexact, replaced by U+FFFD in the envelope as
// encoding/json does, kept as a code unit by agent-safe), the difference is
// a parameter or stays with the caller, never a second copy of the scan.
//
// Writers: one string quoter, AppendString and AppendRune, for jsonexact's
// encoder, agent-safe's canonical JSON and the decision log, parameterized
// by a Quoting profile.
//
// Every function works on a string and an offset and returns offsets; a
// failure is a Fault and the offset where it was found, never text, so a
// caller's error can never echo input. The package is pure (standard
// library only, no reflection, no package state), as the engine requires
// of what it imports, and its small scanners are written to be inlined
// into the callers' hot loops.
package jsonlex
