package jsonlex

import (
	"strings"
	"unicode/utf8"
)

// Fault is why a string token does not scan. The zero Fault is success.
// With each Fault the scanner returns the offset where it was found, as
// documented per constant; every reader maps the pair to its own code.
type Fault uint8

// Faults of String, SkipString and Escape.
const (
	OK            Fault = iota
	Unterminated        // the input ends inside the token; offset len(s)
	Control             // a raw control character (below U+0020); offset of that byte
	BadEscape           // an unknown escape letter or a non-hex digit in \u; offset of the backslash
	ShortEscape         // \u with fewer than four bytes left in the input; offset of the backslash
	LoneSurrogate       // with RejectLone: a \u surrogate that is not a high-low pair; offset of its backslash
)

// Lone is what String does with a \u escape of a surrogate that is not
// half of a high-low pair.
type Lone uint8

const (
	// RejectLone fails with LoneSurrogate: replacing the escape would make
	// two different inputs decode to the same string (jsonexact).
	RejectLone Lone = iota
	// ReplaceLone decodes it as U+FFFD, as encoding/json does (the
	// envelope decoder, which accepts what encoding/json accepted).
	ReplaceLone
)

// SkipSpace returns the offset of the first byte at or after i that is not
// RFC 8259 white space (space, tab, line feed, carriage return), or len(s).
func SkipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// Span returns the offset of the first byte at or after i that ends a run
// of plain string content — a quote, a backslash or a control character —
// or len(s). A string token whose Span ends at its closing quote means
// exactly its bytes: this loop is every reader's zero-copy fast path.
func Span(s string, i int) int { return span(s, i, 0xff) }

// SpanPrintable is Span that also stops at DEL and at every non-ASCII
// byte, for readers whose fast path takes printable ASCII only.
func SpanPrintable(s string, i int) int { return span(s, i, 0x7e) }

func span(s string, i int, hi byte) int {
	for i < len(s) {
		if c := s[i]; c < 0x20 || c > hi || c == '"' || c == '\\' {
			return i
		}
		i++
	}
	return i
}

// Escape decodes the escape sequence whose backslash is s[i]. It returns
// the character it denotes — for \uXXXX the UTF-16 code unit, surrogates
// included — and the bytes it spans (2 or 6). On failure (Unterminated,
// ShortEscape, BadEscape) n is 0. Surrogate pairs are the caller's: see
// LowSurrogate.
func Escape(s string, i int) (r rune, n int, f Fault) {
	if i+1 >= len(s) {
		return 0, 0, Unterminated
	}
	switch c := s[i+1]; c {
	case '"', '\\', '/':
		return rune(c), 2, OK
	case 'b':
		return '\b', 2, OK
	case 'f':
		return '\f', 2, OK
	case 'n':
		return '\n', 2, OK
	case 'r':
		return '\r', 2, OK
	case 't':
		return '\t', 2, OK
	case 'u':
		if i+6 > len(s) {
			return 0, 0, ShortEscape
		}
		r, ok := hex4(s[i+2 : i+6])
		if !ok {
			return 0, 0, BadEscape
		}
		return r, 6, OK
	}
	return 0, 0, BadEscape
}

// LowSurrogate reports whether s[j:] starts with a \uXXXX escape of a low
// surrogate (U+DC00 to U+DFFF), the second half of a pair, and returns it.
func LowSurrogate(s string, j int) (rune, bool) {
	if j+6 > len(s) || s[j] != '\\' || s[j+1] != 'u' {
		return 0, false
	}
	lo, ok := hex4(s[j+2 : j+6])
	return lo, ok && lo >= 0xDC00 && lo <= 0xDFFF
}

func hex4(s string) (rune, bool) {
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Plain reads the string token whose opening quote is s[i] if it has no
// escapes and no control characters: its contents, a substring of s, and
// the offset just past the closing quote. Otherwise ok is false and the
// token is String's. It is small enough to be inlined, so a reader's
// common case costs no call.
func Plain(s string, i int) (v string, end int, ok bool) {
	j := Span(s, i+1)
	if j < len(s) && s[j] == '"' {
		return s[i+1 : j], j + 1, true
	}
	return "", 0, false
}

// String reads the string token whose opening quote is s[i]. It returns the
// decoded contents and the offset just past the closing quote; on failure,
// the Fault and its offset (see Fault) in end. Contents without escapes are
// a substring of s, which costs no allocation; with escapes they are
// decoded into buf, reused across calls (the grown buf is returned), and
// copied once. A surrogate pair escape decodes to its character; a lone
// surrogate as lone says.
//
// UTF-8 is not checked: jsonexact and agent-safe validate the whole input
// first, and the envelope decoder passes bytes on as encoding/json did.
func String(s string, i int, buf []byte, lone Lone) (v string, end int, scratch []byte, f Fault) {
	if v, end, ok := Plain(s, i); ok {
		return v, end, buf, OK
	}
	start := i + 1
	i = Span(s, start)
	// Without a scratch, size one for the token (the decoded contents are
	// never longer) instead of growing it escape by escape; that costs a
	// validating pass, so a caller's scratch just grows as needed. If the
	// token does not scan, the loop below finds its first fault.
	if cap(buf) == 0 {
		if end, f := skipFrom(s, i); f == OK {
			buf = make([]byte, 0, end-1-start)
		}
	}
	buf = append(buf[:0], s[start:i]...)
	for i < len(s) {
		// Span stopped at a quote, a control character or a backslash.
		switch c := s[i]; {
		case c == '"':
			return string(buf), i + 1, buf, OK
		case c < 0x20:
			return "", i, buf, Control
		}
		r, n, f := Escape(s, i)
		switch {
		case f == Unterminated:
			return "", len(s), buf, f
		case f != OK:
			return "", i, buf, f
		case n == 6 && r >= 0xD800 && r <= 0xDFFF:
			if lo, ok := LowSurrogate(s, i+6); ok && r < 0xDC00 {
				r, n = 0x10000+(r-0xD800)<<10+(lo-0xDC00), 12
			} else if lone == RejectLone {
				return "", i, buf, LoneSurrogate
			} else {
				r = utf8.RuneError
			}
		}
		buf = utf8.AppendRune(buf, r)
		i += n
		j := Span(s, i)
		buf = append(buf, s[i:j]...)
		i = j
	}
	return "", len(s), buf, Unterminated
}

// SkipString validates the string token whose opening quote is s[i]
// without decoding it, and returns the offset just past the closing quote
// (or, with a Fault, where it was found). Every surrogate escape is
// well-formed here: RFC 8259's grammar does not pair them.
func SkipString(s string, i int) (end int, f Fault) { return skipFrom(s, Span(s, i+1)) }

// skipFrom is SkipString from s[i], inside the token.
func skipFrom(s string, i int) (end int, f Fault) {
	for ; i < len(s); i = Span(s, i) {
		switch c := s[i]; {
		case c == '"':
			return i + 1, OK
		case c < 0x20:
			return i, Control
		}
		_, n, f := Escape(s, i)
		if f == Unterminated {
			return len(s), f
		}
		if f != OK {
			return i, f
		}
		i += n
	}
	return len(s), Unterminated
}

// NumberToken is the shape of a scanned number: the offsets a reader's
// profile needs to accept or reject it.
type NumberToken struct {
	IntEnd int // just past the integer part (after the minus and digits)
	Frac   int // the '.' of the fraction, or -1
	Exp    int // the 'e' or 'E' of the exponent, or -1
	End    int // just past the token; on failure, the byte where the grammar failed
}

// Number scans the RFC 8259 number -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// starting at s[i]. The token ends where the grammar does: a byte that
// continues it anyway (a digit after a leading zero, a letter) is the
// caller's to judge, with TokenByte. If the grammar fails, ok is false and
// End is the offset of the byte where it failed.
func Number(s string, i int) (n NumberToken, ok bool) {
	n.Frac, n.Exp = -1, -1
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i == len(s) || !isDigit(s[i]):
		n.End = i
		return n, false
	case s[i] == '0':
		i++
	default:
		i = digits(s, i)
	}
	n.IntEnd = i
	if i < len(s) && s[i] == '.' {
		n.Frac = i
		if i++; i == len(s) || !isDigit(s[i]) {
			n.End = i
			return n, false
		}
		i = digits(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		n.Exp = i
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			n.End = i
			return n, false
		}
		i = digits(s, i)
	}
	n.End = i
	return n, true
}

func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// TokenByte reports whether c would continue a number or literal token:
// a digit, an ASCII letter, '.', '+', '-' or '_'. Readers that reject such
// a byte right after a token ("01", "0x1", "1_000", "truex") as malformed,
// rather than as trailing data, test the byte at its end with it.
func TokenByte(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') ||
		c == '.' || c == '+' || c == '-' || c == '_'
}

// Literal returns how many leading bytes of the keyword lit (true, false,
// null) stand at s[i:]: len(lit) when all of it does, else the offset of
// the first mismatch from i.
func Literal(s string, i int, lit string) int {
	if strings.HasPrefix(s[i:], lit) {
		return len(lit)
	}
	n := 0
	for i+n < len(s) && n < len(lit) && s[i+n] == lit[n] {
		n++
	}
	return n
}

// InvalidUTF8 reports whether b is not valid UTF-8 and, if so, the offset
// of the first byte that does not begin a valid sequence: the offset both
// UTF-8-checking readers report.
func InvalidUTF8(b []byte) (off int, bad bool) {
	if utf8.Valid(b) {
		return 0, false
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i, true
		}
		i += n
	}
	return len(b), true // unreachable: utf8.Valid found a bad byte
}
