package agentsafe

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in     string
		want   Code
		offset int64
	}{
		"nothing at all":                        {in: ``, want: CodeEmpty, offset: 0},
		"only whitespace":                       {in: " \n\t ", want: CodeEmpty, offset: 4},
		"a byte order mark is not whitespace":   {in: "\ufeff{}", want: CodeSyntax, offset: 0},
		"a missing member value":                {in: `{"a":}`, want: CodeSyntax, offset: 5},
		"a trailing comma in an array":          {in: `[1,]`, want: CodeSyntax, offset: 3},
		"single-quoted keys":                    {in: `{'a':1}`, want: CodeSyntax, offset: 1},
		"a key that is not a string":            {in: `{1:2}`, want: CodeSyntax, offset: 1},
		"a missing colon":                       {in: `{"a" 1}`, want: CodeSyntax, offset: 5},
		"a missing comma":                       {in: `[1 2]`, want: CodeSyntax, offset: 3},
		"a leading zero":                        {in: `01`, want: CodeSyntax, offset: 1},
		"a bare minus":                          {in: `-`, want: CodeSyntax, offset: 1},
		"a fraction without digits":             {in: `1.`, want: CodeSyntax, offset: 2},
		"a fraction without integer part":       {in: `.5`, want: CodeSyntax, offset: 0},
		"an explicit plus sign":                 {in: `+1`, want: CodeSyntax, offset: 0},
		"an exponent without digits":            {in: `1e+`, want: CodeSyntax, offset: 3},
		"NaN is not JSON":                       {in: `NaN`, want: CodeSyntax, offset: 0},
		"Infinity is not JSON":                  {in: `-Infinity`, want: CodeSyntax, offset: 1},
		"a truncated literal":                   {in: `tru`, want: CodeSyntax, offset: 0},
		"an unknown escape":                     {in: `"\x"`, want: CodeSyntax, offset: 1},
		"a short unicode escape":                {in: `"\u12"`, want: CodeSyntax, offset: 1},
		"a raw newline inside a string":         {in: "\"a\nb\"", want: CodeSyntax, offset: 2},
		"an unterminated string":                {in: `"abc`, want: CodeSyntax, offset: 4},
		"an unterminated array":                 {in: `[1,2`, want: CodeSyntax, offset: 4},
		"an invalid byte in a string":           {in: "\"a\xffb\"", want: CodeInvalidUTF8, offset: 2},
		"a UTF-8 encoded surrogate":             {in: "\"\xed\xa0\x80\"", want: CodeInvalidUTF8, offset: 1},
		"an overlong encoding":                  {in: "\"\xc0\xaf\"", want: CodeInvalidUTF8, offset: 1},
		"a truncated sequence at the end":       {in: "\"\xe2\x82", want: CodeInvalidUTF8, offset: 1},
		"a duplicate key":                       {in: `{"a":1,"a":2}`, want: CodeDuplicateKey, offset: 7},
		"a duplicate key spelled with escapes":  {in: `{"\u0061":1,"b":0,"a":2}`, want: CodeDuplicateKey, offset: 18},
		"a duplicate key deep inside":           {in: `[{"x":{"k":1,"k":1}}]`, want: CodeDuplicateKey, offset: 13},
		"__proto__":                             {in: `{"__proto__":{"polluted":true}}`, want: CodeForbiddenKey, offset: 1},
		"constructor deep in an array":          {in: `{"a":[{"constructor":1}]}`, want: CodeForbiddenKey, offset: 7},
		"prototype":                             {in: `{"prototype":null}`, want: CodeForbiddenKey, offset: 1},
		"__proto__ spelled with an escape":      {in: `{"\u005f_proto__":1}`, want: CodeForbiddenKey, offset: 1},
		"a number that overflows to Infinity":   {in: `1e400`, want: CodeNonFiniteNumber, offset: 0},
		"a negative overflow inside an array":   {in: `[0,-1e309]`, want: CodeNonFiniteNumber, offset: 3},
		"a second document":                     {in: `{} {}`, want: CodeTrailingData, offset: 3},
		"a second number":                       {in: `1 2`, want: CodeTrailingData, offset: 2},
		"garbage after the value":               {in: `{}x`, want: CodeTrailingData, offset: 2},
		"twenty-one arrays around a scalar":     {in: nest("[", "]", 21, "1"), want: CodeTooDeep, offset: 21},
		"twenty-two empty arrays":               {in: nest("[", "]", 22, ""), want: CodeTooDeep, offset: 21},
		"twenty-one objects around a string":    {in: nest(`{"a":`, "}", 21, `"x"`), want: CodeTooDeep, offset: 105},
		"an array of 1001 elements":             {in: numbers(1001), want: CodeArrayTooLong, offset: 2001},
		"5001 entries spread over arrays":       {in: fiveThousandEntries + `,"f":0}`, want: CodeTooManyEntries, offset: 10025},
		"5001 entries as members of one object": {in: membersObject(5001), want: CodeTooManyEntries, offset: 50009},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.in))
			want := &Error{Code: tc.want, Offset: tc.offset}
			if diff := cmp.Diff(want, err); diff != "" {
				t.Errorf("Parse error (-want +got):\n%s", diff)
			}
		})
	}
}

func nest(open, close string, n int, inner string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

func numbers(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"
}

// membersObject returns {"00000":0,...} with n nine-byte members.
func membersObject(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%05d":0`, i)
	}
	b.WriteByte('}')
	return b.String()
}

// Five keys, each holding 999 elements: exactly 5000 entries (no closing
// brace, so callers can append more members).
var fiveThousandEntries = `{"a":` + numbers(999) + `,"b":` + numbers(999) + `,"c":` + numbers(999) +
	`,"d":` + numbers(999) + `,"e":` + numbers(999)

// Every limit holds at its bound; one past it is covered above and below.
func TestLimitsAcceptTheBound(t *testing.T) {
	t.Parallel()
	str := func(content string) string { return `{"s":"` + content + `"}` } // 8 bytes of framing
	tests := map[string]string{
		"twenty arrays around a scalar":         nest("[", "]", 20, "1"),
		"twenty-one empty arrays":               nest("[", "]", 21, ""),
		"twenty objects around a string":        nest(`{"a":`, "}", 20, `"x"`),
		"an array of 1000 elements":             numbers(1000),
		"exactly 5000 entries":                  fiveThousandEntries + `}`,
		"5000 members of one object":            membersObject(5000),
		"102400 bytes of ASCII":                 str(strings.Repeat("x", MaxCanonicalBytes-8)),
		"102400 bytes of two-byte characters":   str(strings.Repeat("é", (MaxCanonicalBytes-8)/2)),
		"102400 bytes with six-byte escapes":    str(strings.Repeat(`\u0001`, 17065) + "xx"),
		"102400 bytes with escaped surrogates":  str(strings.Repeat(`\udbff`, 17065) + "xx"),
		"102400 bytes from escapes that shrink": str(strings.Repeat(`\u0041`, MaxCanonicalBytes-8)),
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := CanonicalDigest([]byte(in)); err != nil {
				t.Errorf("CanonicalDigest: %v", err)
			}
		})
	}
}

func TestCanonicalSizeLimitIsBytesOfUTF8(t *testing.T) {
	t.Parallel()
	str := func(content string) string { return `{"s":"` + content + `"}` }
	tests := map[string]string{
		"102401 bytes of ASCII":               str(strings.Repeat("x", MaxCanonicalBytes-7)),
		"102401 bytes of two-byte characters": str(strings.Repeat("é", (MaxCanonicalBytes-8)/2) + "x"),
		"102401 bytes with six-byte escapes":  str(strings.Repeat(`\u0001`, 17065) + "xxx"),
		"a value far past the limit":          str(strings.Repeat("x", 1<<20)),
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, _, err := CanonicalDigest([]byte(in))
			if diff := cmp.Diff(&Error{Code: CodeTooLarge, Offset: -1}, err); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Canonical applies every rule to Values built in Go, which Parse never saw.
func TestCanonicalRejectsProgrammaticValues(t *testing.T) {
	t.Parallel()
	deep := Number(1)
	for range 21 {
		deep = Array(deep)
	}
	many := make([]Value, 1000)
	for i := range many {
		many[i] = Null()
	}
	tests := map[string]struct {
		v    Value
		want Code
	}{
		"the zero Value":                    {v: Value{}, want: CodeUnsupportedValue},
		"a zero Value inside an array":      {v: Array(Null(), Value{}), want: CodeUnsupportedValue},
		"NaN":                               {v: Number(math.NaN()), want: CodeNonFiniteNumber},
		"positive infinity":                 {v: Object(Member{"n", Number(math.Inf(1))}), want: CodeNonFiniteNumber},
		"negative infinity":                 {v: Array(Number(math.Inf(-1))), want: CodeNonFiniteNumber},
		"a string of invalid UTF-8":         {v: String("a\xffb"), want: CodeInvalidUTF8},
		"a key of invalid UTF-8":            {v: Object(Member{"\xc0", Null()}), want: CodeInvalidUTF8},
		"a repeated key":                    {v: Object(Member{"a", Null()}, Member{"b", Null()}, Member{"a", Null()}), want: CodeDuplicateKey},
		"a __proto__ key":                   {v: Object(Member{"x", Object(Member{"__proto__", Null()})}), want: CodeForbiddenKey},
		"a constructor key":                 {v: Object(Member{"constructor", Null()}), want: CodeForbiddenKey},
		"twenty-one arrays around a scalar": {v: deep, want: CodeTooDeep},
		"an array of 1001 elements":         {v: Array(append(many, Null())...), want: CodeArrayTooLong},
		"5001 entries":                      {v: Array(Array(many...), Array(many...), Array(many...), Array(many...), Array(many[:996]...)), want: CodeTooManyEntries},
		"a string past the size limit":      {v: String(strings.Repeat("x", MaxCanonicalBytes-1)), want: CodeTooLarge},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Canonical(tc.v)
			if diff := cmp.Diff(&Error{Code: tc.want, Offset: -1}, err); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// The bounds themselves pass.
	okDeep := Number(1)
	for range 20 {
		okDeep = Array(okDeep)
	}
	bounds := map[string]Value{
		"twenty arrays around a scalar": okDeep,
		"exactly 5000 entries":          Array(Array(many...), Array(many...), Array(many...), Array(many...), Array(many[:995]...)),
		"exactly 102400 bytes":          String(strings.Repeat("x", MaxCanonicalBytes-2)),
	}
	for name, v := range bounds {
		if _, err := Canonical(v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestErrorsNeverEchoInput(t *testing.T) {
	t.Parallel()
	const secret = "sk_live_SECRET_4242"
	tests := map[string]string{
		"duplicate secret key":          `{"` + secret + `":1,"` + secret + `":2}`,
		"forbidden key with secret":     `{"a":"` + secret + `","__proto__":"` + secret + `"}`,
		"syntax error after a secret":   `{"` + secret + `":"` + secret + `",}`,
		"invalid UTF-8 inside a secret": `{"k":"` + secret + "\xff" + secret + `"}`,
		"trailing secret":               `{} ` + secret,
		"secret in an oversized value":  `{"k":"` + strings.Repeat(secret, 6000) + `"}`,
		"secret beside a huge number":   `{"` + secret + `":1e999}`,
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, _, err := CanonicalDigest([]byte(in))
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "4242") {
				t.Errorf("error text echoes input: %q", err.Error())
			}
		})
	}
}

func TestErrorAPI(t *testing.T) {
	t.Parallel()
	sentinels := map[Code]error{
		CodeSyntax: ErrSyntax, CodeInvalidUTF8: ErrInvalidUTF8, CodeDuplicateKey: ErrDuplicateKey,
		CodeForbiddenKey: ErrForbiddenKey, CodeNonFiniteNumber: ErrNonFiniteNumber, CodeTooDeep: ErrTooDeep,
		CodeTooManyEntries: ErrTooManyEntries, CodeArrayTooLong: ErrArrayTooLong, CodeTooLarge: ErrTooLarge,
		CodeTrailingData: ErrTrailingData, CodeEmpty: ErrEmpty, CodeUnsupportedValue: ErrUnsupportedValue,
	}
	tokens := map[string]bool{}
	for c := CodeSyntax; c <= CodeUnsupportedValue; c++ {
		err := error(&Error{Code: c, Offset: 12})
		if !errors.Is(err, sentinels[c]) {
			t.Errorf("errors.Is(%v, sentinel) is false", c)
		}
		for other, s := range sentinels {
			if other != c && errors.Is(err, s) {
				t.Errorf("%v matches the sentinel of %v", c, other)
			}
		}
		tok := c.String()
		if tokens[tok] || tok == "" || strings.ToLower(tok[:1]) != tok[:1] || strings.ContainsAny(tok, " _-") {
			t.Errorf("token %q is not a unique lowerCamel word", tok)
		}
		tokens[tok] = true
	}
	got := map[string]string{
		"with offset":    (&Error{Code: CodeDuplicateKey, Offset: 7}).Error(),
		"without offset": ErrTooLarge.Error(),
		"unknown code":   Code(0).String() + " " + Code(200).String(),
	}
	want := map[string]string{
		"with offset":    "agentsafe: object has a duplicate key at byte 7",
		"without offset": "agentsafe: canonical JSON is larger than 102400 bytes",
		"unknown code":   "Code(0) Code(200)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
