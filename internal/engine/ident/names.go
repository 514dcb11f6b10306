package ident

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

// ToolID is a Tool Identifier: 2–8 dot-separated lower-token(32) segments,
// at most 128 octets (Sections 9, 39, 49).
type ToolID struct{ s string }

// ParseToolID parses a Tool Identifier.
func ParseToolID(s string) (ToolID, error) {
	if !isToolID(s) {
		return ToolID{}, fault.New(fault.Malformed,
			"tool identifier must be 2–8 dot-separated segments of 1–32 octets (a–z, 0–9, interior '-'), at most 128 octets")
	}
	return ToolID{s: s}, nil
}

func isToolID(s string) bool {
	if len(s) == 0 || len(s) > MaxToolIDLen {
		return false
	}
	n := 0
	for seg := range strings.SplitSeq(s, ".") {
		n++
		if n > MaxToolIDSegments || !isLowerToken(seg, MaxToolIDSegmentLen) {
			return false
		}
	}
	return n >= MinToolIDSegments
}

// String returns the exact identifier text.
func (t ToolID) String() string { return t.s }

// IsZero reports whether t is the invalid zero value.
func (t ToolID) IsZero() bool { return t.s == "" }

// Compare orders Tool Identifiers by ASCII segment sequence (Section 49).
// Segment-wise comparison differs from whole-string comparison because '.'
// sorts below '-' and the alphanumerics: "a.b" vs "a-c.b".
func (t ToolID) Compare(u ToolID) int {
	// One pass to the first differing octet. The segments around it share
	// everything before it, so the segment order is decided there: a
	// segment that ends there (at '.' or at the end of the identifier)
	// sorts first, and an identifier that ends there sorts before one with
	// more segments. toolIDCompareReference in the tests is the
	// segment-by-segment definition.
	ts, us := t.s, u.s
	i := 0
	for i < len(ts) && i < len(us) && ts[i] == us[i] {
		i++
	}
	tEnd, uEnd := i == len(ts), i == len(us)
	switch {
	case tEnd && uEnd:
		return 0
	case tEnd:
		return -1
	case uEnd:
		return 1
	case ts[i] == '.':
		return -1
	case us[i] == '.':
		return 1
	case ts[i] < us[i]:
		return -1
	default:
		return 1
	}
}

// Generation is a positive unsigned 64-bit generation: a Tool Version, a
// Registry Snapshot, Policy or Policy Snapshot generation (Sections 9, 49).
type Generation struct{ v uint64 }

const generationRule = "generation must be a canonical decimal integer from 1 to 18446744073709551615 (no sign, leading zero or spaces)"

// ParseGeneration parses canonical generation text.
func ParseGeneration(s string) (Generation, error) {
	if len(s) == 0 || len(s) > MaxGenerationDigits || s[0] < '1' || s[0] > '9' {
		return Generation{}, fault.New(fault.Malformed, generationRule)
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return Generation{}, fault.New(fault.Malformed, generationRule)
		}
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return Generation{}, fault.New(fault.OutOfRange, generationRule)
		}
		v = v*10 + d
	}
	return Generation{v: v}, nil
}

// NewGeneration returns the generation v; zero rejects.
func NewGeneration(v uint64) (Generation, error) {
	if v == 0 {
		return Generation{}, fault.New(fault.OutOfRange, generationRule)
	}
	return Generation{v: v}, nil
}

// Uint64 returns the generation's value.
func (g Generation) Uint64() uint64 { return g.v }

// IsZero reports whether g is the invalid zero value.
func (g Generation) IsZero() bool { return g.v == 0 }

// Previous returns the generation before g; false for generation 1 (and
// the zero value), which has none.
func (g Generation) Previous() (Generation, bool) {
	if g.v <= 1 {
		return Generation{}, false
	}
	return Generation{v: g.v - 1}, true
}

// String returns canonical decimal text.
func (g Generation) String() string { return strconv.FormatUint(g.v, 10) }

// Compare orders generations numerically (Section 50).
func (g Generation) Compare(h Generation) int { return cmp.Compare(g.v, h.v) }

// DocRef is a documentation reference: 1–64 octets, first and last
// lower-alnum, interior lower-alnum, '-' or '.'.
type DocRef struct{ s string }

// ParseDocRef parses a documentation reference.
func ParseDocRef(s string) (DocRef, error) {
	ok := len(s) > 0 && len(s) <= MaxDocRefLen && isLowerAlnum(s[0]) && isLowerAlnum(s[len(s)-1])
	for i := 1; ok && i < len(s)-1; i++ {
		c := s[i]
		ok = isLowerAlnum(c) || c == '-' || c == '.'
	}
	if !ok {
		return DocRef{}, fault.New(fault.Malformed,
			"documentation reference must be 1–64 octets of a–z, 0–9, '-' and '.', starting and ending with a letter or digit")
	}
	return DocRef{s: s}, nil
}

// String returns the exact reference text.
func (d DocRef) String() string { return d.s }

// IsZero reports whether d is absent.
func (d DocRef) IsZero() bool { return d.s == "" }

// Text is bounded, non-authoritative display text of printable ASCII
// (0x20–0x7E): a Tool display title, a Tool safe summary or Intent display
// text. Its bound and edge rule depend on the kind and are checked by the
// kind's Parse function.
type Text struct{ s string }

// String returns the exact text.
func (t Text) String() string { return t.s }

// IsZero reports whether t is absent.
func (t Text) IsZero() bool { return t.s == "" }

// IsPrintableASCII reports whether every octet of s is in 0x20–0x7E.
func IsPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func parseText(s string, maxLen int, trimmedEdges bool, rule string) (Text, error) {
	ok := len(s) > 0 && len(s) <= maxLen && IsPrintableASCII(s)
	if ok && trimmedEdges {
		ok = s[0] != ' ' && s[len(s)-1] != ' '
	}
	if !ok {
		return Text{}, fault.New(fault.Malformed, rule)
	}
	return Text{s: s}, nil
}

// ParseTitle parses a Tool display title: 1–80 printable ASCII octets, not
// starting or ending with a space.
func ParseTitle(s string) (Text, error) {
	return parseText(s, MaxTitleLen, true,
		"title must be 1–80 printable ASCII characters, not starting or ending with a space")
}

// ParseSummary parses a Tool safe summary: 1–240 printable ASCII octets, not
// starting or ending with a space.
func ParseSummary(s string) (Text, error) {
	return parseText(s, MaxSummaryLen, true,
		"summary must be 1–240 printable ASCII characters, not starting or ending with a space")
}

// ParseIntentDisplay parses present Intent display text: 1–160 printable
// ASCII octets; leading and trailing spaces are preserved.
func ParseIntentDisplay(s string) (Text, error) {
	return parseText(s, MaxIntentDisplayLen, false,
		"intent display text must be 1–160 printable ASCII characters")
}
