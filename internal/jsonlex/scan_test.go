package jsonlex_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/jsonlex"
)

func TestSkipSpaceAndSpans(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in                  string
		from                int
		wantSpace, wantSpan int
		wantSpanPrintable   int
	}{
		"only the four JSON spaces":    {in: " \t\r\n\v", wantSpace: 4, wantSpan: 1, wantSpanPrintable: 1},
		"no space":                     {in: `ab"`, wantSpace: 0, wantSpan: 2, wantSpanPrintable: 2},
		"from an offset to the end":    {in: "x  ", from: 1, wantSpace: 3, wantSpan: 3, wantSpanPrintable: 3},
		"span stops at a backslash":    {in: `ab\n`, wantSpan: 2, wantSpanPrintable: 2},
		"span stops at a control":      {in: "ab\x1fc", wantSpan: 2, wantSpanPrintable: 2},
		"printable stops at DEL":       {in: "ab\x7fc", wantSpan: 4, wantSpanPrintable: 2},
		"printable stops at non-ASCII": {in: `aé"`, wantSpan: 3, wantSpanPrintable: 1},
	} {
		if got := jsonlex.SkipSpace(tc.in, tc.from); got != tc.wantSpace {
			t.Errorf("%s: SkipSpace = %d, want %d", name, got, tc.wantSpace)
		}
		if got := jsonlex.Span(tc.in, tc.from); got != tc.wantSpan {
			t.Errorf("%s: Span = %d, want %d", name, got, tc.wantSpan)
		}
		if got := jsonlex.SpanPrintable(tc.in, tc.from); got != tc.wantSpanPrintable {
			t.Errorf("%s: SpanPrintable = %d, want %d", name, got, tc.wantSpanPrintable)
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	type result struct {
		V     string
		End   int
		Fault jsonlex.Fault
	}
	for name, tc := range map[string]struct {
		in          string
		wantReject  result // RejectLone
		wantReplace result // ReplaceLone
	}{
		"plain":                     {in: `"abc",`, wantReject: result{"abc", 5, 0}, wantReplace: result{"abc", 5, 0}},
		"escapes":                   {in: `"a\"\\\/\b\f\n\r\t\u00e9"`, wantReject: result{"a\"\\/\b\f\n\r\té", 25, 0}, wantReplace: result{"a\"\\/\b\f\n\r\té", 25, 0}},
		"surrogate pair":            {in: `"\ud83d\ude00"`, wantReject: result{"😀", 14, 0}, wantReplace: result{"😀", 14, 0}},
		"lone high":                 {in: `"x\ud800y"`, wantReject: result{"", 2, jsonlex.LoneSurrogate}, wantReplace: result{"x\ufffdy", 10, 0}},
		"lone low":                  {in: `"\udc00"`, wantReject: result{"", 1, jsonlex.LoneSurrogate}, wantReplace: result{"\ufffd", 8, 0}},
		"reversed pair":             {in: `"\udc00\ud800"`, wantReject: result{"", 1, jsonlex.LoneSurrogate}, wantReplace: result{"\ufffd\ufffd", 14, 0}},
		"unterminated":              {in: `"abc`, wantReject: result{"", 4, jsonlex.Unterminated}, wantReplace: result{"", 4, jsonlex.Unterminated}},
		"unterminated after escape": {in: `"\n`, wantReject: result{"", 3, jsonlex.Unterminated}, wantReplace: result{"", 3, jsonlex.Unterminated}},
		"backslash at the end":      {in: `"a\`, wantReject: result{"", 3, jsonlex.Unterminated}, wantReplace: result{"", 3, jsonlex.Unterminated}},
		"control":                   {in: "\"a\tb\"", wantReject: result{"", 2, jsonlex.Control}, wantReplace: result{"", 2, jsonlex.Control}},
		"unknown escape":            {in: `"a\x"`, wantReject: result{"", 2, jsonlex.BadEscape}, wantReplace: result{"", 2, jsonlex.BadEscape}},
		"non-hex digit":             {in: `"\u12g4"`, wantReject: result{"", 1, jsonlex.BadEscape}, wantReplace: result{"", 1, jsonlex.BadEscape}},
		"short unicode escape":      {in: `"\u12"`, wantReject: result{"", 1, jsonlex.ShortEscape}, wantReplace: result{"", 1, jsonlex.ShortEscape}},
	} {
		for lone, want := range map[jsonlex.Lone]result{jsonlex.RejectLone: tc.wantReject, jsonlex.ReplaceLone: tc.wantReplace} {
			v, end, _, f := jsonlex.String(tc.in, 0, nil, lone)
			if diff := cmp.Diff(want, result{v, end, f}); diff != "" {
				t.Errorf("%s, lone %d (-want +got):\n%s", name, lone, diff)
			}
		}
		// SkipString validates as ReplaceLone reads.
		end, f := jsonlex.SkipString(tc.in, 0)
		if f != tc.wantReplace.Fault || end != tc.wantReplace.End {
			t.Errorf("%s: SkipString = %d, fault %d; want %d, fault %d", name, end, f, tc.wantReplace.End, tc.wantReplace.Fault)
		}
	}
}

// TestStringWithoutEscapesSharesTheInput: the fast path returns a
// substring, which costs no allocation. Not parallel: AllocsPerRun.
func TestStringWithoutEscapesSharesTheInput(t *testing.T) {
	in := `{"name":"value"}`
	if n := testing.AllocsPerRun(100, func() {
		if v, _, _, f := jsonlex.String(in, 8, nil, jsonlex.RejectLone); v != "value" || f != jsonlex.OK {
			t.Fatal(v, f)
		}
	}); n != 0 {
		t.Errorf("String without escapes allocated %v times", n)
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in     string
		want   jsonlex.NumberToken
		wantOK bool
	}{
		"zero":                  {in: "0", want: jsonlex.NumberToken{IntEnd: 1, Frac: -1, Exp: -1, End: 1}, wantOK: true},
		"negative integer":      {in: "-120,", want: jsonlex.NumberToken{IntEnd: 4, Frac: -1, Exp: -1, End: 4}, wantOK: true},
		"fraction and exponent": {in: "1.50e+3]", want: jsonlex.NumberToken{IntEnd: 1, Frac: 1, Exp: 4, End: 7}, wantOK: true},
		"leading zero ends":     {in: "01", want: jsonlex.NumberToken{IntEnd: 1, Frac: -1, Exp: -1, End: 1}, wantOK: true},
		"minus alone":           {in: "-", want: jsonlex.NumberToken{Frac: -1, Exp: -1, End: 1}},
		"minus letter":          {in: "-x", want: jsonlex.NumberToken{Frac: -1, Exp: -1, End: 1}},
		"point without digits":  {in: "1.e5", want: jsonlex.NumberToken{IntEnd: 1, Frac: 1, Exp: -1, End: 2}},
		"exponent sign alone":   {in: "2E-", want: jsonlex.NumberToken{IntEnd: 1, Frac: -1, Exp: 1, End: 3}},
	} {
		got, ok := jsonlex.Number(tc.in, 0)
		if ok != tc.wantOK || got != tc.want {
			t.Errorf("%s: Number = %+v, %v; want %+v, %v", name, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestLiteralAndTokenByte(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in, lit string
		want    int
	}{
		"whole":           {in: "true,", lit: "true", want: 4},
		"mismatch":        {in: "trxe", lit: "true", want: 2},
		"input too short": {in: "nul", lit: "null", want: 3},
		"nothing":         {in: "", lit: "false", want: 0},
	} {
		if got := jsonlex.Literal(tc.in, 0, tc.lit); got != tc.want {
			t.Errorf("%s: Literal = %d, want %d", name, got, tc.want)
		}
	}
	for c := range 256 {
		b := byte(c)
		want := '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '.' || b == '+' || b == '-' || b == '_'
		if got := jsonlex.TokenByte(b); got != want {
			t.Errorf("TokenByte(%#x) = %v, want %v", b, got, want)
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		"":              -1,
		"abc":           -1,
		"é\xff":         2,
		"a\xc3":         1, // truncated sequence
		"\xed\xa0\x80x": 0, // encoded surrogate
	} {
		off, bad := jsonlex.InvalidUTF8([]byte(in))
		if bad != (want >= 0) || (bad && off != want) {
			t.Errorf("InvalidUTF8(%q) = %d, %v; want %d", in, off, bad, want)
		}
	}
}

func TestQuoting(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in                    string
		wantMinimal, wantHTML string
	}{
		"plain":           {in: "abc", wantMinimal: `"abc"`, wantHTML: `"abc"`},
		"short escapes":   {in: "\"\\\b\f\n\r\t/", wantMinimal: `"\"\\\b\f\n\r\t/"`, wantHTML: `"\"\\\b\f\n\r\t/"`},
		"other controls":  {in: "\x00\x1f\x7f", wantMinimal: "\"\\u0000\\u001f\x7f\"", wantHTML: "\"\\u0000\\u001f\x7f\""},
		"HTML":            {in: "<a&b>", wantMinimal: `"<a&b>"`, wantHTML: `"\u003ca\u0026b\u003e"`},
		"line separators": {in: "\u2028\u2029", wantMinimal: "\"\u2028\u2029\"", wantHTML: `"\u2028\u2029"`},
		"invalid UTF-8":   {in: "a\xffé\ufffd", wantMinimal: "\"a\xffé\ufffd\"", wantHTML: "\"a\\ufffdé\ufffd\""},
	} {
		if got := string(jsonlex.AppendString(nil, tc.in, jsonlex.Minimal)); got != tc.wantMinimal {
			t.Errorf("%s: Minimal = %s, want %s", name, got, tc.wantMinimal)
		}
		if got := string(jsonlex.AppendString(nil, tc.in, jsonlex.HTMLSafe)); got != tc.wantHTML {
			t.Errorf("%s: HTMLSafe = %s, want %s", name, got, tc.wantHTML)
		}
	}
	if got := string(jsonlex.AppendRune(nil, 0xDC01, jsonlex.Minimal)); got != `\udc01` {
		t.Errorf("a lone surrogate is %s, want \\udc01", got)
	}
}
