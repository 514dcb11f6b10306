package jsonexact

import (
	"errors"

	"github.com/toolgate/toolgate/internal/jsonlex"
)

// str reads the string token starting at the opening quote at d.pos and
// returns its decoded contents. The scan is jsonlex's; the profile is
// jsonexact's: a lone surrogate escape rejects (replacing it with U+FFFD
// would make two different inputs decode to the same string), an unknown
// escape or a non-hex digit is CodeInvalidEscape, and every other fault is
// CodeSyntax. UTF-8 was already validated for the whole input.
func (d *decoder) str() (string, error) {
	if s, end, ok := jsonlex.Plain(d.src, d.pos); ok {
		d.pos = end
		return s, nil
	}
	s, end, buf, f := jsonlex.String(d.src, d.pos, d.buf, jsonlex.RejectLone)
	d.buf = buf
	switch f {
	case jsonlex.OK:
		d.pos = end
		return s, nil
	case jsonlex.BadEscape, jsonlex.LoneSurrogate:
		return "", errAt(CodeInvalidEscape, end)
	case jsonlex.ShortEscape:
		return "", errAt(CodeSyntax, len(d.src)) // the input ends inside the escape
	}
	return "", errAt(CodeSyntax, end) // unterminated, or a raw control character
}

// Range bounds as digit text: the check compares digits, never floats.
const (
	minInt64Digits  = "9223372036854775808"  // |-2^63|
	maxUint64Digits = "18446744073709551615" // 2^64-1
)

// number reads the number token at d.pos and returns its literal. The whole
// RFC 8259 number is scanned first (jsonlex.Number) so that a well-formed
// fraction or exponent is reported as such, while a malformed token is
// CodeSyntax.
func (d *decoder) number() (string, error) {
	start := d.pos
	n, ok := jsonlex.Number(d.src, start)
	if !ok {
		return "", errAt(CodeSyntax, n.End)
	}
	// A digit here is a leading zero ("01"); letters cover hex and the like.
	if n.End < len(d.src) && jsonlex.TokenByte(d.src[n.End]) {
		return "", errAt(CodeSyntax, n.End)
	}
	switch {
	case n.Frac >= 0:
		return "", errAt(CodeFraction, n.Frac)
	case n.Exp >= 0:
		return "", errAt(CodeExponent, n.Exp)
	}
	lit := d.src[start:n.IntEnd]
	if lit == "-0" {
		return "", errAt(CodeNegativeZero, start)
	}
	limit, digits := maxUint64Digits, lit
	if lit[0] == '-' {
		limit, digits = minInt64Digits, lit[1:]
	}
	// Without leading zeros, longer means larger, and equal lengths compare
	// like numbers.
	if len(digits) > len(limit) || (len(digits) == len(limit) && digits > limit) {
		return "", errAt(CodeOutOfRange, start)
	}
	d.pos = n.End
	return lit, nil
}

// anyNumber is DecodeAny's reading of a number token number rejected:
// a well-formed token outside the integer profile (fraction, exponent, -0,
// out of range) becomes a Number holding the exact token; a malformed one
// keeps number's error.
func (d *decoder) anyNumber(err error) (Value, bool, error) {
	switch {
	case errors.Is(err, ErrFraction), errors.Is(err, ErrExponent),
		errors.Is(err, ErrNegativeZero), errors.Is(err, ErrOutOfRange):
	default:
		return Value{}, false, err
	}
	n, _ := jsonlex.Number(d.src, d.pos) // well formed: number got past the scan
	v := Value{kind: Number, s: d.src[d.pos:n.End]}
	d.pos = n.End
	return v, true, nil
}
