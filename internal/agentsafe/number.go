package agentsafe

import (
	"strconv"
)

// appendJSNumber appends the ECMAScript Number::toString(f) of a finite f
// (ECMA-262 §6.1.6.1.20), which is what JSON.stringify emits for numbers.
//
// With k shortest round-trip digits s and decimal exponent n (value =
// 0.s × 10^n):
//
//	k <= n <= 21   s followed by n-k zeros      1e20 -> 100000000000000000000
//	0 < n <= 21    s with a point after n digits 1.5
//	-6 < n <= 0    "0." then -n zeros then s     1e-7 is outside: 1e-7
//	otherwise      d[.ddd]e±(n-1)                1e+21, 1.5e-7
//
// Go's shortest formatting picks the digit string closest to the exact
// value among the shortest, as the ECMAScript algorithm requires; -0
// prints as 0.
func appendJSNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	// Integers below 2^53 are exact, and their decimal digits are already
	// the shortest representation, so print them directly.
	if f > -(1<<53) && f < 1<<53 && f == float64(int64(f)) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64) // -d.ddde±xx
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		b = append(b, '-')
	}
	// Split mantissa digits and exponent.
	var digits [24]byte
	k := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp, expNeg := 0, e[i+1] == '-'
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if expNeg {
		exp = -exp
	}
	s := digits[:k]
	n := exp + 1
	switch {
	case k <= n && n <= 21:
		b = append(b, s...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, s[:n]...)
		b = append(b, '.')
		b = append(b, s[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for range -n {
			b = append(b, '0')
		}
		b = append(b, s...)
	default:
		b = append(b, s[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, s[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}
