package jsonlex_test

// The scanners and string writers that jsonlex replaced, kept verbatim but
// for their receivers (docs/decisions.md, "reference implementations kept
// for differential tests"): the differential tests in differential_test.go
// hold the one lexer to each of them.

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Offsets and codes as the former jsonexact scanner reported them.
const (
	refSyntax = iota + 1
	refInvalidEscape
	refFraction
	refExponent
)

// refExactStr is jsonexact's former (*decoder).str on data at pos: the
// contents, the offset after the string, or a code and an offset.
func refExactStr(data []byte, pos int) (string, int, int, int) {
	start := pos + 1
	i := start
	for i < len(data) {
		c := data[i]
		if c == '"' {
			return string(data[start:i]), i + 1, 0, 0
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", 0, refSyntax, i
		}
		i++
	}
	buf := append([]byte(nil), data[start:i]...)
	for {
		if i >= len(data) {
			return "", 0, refSyntax, i
		}
		c := data[i]
		switch {
		case c == '"':
			return string(buf), i + 1, 0, 0
		case c < 0x20:
			return "", 0, refSyntax, i
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(data) {
			return "", 0, refSyntax, i + 1
		}
		var short byte
		switch data[i+1] {
		case '"', '\\', '/':
			short = data[i+1]
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
			r, n, code, off := refExactUnicodeEscape(data, i)
			if code != 0 {
				return "", 0, code, off
			}
			buf = utf8.AppendRune(buf, r)
			i += n
			continue
		default:
			return "", 0, refInvalidEscape, i
		}
		buf = append(buf, short)
		i += 2
	}
}

func refExactUnicodeEscape(data []byte, i int) (rune, int, int, int) {
	if i+6 > len(data) {
		return 0, 0, refSyntax, len(data)
	}
	r, ok := refHex4(string(data[i+2 : i+6]))
	if !ok {
		return 0, 0, refInvalidEscape, i
	}
	switch {
	case r < 0xD800 || r > 0xDFFF:
		return r, 6, 0, 0
	case r >= 0xDC00:
		return 0, 0, refInvalidEscape, i
	}
	j := i + 6
	if j+6 > len(data) || data[j] != '\\' || data[j+1] != 'u' {
		return 0, 0, refInvalidEscape, i
	}
	lo, ok := refHex4(string(data[j+2 : j+6]))
	if !ok || lo < 0xDC00 || lo > 0xDFFF {
		return 0, 0, refInvalidEscape, i
	}
	return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, 0, 0
}

func refHex4(s string) (rune, bool) {
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// refExactNumber is jsonexact's former (*decoder).number up to its profile
// checks: the token's integer end, fraction and exponent offsets and end,
// or a syntax code and an offset.
func refExactNumber(data []byte, start int) (intEnd, frac, exp, end, code, off int) {
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	i := start
	if data[i] == '-' {
		i++
	}
	switch {
	case i == len(data) || !isDigit(data[i]):
		return 0, 0, 0, 0, refSyntax, i
	case data[i] == '0':
		i++
	default:
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	intEnd = i
	frac, exp = -1, -1
	if i < len(data) && data[i] == '.' {
		frac = i
		i++
		if i == len(data) || !isDigit(data[i]) {
			return 0, 0, 0, 0, refSyntax, i
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
			return 0, 0, 0, 0, refSyntax, i
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return intEnd, frac, exp, i, 0, 0
}

// refStrictStrSpan is the envelope decoder's former (*scanner).strSpan at
// i: the end of the contents and whether they hold escapes; ok false for
// any fault.
func refStrictStrSpan(s string, i int) (end int, escaped, ok bool) {
	i++
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return i, escaped, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			escaped = true
			if i+1 >= len(s) {
				return 0, false, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) {
					return 0, false, false
				}
				if _, ok := refHex4(s[i+2 : i+6]); !ok {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		default:
			i++
		}
	}
	return 0, false, false
}

// refStrictUnescape is the envelope decoder's former unescape of the
// contents of a valid string with escapes, as encoding/json decodes them.
func refStrictUnescape(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b = append(b, s[i])
			i++
			continue
		}
		switch c := s[i+1]; c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, _ := refHex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2, ok := refHex4(s[i+2 : i+6]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			b = append(b, c)
		}
		i += 2
	}
	return string(b)
}

// refAgentsafeEscape is agent-safe's former (*parser).escape at pos: the
// code unit and the offset after the escape, or ok false and the offset of
// the syntax error.
func refAgentsafeEscape(data []byte, pos int) (r uint16, next int, ok bool) {
	if pos+1 >= len(data) {
		return 0, len(data), false
	}
	c := data[pos+1]
	switch c {
	case '"', '\\', '/':
		r = uint16(c)
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		if pos+6 > len(data) {
			return 0, pos, false
		}
		h, ok := refHex4(string(data[pos+2 : pos+6]))
		if !ok {
			return 0, pos, false
		}
		return uint16(h), pos + 6, true
	default:
		return 0, pos, false
	}
	return r, pos + 2, true
}

const refHexDigits = "0123456789abcdef"

// refExactAppendString is jsonexact's former appendString.
func refExactAppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', refHexDigits[c>>4], refHexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// refLogAppendString is the decision log's former appendString.
func refLogAppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// refAgentsafeStr is agent-safe's former (*writer).str without its size
// limit.
func refAgentsafeStr(b []byte, u []uint16) []byte {
	b = append(b, '"')
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', refHexDigits[c>>4], refHexDigits[c&0xf])
		case c < utf8.RuneSelf:
			b = append(b, byte(c))
		case utf16.IsSurrogate(rune(c)):
			if c < 0xdc00 && i+1 < len(u) && u[i+1] >= 0xdc00 && u[i+1] <= 0xdfff {
				b = utf8.AppendRune(b, utf16.DecodeRune(rune(c), rune(u[i+1])))
				i++
				continue
			}
			b = append(b, '\\', 'u', refHexDigits[c>>12], refHexDigits[c>>8&0xf], refHexDigits[c>>4&0xf], refHexDigits[c&0xf])
		default:
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return append(b, '"')
}
