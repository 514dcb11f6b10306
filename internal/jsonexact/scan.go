package jsonexact

import "unicode/utf8"

// str reads the string token starting at the opening quote at d.pos and
// returns its decoded contents. UTF-8 was already validated for the whole
// input, so non-ASCII bytes are copied as they are.
func (d *decoder) str() (string, error) {
	start := d.pos + 1
	i := start
	// Fast path: without escapes the contents are a substring of the single
	// input copy, which costs no allocation.
	for i < len(d.data) {
		c := d.data[i]
		if c == '"' {
			d.pos = i + 1
			return d.src[start:i], nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", errAt(CodeSyntax, i)
		}
		i++
	}
	buf := append(d.buf[:0], d.data[start:i]...)
	for {
		if i >= len(d.data) {
			return "", errAt(CodeSyntax, i) // unterminated string
		}
		c := d.data[i]
		switch {
		case c == '"':
			d.buf = buf
			d.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			return "", errAt(CodeSyntax, i)
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(d.data) {
			return "", errAt(CodeSyntax, i+1)
		}
		var short byte
		switch d.data[i+1] {
		case '"', '\\', '/':
			short = d.data[i+1]
		case 'b':
			short = '\b'
		case 'f':
			short = '\f'
		case 'n':
			short = '\n'
		case 'r':
			short = '\r'
		case 't':
			short = '\t'
		case 'u':
			r, n, err := d.unicodeEscape(i)
			if err != nil {
				return "", err
			}
			buf = utf8.AppendRune(buf, r)
			i += n
			continue
		default:
			return "", errAt(CodeInvalidEscape, i)
		}
		buf = append(buf, short)
		i += 2
	}
}

// unicodeEscape decodes the \uXXXX escape at data[i], combining a
// surrogate pair into one rune. It returns the rune and the bytes consumed.
// A lone high surrogate, a lone low surrogate or a reversed pair rejects
// with CodeInvalidEscape at the offending escape: replacing it with U+FFFD
// would make two different inputs decode to the same string.
func (d *decoder) unicodeEscape(i int) (rune, int, error) {
	if i+6 > len(d.data) {
		return 0, 0, errAt(CodeSyntax, len(d.data)) // input ends inside the escape
	}
	r, ok := hex4(d.data[i+2 : i+6])
	if !ok {
		return 0, 0, errAt(CodeInvalidEscape, i)
	}
	switch {
	case r < 0xD800 || r > 0xDFFF:
		return r, 6, nil
	case r >= 0xDC00:
		return 0, 0, errAt(CodeInvalidEscape, i) // low surrogate without a high one
	}
	j := i + 6
	if j+6 > len(d.data) || d.data[j] != '\\' || d.data[j+1] != 'u' {
		return 0, 0, errAt(CodeInvalidEscape, i)
	}
	lo, ok := hex4(d.data[j+2 : j+6])
	if !ok || lo < 0xDC00 || lo > 0xDFFF {
		return 0, 0, errAt(CodeInvalidEscape, i)
	}
	return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, nil
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		var n byte
		switch {
		case '0' <= c && c <= '9':
			n = c - '0'
		case 'a' <= c && c <= 'f':
			n = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			n = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(n)
	}
	return r, true
}

// Range bounds as digit text: the check compares digits, never floats.
const (
	minInt64Digits  = "9223372036854775808"  // |-2^63|
	maxUint64Digits = "18446744073709551615" // 2^64-1
)

// number reads the number token at d.pos and returns its literal. The whole
// RFC 8259 number is scanned first so that a well-formed fraction or
// exponent is reported as such, while a malformed token is CodeSyntax.
func (d *decoder) number() (string, error) {
	data := d.data
	start := d.pos
	i := start
	if data[i] == '-' {
		i++
	}
	switch {
	case i == len(data) || !isDigit(data[i]):
		return "", errAt(CodeSyntax, i)
	case data[i] == '0':
		i++
	default:
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	intEnd := i
	frac, exp := -1, -1
	if i < len(data) && data[i] == '.' {
		frac = i
		i++
		if i == len(data) || !isDigit(data[i]) {
			return "", errAt(CodeSyntax, i)
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		exp = i
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i == len(data) || !isDigit(data[i]) {
			return "", errAt(CodeSyntax, i)
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	// A digit here is a leading zero ("01"); letters cover hex and the like.
	if i < len(data) && isTokenByte(data[i]) {
		return "", errAt(CodeSyntax, i)
	}
	switch {
	case frac >= 0:
		return "", errAt(CodeFraction, frac)
	case exp >= 0:
		return "", errAt(CodeExponent, exp)
	}
	lit := d.src[start:intEnd]
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
	d.pos = i
	return lit, nil
}
