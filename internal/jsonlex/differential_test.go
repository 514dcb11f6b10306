package jsonlex_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/jsonlex"
)

// stringPieces build string tokens that exercise every branch of the
// former scanners: plain runs, every escape, surrogate pairs in both
// orders and alone, short and malformed escapes, controls, DEL, non-ASCII,
// invalid UTF-8 and an early closing quote.
var stringPieces = []string{
	"a", "hello", " ", "/", "<", ">", "&", "\x7f", "é", "😀", "\u2028", "\u2029", "\ufffd", "\xff", "\xe2\x80",
	`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u001f`, `\uFFFF`, `\u2028`,
	`\ud83d\ude00`, `\uD83D\uDE00`, `\ud800`, `\udc00`, `\udc00\ud800`, `\ud800\u0041`, `\ud800\uZZZZ`,
	`\u12`, `\uZZZZ`, `\x`, `\`, "\x00", "\x1f", "\n", `"`, `"x`,
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(6) {
		b.WriteString(stringPieces[r.IntN(len(stringPieces))])
	}
	if r.IntN(4) != 0 {
		b.WriteByte('"')
	}
	for range r.IntN(2) {
		b.WriteString(stringPieces[r.IntN(len(stringPieces))])
	}
	return b.String()
}

// TestStringMatchesFormerScanners: String with RejectLone is jsonexact's
// former str (value, end, and the code and offset of every rejection under
// jsonexact's mapping); String with ReplaceLone and SkipString are the
// envelope decoder's former strSpan and unescape; Escape is agent-safe's
// former escape at every backslash.
func TestStringMatchesFormerScanners(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(16, 4))
	for range 200_000 {
		s := randomString(r)

		want, wantEnd, wantCode, wantOff := refExactStr([]byte(s), 0)
		got, end, _, f := jsonlex.String(s, 0, nil, jsonlex.RejectLone)
		gotCode, gotOff := 0, 0
		switch f {
		case jsonlex.OK:
		case jsonlex.BadEscape, jsonlex.LoneSurrogate:
			gotCode, gotOff = refInvalidEscape, end
		case jsonlex.ShortEscape:
			gotCode, gotOff = refSyntax, len(s)
		default:
			gotCode, gotOff = refSyntax, end
		}
		if wantCode != 0 {
			wantEnd, want = 0, ""
			end = 0
		}
		if got != want || end != wantEnd || gotCode != wantCode || gotOff != wantOff {
			t.Fatalf("RejectLone %q: got %q end %d code %d at %d (fault %d), want %q end %d code %d at %d",
				s, got, end, gotCode, gotOff, f, want, wantEnd, wantCode, wantOff)
		}

		contentEnd, escaped, ok := refStrictStrSpan(s, 0)
		got, end, _, f = jsonlex.String(s, 0, nil, jsonlex.ReplaceLone)
		skipEnd, skipFault := jsonlex.SkipString(s, 0)
		if (f == jsonlex.OK) != ok || (skipFault == jsonlex.OK) != ok {
			t.Fatalf("ReplaceLone %q: String fault %d, SkipString fault %d, former accepted %v", s, f, skipFault, ok)
		}
		if ok {
			want := s[1:contentEnd]
			if escaped {
				want = refStrictUnescape(want)
			}
			if got != want || end != contentEnd+1 || skipEnd != contentEnd+1 {
				t.Fatalf("ReplaceLone %q: got %q end %d (skip %d), want %q end %d", s, got, end, skipEnd, want, contentEnd+1)
			}
		}

		for i := range len(s) {
			if s[i] != '\\' {
				continue
			}
			unit, next, ok := refAgentsafeEscape([]byte(s), i)
			r, n, f := jsonlex.Escape(s, i)
			gotNext := i + n
			switch f {
			case jsonlex.OK:
			case jsonlex.Unterminated:
				gotNext = len(s)
			default:
				gotNext = i
			}
			if (f == jsonlex.OK) != ok || gotNext != next || (ok && rune(unit) != r) {
				t.Fatalf("Escape(%q, %d) = %#x, %d, fault %d; former %#x, %d, %v", s, i, r, gotNext, f, unit, next, ok)
			}
		}
	}
}

var numberPieces = []string{"-", "0", "1", "9", "12", ".", "e", "E", "+", "x", "_", " "}

// TestNumberMatchesFormerScanner: Number is jsonexact's former number
// scan: the same integer end, fraction, exponent and end, or a syntax
// error at the same offset.
func TestNumberMatchesFormerScanner(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(16, 5))
	for range 200_000 {
		var b strings.Builder
		b.WriteString([]string{"-", "0", "7"}[r.IntN(3)])
		for range r.IntN(8) {
			b.WriteString(numberPieces[r.IntN(len(numberPieces))])
		}
		s := b.String()
		intEnd, frac, exp, end, code, off := refExactNumber([]byte(s), 0)
		n, ok := jsonlex.Number(s, 0)
		if ok != (code == 0) {
			t.Fatalf("Number(%q) ok %v, former code %d", s, ok, code)
		}
		if !ok && n.End != off {
			t.Fatalf("Number(%q) fails at %d, former at %d", s, n.End, off)
		}
		if ok && (n != jsonlex.NumberToken{IntEnd: intEnd, Frac: frac, Exp: exp, End: end}) {
			t.Fatalf("Number(%q) = %+v, former %d %d %d %d", s, n, intEnd, frac, exp, end)
		}
	}
}

// TestQuotingMatchesFormerWriters: AppendString with Minimal is
// jsonexact's former appendString, with HTMLSafe the decision log's;
// AppendRune with Minimal over the code points of a UTF-16 string
// (pairs joined, lone surrogates alone) is agent-safe's former str.
func TestQuotingMatchesFormerWriters(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(16, 6))
	units := []uint16{'a', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0, 0x1f, 0x7f, '<', '>', '&',
		0xe9, 0x2028, 0x2029, 0xfffd, 0xffff, 0xd83d, 0xde00, 0xd800, 0xdc00, 0xdbff, 0xdfff}
	for range 100_000 {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(stringPieces[r.IntN(len(stringPieces))])
		}
		s := b.String()
		if got, want := jsonlex.AppendString([]byte("x"), s, jsonlex.Minimal), refExactAppendString([]byte("x"), s); string(got) != string(want) {
			t.Fatalf("Minimal %q: got %s, want %s", s, got, want)
		}
		if got, want := jsonlex.AppendString([]byte("x"), s, jsonlex.HTMLSafe), refLogAppendString([]byte("x"), s); string(got) != string(want) {
			t.Fatalf("HTMLSafe %q: got %s, want %s", s, got, want)
		}

		u := make([]uint16, r.IntN(6))
		for i := range u {
			u[i] = units[r.IntN(len(units))]
		}
		got := []byte{'"'}
		for rest := u; len(rest) > 0; {
			c, n := rune(rest[0]), 1
			if len(rest) > 1 {
				if d := utf16.DecodeRune(c, rune(rest[1])); d != utf8.RuneError {
					c, n = d, 2
				}
			}
			got = jsonlex.AppendRune(got, c, jsonlex.Minimal)
			rest = rest[n:]
		}
		got = append(got, '"')
		if want := refAgentsafeStr(nil, u); string(got) != string(want) {
			t.Fatalf("AppendRune over %#x: got %s, want %s", u, got, want)
		}
	}
}
