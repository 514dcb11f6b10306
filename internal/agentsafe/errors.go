package agentsafe

import "github.com/toolgate/toolgate/internal/jsonerr"

// Code is the closed set of reasons Parse and Canonical reject. The zero
// Code is invalid and never returned.
type Code uint8

// Rejection codes. Their String tokens are stable and may be logged or
// matched by callers.
const (
	CodeSyntax           Code = 1 + iota // not JSON text (RFC 8259 / JSON.parse grammar)
	CodeInvalidUTF8                      // input bytes, a String or a Member key are not valid UTF-8
	CodeDuplicateKey                     // two members of one object have the same decoded key
	CodeForbiddenKey                     // a key is __proto__, constructor or prototype
	CodeNonFiniteNumber                  // NaN, ±Infinity, or a literal that overflows a double
	CodeTooDeep                          // a value nested deeper than MaxDepth
	CodeTooManyEntries                   // more than MaxEntries array elements plus object members
	CodeArrayTooLong                     // an array with more than MaxArrayLength elements
	CodeTooLarge                         // canonical JSON longer than MaxCanonicalBytes
	CodeTrailingData                     // non-whitespace after the top-level value
	CodeEmpty                            // empty or whitespace-only input
	CodeUnsupportedValue                 // the zero Value, which is no JSON value
)

// codeInfo holds the stable token and the human sentence of each Code.
// Sentences are fixed text: an error must never echo input content.
var codeInfo = [...]jsonerr.Text{
	CodeSyntax:           {Token: "syntax", Sentence: "invalid JSON syntax"},
	CodeInvalidUTF8:      {Token: "invalidUTF8", Sentence: "text is not valid UTF-8"},
	CodeDuplicateKey:     {Token: "duplicateKey", Sentence: "object has a duplicate key"},
	CodeForbiddenKey:     {Token: "forbiddenKey", Sentence: "object has a forbidden key (__proto__, constructor or prototype)"},
	CodeNonFiniteNumber:  {Token: "nonFiniteNumber", Sentence: "number is not finite"},
	CodeTooDeep:          {Token: "tooDeep", Sentence: "nesting is deeper than 20 levels"},
	CodeTooManyEntries:   {Token: "tooManyEntries", Sentence: "more than 5000 array elements and object members in total"},
	CodeArrayTooLong:     {Token: "arrayTooLong", Sentence: "array has more than 1000 elements"},
	CodeTooLarge:         {Token: "tooLarge", Sentence: "canonical JSON is larger than 102400 bytes"},
	CodeTrailingData:     {Token: "trailingData", Sentence: "unexpected data after the JSON value"},
	CodeEmpty:            {Token: "empty", Sentence: "no JSON value in the input"},
	CodeUnsupportedValue: {Token: "unsupportedValue", Sentence: "value is not a JSON value (zero Value)"},
}

// Sentence returns the fixed human text of c; false outside the closed set.
func (c Code) Sentence() (string, bool) { return jsonerr.Sentence(codeInfo[:], uint8(c)) }

// Codec returns "agentsafe", the prefix of every message.
func (Code) Codec() string { return "agentsafe" }

// String returns the stable lowerCamel token of c, or "Code(N)" for a value
// outside the closed set.
func (c Code) String() string { return jsonerr.Token(codeInfo[:], uint8(c)) }

// Error is every rejection this package returns. Offset is the byte offset
// in the Parse input where the problem was detected, or -1 when the error
// does not come from JSON text (Canonical on a programmatic Value, or the
// canonical size limit).
type Error = jsonerr.Error[Code]

// Sentinels for errors.Is, one per Code. The Code is the one identifier of a
// reason: each sentinel is derived from its Code (errNoOffset) and matches by
// Code alone, so ErrX and CodeX never disagree.
var (
	ErrSyntax           = errNoOffset(CodeSyntax)
	ErrInvalidUTF8      = errNoOffset(CodeInvalidUTF8)
	ErrDuplicateKey     = errNoOffset(CodeDuplicateKey)
	ErrForbiddenKey     = errNoOffset(CodeForbiddenKey)
	ErrNonFiniteNumber  = errNoOffset(CodeNonFiniteNumber)
	ErrTooDeep          = errNoOffset(CodeTooDeep)
	ErrTooManyEntries   = errNoOffset(CodeTooManyEntries)
	ErrArrayTooLong     = errNoOffset(CodeArrayTooLong)
	ErrTooLarge         = errNoOffset(CodeTooLarge)
	ErrTrailingData     = errNoOffset(CodeTrailingData)
	ErrEmpty            = errNoOffset(CodeEmpty)
	ErrUnsupportedValue = errNoOffset(CodeUnsupportedValue)
)

func errAt(c Code, off int) *Error { return jsonerr.At(c, off) }

// errNoOffset builds an error with no input position; it also derives the
// sentinels.
func errNoOffset(c Code) *Error { return jsonerr.Sentinel(c) }
