package jsonexact

import "github.com/toolgate/toolgate/internal/jsonerr"

// Code is the closed set of reasons Decode and the Value accessors reject.
// The zero Code is invalid and never returned.
type Code uint8

// Rejection codes. Their String tokens are stable and may be logged or
// matched by callers.
const (
	CodeSyntax        Code = 1 + iota // not JSON text, or a token outside the profile
	CodeDuplicateKey                  // two members of one object have the same decoded name
	CodeFraction                      // number with a fraction part
	CodeExponent                      // number with an exponent
	CodeNull                          // the null literal
	CodeOutOfRange                    // integer outside [-2^63, 2^64-1] or outside the accessor's domain
	CodeNegativeZero                  // the integer -0
	CodeInvalidUTF8                   // input is not valid UTF-8
	CodeInvalidEscape                 // bad string escape, including a lone or reversed surrogate
	CodeTrailingData                  // non-whitespace after the top-level value
	CodeTooDeep                       // nesting deeper than Limits.MaxDepth
	CodeTooLarge                      // input longer than Limits.MaxBytes
	CodeEmpty                         // empty or whitespace-only input
	CodeWrongKind                     // accessor used on a Value of another Kind
)

// codeInfo holds the stable token and the human sentence of each Code.
// Sentences are fixed text: an error must never echo input bytes.
var codeInfo = [...]jsonerr.Text{
	CodeSyntax:        {Token: "syntax", Sentence: "invalid JSON syntax"},
	CodeDuplicateKey:  {Token: "duplicateKey", Sentence: "duplicate object member name"},
	CodeFraction:      {Token: "fraction", Sentence: "number with a fraction part is not accepted"},
	CodeExponent:      {Token: "exponent", Sentence: "number with an exponent is not accepted"},
	CodeNull:          {Token: "null", Sentence: "null is not accepted"},
	CodeOutOfRange:    {Token: "outOfRange", Sentence: "integer out of range"},
	CodeNegativeZero:  {Token: "negativeZero", Sentence: "negative zero is not accepted"},
	CodeInvalidUTF8:   {Token: "invalidUTF8", Sentence: "invalid UTF-8"},
	CodeInvalidEscape: {Token: "invalidEscape", Sentence: "invalid string escape"},
	CodeTrailingData:  {Token: "trailingData", Sentence: "unexpected data after the JSON value"},
	CodeTooDeep:       {Token: "tooDeep", Sentence: "nesting exceeds the depth limit"},
	CodeTooLarge:      {Token: "tooLarge", Sentence: "input exceeds the size limit"},
	CodeEmpty:         {Token: "empty", Sentence: "empty input"},
	CodeWrongKind:     {Token: "wrongKind", Sentence: "value is not of the requested kind"},
}

// Sentence returns the fixed human text of c; false outside the closed set.
func (c Code) Sentence() (string, bool) { return jsonerr.Sentence(codeInfo[:], uint8(c)) }

// Codec returns "jsonexact", the prefix of every message.
func (Code) Codec() string { return "jsonexact" }

// String returns the stable lowerCamel token of c, or "Code(N)" for a value
// outside the closed set.
func (c Code) String() string { return jsonerr.Token(codeInfo[:], uint8(c)) }

// Error is every rejection this package returns. Offset is the byte offset
// in the input where the problem was detected, or -1 for errors from Value
// accessors, which have no input position.
type Error = jsonerr.Error[Code]

// Sentinels for errors.Is, one per Code. The Code is the one identifier of a
// reason: each sentinel is derived from its Code (sentinel) and matches by
// Code alone, so ErrX and CodeX never disagree. Decode never returns these
// pointers themselves, so they carry no offset and are never shared with
// callers' errors.
var (
	ErrSyntax        = sentinel(CodeSyntax)
	ErrDuplicateKey  = sentinel(CodeDuplicateKey)
	ErrFraction      = sentinel(CodeFraction)
	ErrExponent      = sentinel(CodeExponent)
	ErrNull          = sentinel(CodeNull)
	ErrOutOfRange    = sentinel(CodeOutOfRange)
	ErrNegativeZero  = sentinel(CodeNegativeZero)
	ErrInvalidUTF8   = sentinel(CodeInvalidUTF8)
	ErrInvalidEscape = sentinel(CodeInvalidEscape)
	ErrTrailingData  = sentinel(CodeTrailingData)
	ErrTooDeep       = sentinel(CodeTooDeep)
	ErrTooLarge      = sentinel(CodeTooLarge)
	ErrEmpty         = sentinel(CodeEmpty)
	ErrWrongKind     = sentinel(CodeWrongKind)
)

func sentinel(c Code) *Error { return jsonerr.Sentinel(c) }

func errAt(c Code, off int) *Error { return jsonerr.At(c, off) }
