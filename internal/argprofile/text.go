package argprofile

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of a reviewed pattern (I4). RE2 matches in time linear in the
// value, times the compiled program's size; a counted repetition ({n,m})
// repeats its operand up to 1,000 times in the program, so the text's
// length alone does not bound the work: the program is bounded too, and
// on a text node its size times the node's maxOctets.
const (
	MaxPatternOctets = 1024    // the pattern's text
	maxPatternInsts  = 1024    // its compiled RE2 program
	maxPatternWork   = 1 << 26 // a text node's maxOctets × instructions: 65,536 × 1,024
)

// printableASCII reports whether s is a protocol string value (Section 10):
// printable ASCII 0x20–0x7E, at most 1,024 octets.
func printableASCII(s string) bool {
	if len(s) > 1024 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// escape is the toolgate escaping of bind: escaped — printable ASCII other
// than '\' as itself, '\' as `\\`, every other code point as \u{hex}
// (lowercase, no leading zeros). It is injective: '\' always starts an
// escape, and each escape is closed by '}' or is the two octets `\\`.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r >= 0x20 && r <= 0x7e:
			b.WriteRune(r)
		default:
			b.WriteString(`\u{`)
			b.WriteString(strconv.FormatInt(int64(r), 16))
			b.WriteByte('}')
		}
	}
	return b.String()
}

// compilePattern accepts a JSON Schema pattern only in a dialect on which
// ECMA-262 and RE2 agree (docs/arguments.md). For any text (ascii false)
// that is ASCII literals and escaped punctuation, \xHH, \d, \w, \t, \n,
// \r, ASCII classes that are not negated, ^, $, groups, alternation and
// quantifiers. For a value already confined to printable ASCII (the string
// choice, ascii true) it adds '.', \s, \S, \D, \W and negated classes: the
// engines differ on them only for line terminators, other white space and
// code points past ASCII (UTF-16 units against code points), none of which
// such a value holds. Everything else returns false, and the draft is
// refused.
func compilePattern(p string, ascii bool) (*regexp.Regexp, int, bool) {
	if p == "" || len(p) > MaxPatternOctets || !utf8.ValidString(p) {
		return nil, 0, false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x80 || c < 0x20:
			return nil, 0, false
		case c == '\\':
			if i+1 == len(p) {
				return nil, 0, false
			}
			n := p[i+1]
			switch {
			case n == 'd' || n == 'w' || n == 't' || n == 'n' || n == 'r':
			case ascii && (n == 's' || n == 'S' || n == 'D' || n == 'W'):
			case n == 'x':
				// Exactly two hex digits in both engines (ECMA-262 reads a
				// shorter \x as the letter x; RE2's \x{…} is not ECMA's).
				if !isHex(p, i+2) || !isHex(p, i+3) {
					return nil, 0, false
				}
				i += 2
			case n < 0x80 && strings.IndexByte(`\^$.|?*+()[]{}/-`, n) >= 0:
			default:
				return nil, 0, false // \b \p \u \1 …, and \s past ASCII: the engines differ or one lacks it
			}
			i++
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			if i+2 >= len(p) || p[i+2] != ':' {
				return nil, 0, false // flags, named groups, lookaround
			}
		case c == '[' && i+1 < len(p) && (p[i+1] == ':' || p[i+1] == '^' && !ascii):
			return nil, 0, false // POSIX classes; negated classes past ASCII
		}
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil || !agreedOps(re, ascii) {
		return nil, 0, false
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > maxPatternInsts {
		return nil, 0, false
	}
	c, err := regexp.Compile(p)
	if err != nil {
		return nil, 0, false
	}
	return c, len(prog.Inst), true
}

func isHex(p string, i int) bool {
	return i < len(p) && strings.IndexByte("0123456789abcdefABCDEF", p[i]) >= 0
}

// ValidPattern reports whether New accepts pattern p on a text node
// (ascii false) or on a string node, whose values are printable ASCII
// (ascii true): the importer proposes string for a pattern only the
// second dialect holds.
func ValidPattern(p string, ascii bool) bool {
	_, _, ok := compilePattern(p, ascii)
	return ok
}

// agreedOps walks the parsed pattern and admits only the agreed operators:
// with ASCII literals and classes (a negated class is a range past ASCII),
// or, for printable-ASCII values, also '.' and any class.
func agreedOps(re *syntax.Regexp, ascii bool) bool {
	if re.Flags&syntax.FoldCase != 0 {
		return false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText:
	case syntax.OpLiteral, syntax.OpCharClass:
		for _, r := range re.Rune {
			if r >= 0x80 && !ascii {
				return false
			}
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar: // the parser folds (\D|\d) into any character
		if !ascii {
			return false
		}
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat,
		syntax.OpConcat, syntax.OpAlternate:
	default:
		return false // line anchors, word boundaries, …
	}
	for _, s := range re.Sub {
		if !agreedOps(s, ascii) {
			return false
		}
	}
	return true
}

// Format is the closed set of JSON Schema formats whose meaning is exact.
type Format uint8

// Formats.
const (
	FormatNone Format = iota
	FormatDate        // RFC 3339 full-date with a valid calendar day
	FormatUUID        // RFC 9562 text form, hex of either case
)

var formatTokens = map[string]Format{"date": FormatDate, "uuid": FormatUUID}

func (f Format) String() string {
	switch f {
	case FormatDate:
		return "date"
	case FormatUUID:
		return "uuid"
	}
	return ""
}

func (f Format) holds(s string) bool {
	switch f {
	case FormatDate:
		return isDate(s)
	case FormatUUID:
		return isUUID(s)
	}
	return true
}

func digitsAt(s string, i, n int) (int, bool) {
	v := 0
	for j := i; j < i+n; j++ {
		if s[j] < '0' || s[j] > '9' {
			return 0, false
		}
		v = v*10 + int(s[j]-'0')
	}
	return v, true
}

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, ok1 := digitsAt(s, 0, 4)
	m, ok2 := digitsAt(s, 5, 2)
	d, ok3 := digitsAt(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}
