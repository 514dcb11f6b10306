package argprofile

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/gowebpki/jcs"
)

// decimal is the exact value of an RFC 8259 number token: digits × 10^exp,
// digits without leading or trailing zeros ("" for zero, whose sign is
// dropped). Two tokens have the same numeric value iff their decimals are
// equal, whatever their spelling (1.50, 1.5, 15e-1).
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// maxExponentDigits bounds the exponent text a token may carry; beyond it
// the value is outside every range the profile accepts.
const maxExponentDigits = 6

// numberToken splits a well-formed number token into its parts: sign,
// integer digits, fraction digits (as written) and exponent. ok is false
// for an exponent too long to be meaningful.
type numberToken struct {
	neg        bool
	intDigits  string
	fracDigits string
	hasFrac    bool
	hasExp     bool
	exp        int
}

func splitNumber(lit string) (numberToken, bool) {
	var t numberToken
	s := lit
	if strings.HasPrefix(s, "-") {
		t.neg, s = true, s[1:]
	}
	mant := s
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		t.hasExp = true
		mant = s[:i]
		e := s[i+1:]
		sign := 1
		switch {
		case strings.HasPrefix(e, "+"):
			e = e[1:]
		case strings.HasPrefix(e, "-"):
			sign, e = -1, e[1:]
		}
		e = strings.TrimLeft(e, "0")
		if len(e) > maxExponentDigits {
			return t, false
		}
		n := 0
		if e != "" {
			n, _ = strconv.Atoi(e) // digits only: the token is well formed
		}
		t.exp = sign * n
	}
	t.intDigits = mant
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		t.hasFrac = true
		t.intDigits, t.fracDigits = mant[:i], mant[i+1:]
	}
	return t, true
}

// value returns the exact decimal of the token.
func (t numberToken) value() decimal {
	all := t.intDigits + t.fracDigits
	exp := t.exp - len(t.fracDigits)
	trimmed := strings.TrimLeft(all, "0")
	d := strings.TrimRight(trimmed, "0")
	exp += len(trimmed) - len(d)
	if d == "" {
		return decimal{}
	}
	return decimal{neg: t.neg, digits: d, exp: exp}
}

// parseDecimal is the exact decimal of a number token; ok is false for an
// exponent beyond maxExponentDigits.
func parseDecimal(lit string) (decimal, bool) {
	t, ok := splitNumber(lit)
	if !ok {
		return decimal{}, false
	}
	return t.value(), true
}

// scaled returns the token's value × 10^scale as an integer, refusing (with
// the code) an exponent or more fraction digits than scale as written:
// nothing is rounded and the check stays on the text.
func scaled(lit string, scale int) (*big.Int, Code) {
	t, ok := splitNumber(lit)
	if !ok || t.hasExp {
		return nil, CodeExponent
	}
	if len(t.fracDigits) > scale {
		return nil, CodeFraction
	}
	// A 64-bit value at scale 18 has at most 38 digits: a longer integer
	// part is out of range, decided before any arithmetic on it.
	if len(strings.TrimLeft(t.intDigits, "0")) > 20 {
		return nil, CodeOutOfRange
	}
	digits := t.intDigits + t.fracDigits + strings.Repeat("0", scale-len(t.fracDigits))
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, CodeSyntax
	}
	if t.neg {
		n.Neg(n)
	}
	return n, 0
}

// Bounds of the two protocol integer domains (Section 39).
var (
	minInt64  = big.NewInt(-1 << 63)
	maxInt64  = big.NewInt(1<<63 - 1)
	maxUint64 = new(big.Int).SetUint64(1<<64 - 1)
)

// inDomain reports whether n lies in the signed or unsigned 64-bit domain.
func inDomain(n *big.Int, unsigned bool) bool {
	if unsigned {
		return n.Sign() >= 0 && n.Cmp(maxUint64) <= 0
	}
	return n.Cmp(minInt64) >= 0 && n.Cmp(maxInt64) <= 0
}

// exactDouble reports whether the token's value is exactly the shortest
// round-trip decimal of the IEEE double nearest to it, the form RFC 8785
// writes: then the JCS serialization, which goes through doubles, keeps the
// value, and distinct accepted values have distinct canonical forms.
func exactDouble(lit string) bool {
	d, ok := parseDecimal(lit)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return false // ±Inf: outside the doubles
	}
	es6, err := jcs.NumberToJSON(f)
	if err != nil {
		return false
	}
	e, ok := parseDecimal(es6)
	return ok && e == d
}
