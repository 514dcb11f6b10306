package agentsafe

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf16"
)

// docGen builds varied JSON texts for the Node.js differential test. It
// never produces duplicate keys or invalid UTF-8, which JSON.parse would
// resolve silently while we reject; everything else is fair game.
type docGen struct {
	r *rand.Rand
}

func newDocGen(seed uint64) *docGen {
	return &docGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *docGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *docGen) ws() string {
	if !g.chance(0.15) {
		return ""
	}
	return []string{" ", "\n", "\t", "\r\n  ", "  "}[g.r.IntN(5)]
}

// document returns one random document of modest size (well inside every
// limit, so both sides must accept it).
func (g *docGen) document() string {
	var b strings.Builder
	b.WriteString(g.ws())
	g.value(&b, 0, 1+g.r.IntN(6))
	b.WriteString(g.ws())
	return b.String()
}

func (g *docGen) value(b *strings.Builder, depth, maxDepth int) {
	if depth >= maxDepth || g.chance(0.35) {
		g.scalar(b)
		return
	}
	if g.chance(0.5) {
		n := g.r.IntN(9)
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteString(g.ws() + "," + g.ws())
			}
			g.value(b, depth+1, maxDepth)
		}
		b.WriteByte(']')
		return
	}
	n := g.r.IntN(9)
	seen := map[string]bool{}
	b.WriteByte('{')
	first := true
	for range n {
		units := g.key()
		kb := make([]byte, 0, 2*len(units)) // exact code units, lone surrogates included
		for _, c := range units {
			kb = append(kb, byte(c>>8), byte(c))
		}
		k := string(kb)
		if seen[k] {
			continue
		}
		seen[k] = true
		if !first {
			b.WriteString(g.ws() + "," + g.ws())
		}
		first = false
		b.WriteString(g.encode(units))
		b.WriteString(g.ws() + ":" + g.ws())
		g.value(b, depth+1, maxDepth)
	}
	b.WriteByte('}')
}

func (g *docGen) scalar(b *strings.Builder) {
	switch g.r.IntN(10) {
	case 0:
		b.WriteString("null")
	case 1:
		b.WriteString([]string{"true", "false"}[g.r.IntN(2)])
	case 2, 3, 4, 5:
		b.WriteString(g.number())
	default:
		b.WriteString(g.encode(g.units()))
	}
}

var specialNumbers = []string{
	"0", "-0", "-0.0", "0e0", "-0e-5", "1", "-1", "1.0", "2.50", "-1.50E+2",
	"1e21", "1E21", "1e+21", "-1e21", "1e20", "100000000000000000000",
	"999999999999999999999", "9.999999999999999e20", "123456789012345678901",
	"1e-7", "0.0000001", "0.000001", "1e-6", "1.5e-7", "2e-7", "123e-20",
	"9007199254740993", "9007199254740992", "-9007199254740993", "9007199254740995",
	"18446744073709551616", "4294967295", "4294967296", "5e-324", "-5e-324",
	"2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400", "-1e-400",
	"1.7976931348623157e308", "1.7976931348623158e308", "2.2250738585072014e-308",
	"0.1", "0.30000000000000004", "123456789.123456789", "1e0", "1E-0",
	"0.00001234", "1234567890123456789e-30", "3.14159265358979323846264338327950288",
}

func (g *docGen) number() string {
	switch g.r.IntN(5) {
	case 0:
		return specialNumbers[g.r.IntN(len(specialNumbers))]
	case 1:
		return strconv.Itoa(g.r.IntN(2001) - 1000)
	case 2: // any finite double, printed exactly enough to round-trip
		for {
			f := math.Float64frombits(g.r.Uint64())
			if !math.IsInf(f, 0) && !math.IsNaN(f) {
				return strconv.FormatFloat(f, []byte("geE")[g.r.IntN(3)], -1, 64)
			}
		}
	default: // random decimal text, sometimes with long digit strings
		var s strings.Builder
		if g.chance(0.3) {
			s.WriteByte('-')
		}
		intDigits := 1 + g.r.IntN(22)
		s.WriteByte(byte('1' + g.r.IntN(9)))
		for range intDigits - 1 {
			s.WriteByte(byte('0' + g.r.IntN(10)))
		}
		if g.chance(0.5) {
			s.WriteByte('.')
			for range 1 + g.r.IntN(20) {
				s.WriteByte(byte('0' + g.r.IntN(10)))
			}
		}
		if g.chance(0.5) {
			// Positive exponents stay below overflow (at most 22 integer
			// digits); negative ones reach into subnormals and underflow.
			sign := []string{"e", "E", "e+", "e-", "E-"}[g.r.IntN(5)]
			s.WriteString(sign)
			if strings.HasSuffix(sign, "-") {
				s.WriteString(strconv.Itoa(g.r.IntN(350)))
			} else {
				s.WriteString(strconv.Itoa(g.r.IntN(286)))
			}
		}
		return s.String()
	}
}

var keyPool = []string{
	"0", "1", "2", "10", "9", "01", "-1", "00", "4294967294", "4294967295",
	"4294967296", "1.0", "1e3", " 1", "a", "b", "A", "Z", "za", "zé", "Éclair",
	"\uffff", "\ue000", "😀", "é", "e\u0301", "café", "cafe\u0301", "", "aa",
	"actor", "tenant", "parameters", "expiry", "target", "__proto", "proto__",
}

func (g *docGen) key() []uint16 {
	if g.chance(0.6) {
		return utf16.Encode([]rune(keyPool[g.r.IntN(len(keyPool))]))
	}
	return g.units()
}

// units returns a random UTF-16 string mixing every class the encoder
// treats differently, including lone surrogates.
func (g *docGen) units() []uint16 {
	if g.chance(0.02) {
		return utf16.Encode([]rune(strings.Repeat("x", 1000+g.r.IntN(4000))))
	}
	n := g.r.IntN(12)
	var u []uint16
	for range n {
		switch g.r.IntN(12) {
		case 0, 1, 2:
			u = append(u, uint16(0x20+g.r.IntN(0x5f))) // printable ASCII
		case 3:
			u = append(u, uint16(g.r.IntN(0x20))) // controls
		case 4:
			u = append(u, []uint16{'"', '\\', '/', '<', '>', '&', 0x7f}[g.r.IntN(7)])
		case 5:
			u = append(u, []uint16{0xe9, 0x301, 0x2028, 0x2029, 0xfeff, 0xe000, 0xffff, 0xfffd, 0xff}[g.r.IntN(9)])
		case 6, 7:
			r := rune(0x80 + g.r.IntN(0xd800-0x80)) // BMP below surrogates
			u = append(u, uint16(r))
		case 8:
			u = append(u, uint16(0xe000+g.r.IntN(0x2000))) // BMP above surrogates
		case 9, 10:
			r := []rune{0x1f600, 0x10000, 0x10ffff, 0x1f680}[g.r.IntN(4)]
			if g.chance(0.5) {
				r = rune(0x10000 + g.r.IntN(0x100000))
			}
			u = utf16.AppendRune(u, r)
		case 11:
			u = append(u, uint16(0xd800+g.r.IntN(0x800))) // lone surrogate (maybe pairs up)
		}
	}
	return u
}

func shortEscape(c uint16) string {
	switch c {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '/':
		return `\/`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	return ""
}

// encode writes units as a JSON string literal, choosing raw or escaped
// spellings at random where both are valid.
func (g *docGen) encode(u []uint16) string {
	var b strings.Builder
	b.WriteByte('"')
	esc := func(c uint16) {
		digits := "0123456789abcdef"
		if g.chance(0.5) {
			digits = "0123456789ABCDEF"
		}
		b.WriteString(`\u`)
		b.Write([]byte{digits[c>>12], digits[c>>8&0xf], digits[c>>4&0xf], digits[c&0xf]})
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		short := shortEscape(c)
		switch {
		case short != "" && (c < 0x20 || c == '"' || c == '\\' || g.chance(0.5)):
			b.WriteString(short)
		case c < 0x20:
			esc(c)
		case utf16.IsSurrogate(rune(c)):
			if c < 0xdc00 && i+1 < len(u) && u[i+1] >= 0xdc00 && u[i+1] <= 0xdfff && g.chance(0.5) {
				b.WriteRune(utf16.DecodeRune(rune(c), rune(u[i+1])))
				i++
				continue
			}
			esc(c)
		case g.chance(0.1):
			esc(c)
		default:
			b.WriteRune(rune(c))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// edgeDocuments are hand-picked texts at and just past every limit, plus
// rejections both sides must agree on.
func edgeDocuments() []string {
	nest := func(open, close string, n int, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	numbers := func(n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"
	}
	str := func(content string) string { return `{"s":"` + content + `"}` }
	docs := []string{
		nest("[", "]", 20, "1"), nest("[", "]", 21, "1"),
		nest("[", "]", 21, ""), nest("[", "]", 22, ""),
		nest(`{"a":`, "}", 20, `"x"`), nest(`{"a":`, "}", 21, `"x"`),
		nest(`{"a":`, "}", 20, "{}"), nest(`{"a":`, "}", 21, "{}"),
		numbers(1000), numbers(1001), `{"a":` + numbers(1000) + `}`,
		`{"a":` + numbers(999) + `,"b":` + numbers(999) + `,"c":` + numbers(999) + `,"d":` + numbers(999) + `,"e":` + numbers(999) + `}`,
		`{"a":` + numbers(999) + `,"b":` + numbers(999) + `,"c":` + numbers(999) + `,"d":` + numbers(999) + `,"e":` + numbers(999) + `,"f":0}`,
		// {"s":"…"} is 8 bytes of framing.
		str(strings.Repeat("x", MaxCanonicalBytes-8)), str(strings.Repeat("x", MaxCanonicalBytes-7)),
		str(strings.Repeat("é", (MaxCanonicalBytes-8)/2)), str(strings.Repeat("é", (MaxCanonicalBytes-8)/2) + "x"),
		str(strings.Repeat(`\u0001`, 17065) + "xx"), str(strings.Repeat(`\u0001`, 17065) + "xxx"),
		str(strings.Repeat(`\ud800`, 17065) + "xx"), str(strings.Repeat(`\ud800`, 17065) + "xxx"),
		`{"__proto__":{"polluted":true}}`, `{"a":{"constructor":1}}`, `[{"prototype":[]}]`,
		`{"\u005f_proto__":1}`, `{"__proto__ ":1,"constructor2":2,"Prototype":3}`,
		`1e400`, `[-1e309]`, `{"n":1e999}`,
		``, `   `, `{} {}`, `[1,]`, `01`, `NaN`, `{'a':1}`, "\ufeff{}", `"\x"`, "\"a\nb\"",
		`{"b":1,"a":2,"10":0,"2":0}`, `-0`, `1e21`, `0.0000001`, `9007199254740993`,
		`"\u2028<>&\u2029"`, `"\ud800"`, `{"\uffff":1,"\ud83d\ude00":2,"\ue000":3}`,
	}
	return docs
}
