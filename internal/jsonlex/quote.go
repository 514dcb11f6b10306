package jsonlex

import "unicode/utf8"

// Quoting is a profile of AppendString and AppendRune: which characters a
// JSON string writer escapes beyond what RFC 8259 requires.
type Quoting uint8

const (
	// Minimal escapes only what RFC 8259 requires: the quote and the
	// backslash, and control characters (\b \f \n \r \t in short form, the
	// rest as \u00XX). Everything else, DEL and non-ASCII included, is
	// copied. It is jsonexact's encoding, and JSON.stringify's
	// (ES2019 QuoteJSONString) for agent-safe, whose lone surrogates
	// AppendRune writes as \uXXXX.
	Minimal Quoting = iota
	// HTMLSafe is encoding/json's default quoting, which the decision log
	// reproduces byte for byte: Minimal, plus <, > and & as \u00XX, U+2028
	// and U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8 as
	// \ufffd.
	HTMLSafe
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a quoted JSON string under profile q. Runs of
// bytes that need no escape are copied in one append.
func AppendString(dst []byte, s string, q Quoting) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (q == Minimal || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			dst = AppendRune(append(dst, s[start:i]...), rune(c), q)
			i++
			start = i
			continue
		}
		if q == Minimal {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = AppendRune(append(dst, s[start:i]...), r, q)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendRune appends the character r as it stands inside a JSON string
// under profile q: escaped if q escapes it, else as UTF-8. A surrogate
// code point, which only a UTF-16 source (agent-safe's strings) can hold,
// is written as \uXXXX, as JSON.stringify writes a lone surrogate.
func AppendRune(dst []byte, r rune, q Quoting) []byte {
	switch r {
	case '"', '\\':
		return append(dst, '\\', byte(r))
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '<', '>', '&', '\u2028', '\u2029':
		if q == Minimal {
			return utf8.AppendRune(dst, r)
		}
	default:
		if r >= 0x20 && (r < 0xD800 || r > 0xDFFF) {
			return utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
