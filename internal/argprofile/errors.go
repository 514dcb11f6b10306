package argprofile

import (
	"strconv"
	"strings"
)

// Code is the closed set of reasons a derivation refuses, or a draft is
// invalid. The zero Code is invalid and never returned.
type Code uint8

// Refusal codes. Their tokens are stable and may be matched by callers.
const (
	CodeSyntax         Code = 1 + iota // not one JSON text, or outside the JSON grammar
	CodeDuplicate                      // two members of one object have the same name
	CodeTooLarge                       // raw arguments, one text or one json value over its octet bound
	CodeTooDeep                        // nesting deeper than the profile's depth bound
	CodeKind                           // a JSON kind the node does not accept
	CodeUnknownMember                  // a member the object does not declare
	CodeMissing                        // a required member is absent
	CodeNotASCII                       // a string choice outside printable ASCII
	CodeTooLong                        // over maxLength
	CodeTooShort                       // under minLength
	CodePattern                        // does not match the pattern
	CodeFormat                         // not of the format
	CodeConst                          // differs from the const
	CodeCase                           // not one of the enumeration's JSON strings
	CodeFraction                       // more fraction digits than the scale, or a fraction for an integer
	CodeExponent                       // an exponent where plain decimal notation is required
	CodeOutOfRange                     // outside minimum/maximum or the 64-bit domain
	CodeInexactNumber                  // a number the RFC 8785 double conversion would change
	CodeTooManyItems                   // over maxItems
	CodeTooFewItems                    // under minItems
	CodeHeaderMismatch                 // an Mcp-Param header disagrees with the body
	CodeInvalidDraft                   // the draft is outside the profile vocabulary
	maxCode
)

var codeText = [maxCode][2]string{
	CodeSyntax:         {"syntax", "not one JSON text"},
	CodeDuplicate:      {"duplicate", "duplicate object member name"},
	CodeTooLarge:       {"tooLarge", "exceeds its octet bound"},
	CodeTooDeep:        {"tooDeep", "nesting exceeds the depth bound"},
	CodeKind:           {"kind", "JSON kind not accepted here"},
	CodeUnknownMember:  {"unknownMember", "a member the profile does not declare"},
	CodeMissing:        {"missing", "a required member is absent"},
	CodeNotASCII:       {"notAscii", "not printable ASCII of at most 1024 octets"},
	CodeTooLong:        {"tooLong", "longer than maxLength"},
	CodeTooShort:       {"tooShort", "shorter than minLength"},
	CodePattern:        {"pattern", "does not match the reviewed pattern"},
	CodeFormat:         {"format", "not of the reviewed format"},
	CodeConst:          {"const", "differs from the reviewed constant"},
	CodeCase:           {"case", "not one of the reviewed enumeration values"},
	CodeFraction:       {"fraction", "more fraction digits than the reviewed scale"},
	CodeExponent:       {"exponent", "an exponent where plain decimal notation is required"},
	CodeOutOfRange:     {"outOfRange", "outside the reviewed range"},
	CodeInexactNumber:  {"inexactNumber", "a number that does not survive the RFC 8785 double conversion exactly"},
	CodeTooManyItems:   {"tooManyItems", "more elements than maxItems"},
	CodeTooFewItems:    {"tooFewItems", "fewer elements than minItems"},
	CodeHeaderMismatch: {"headerMismatch", "the Mcp-Param header disagrees with the arguments"},
	CodeInvalidDraft:   {"invalidDraft", "the profile draft is invalid"},
}

// String returns the stable lowerCamel token of c, or "Code(N)" outside the
// closed set.
func (c Code) String() string {
	if c == 0 || c >= maxCode {
		return "Code(" + strconv.Itoa(int(c)) + ")"
	}
	return codeText[c][0]
}

// Codes returns every Code in order.
func Codes() []Code {
	out := make([]Code, 0, maxCode-1)
	for c := Code(1); c < maxCode; c++ {
		out = append(out, c)
	}
	return out
}

// Error is one refusal. Path is a JSON pointer (RFC 6901) into the
// arguments for a derivation, or a field path into the draft for New; it
// names only reviewed names, never the caller's. Rule is fixed text for
// draft errors; a derivation's message is its Code's fixed sentence. No
// Error quotes a value.
type Error struct {
	Code Code
	Path string
	Rule string
}

func (e *Error) Error() string {
	msg := e.Rule
	if msg == "" && e.Code > 0 && e.Code < maxCode {
		msg = codeText[e.Code][1]
	}
	path := e.Path
	if path == "" {
		path = `""`
	}
	return "argprofile: " + path + ": " + e.Code.String() + ": " + msg
}

// Is matches another *Error by Code alone, so errors.Is(err,
// &Error{Code: CodeKind}) asks for the reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Path == "" && t.Rule == ""
}

// Errors is every refusal of one derivation or draft, in the order found
// (a depth-first walk in profile order, so deterministic).
type Errors []*Error

func (l Errors) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap lets errors.Is and errors.As see every member.
func (l Errors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func (l Errors) err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// pointerToken escapes one JSON pointer reference token (RFC 6901).
func pointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
