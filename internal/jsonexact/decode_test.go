package jsonexact_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/jsonexact"
)

type acceptCase struct {
	input    string
	lim      jsonexact.Limits
	wantTree *node // nil: only check that it decodes and round-trips
}

// acceptCases is shared with the differential test and the fuzz seeds.
func acceptCases() map[string]acceptCase {
	tree := func(n node) *node { return &n }
	return map[string]acceptCase{
		"realistic tool-call arguments keep occurrence order": {
			input: `{"to":"ops@example.com","subject":"Q3 report","priority":2,"retries":0,` +
				`"dryRun":false,"tags":["finance","q3"],"account":{"id":"acct-1","region":"eu"},"limit":18446744073709551615}`,
			wantTree: tree(obj(
				"to", str("ops@example.com"), "subject", str("Q3 report"), "priority", num("2"),
				"retries", num("0"), "dryRun", boolean(false), "tags", arr(str("finance"), str("q3")),
				"account", obj("id", str("acct-1"), "region", str("eu")),
				"limit", num("18446744073709551615"))),
		},
		"members keep input order, not sorted order":   {input: `{"b":1,"a":2}`, wantTree: tree(obj("b", num("1"), "a", num("2")))},
		"int64 minimum is accepted":                    {input: `-9223372036854775808`, wantTree: tree(num("-9223372036854775808"))},
		"int64 maximum is accepted":                    {input: `9223372036854775807`, wantTree: tree(num("9223372036854775807"))},
		"uint64 maximum is accepted":                   {input: `18446744073709551615`, wantTree: tree(num("18446744073709551615"))},
		"zero and small signed integers":               {input: `[0,-1,1,10]`, wantTree: tree(arr(num("0"), num("-1"), num("1"), num("10")))},
		"top-level true":                               {input: `true`, wantTree: tree(boolean(true))},
		"top-level false":                              {input: `false`, wantTree: tree(boolean(false))},
		"top-level string":                             {input: `"x"`, wantTree: tree(str("x"))},
		"empty object":                                 {input: `{}`, wantTree: tree(obj())},
		"empty array":                                  {input: `[]`, wantTree: tree(arr())},
		"empty member name":                            {input: `{"":{}}`, wantTree: tree(obj("", obj()))},
		"whitespace around every token":                {input: " \t\r\n{ \"a\" : [ 1 , true ] } \n", wantTree: tree(obj("a", arr(num("1"), boolean(true))))},
		"surrogate pair escape combines into one rune": {input: `"\ud83d\ude00"`, wantTree: tree(str("😀"))},
		"uppercase hex surrogate pair":                 {input: `"\uD83D\uDE00"`, wantTree: tree(str("😀"))},
		"raw UTF-8 in string":                          {input: `"é😀"`, wantTree: tree(str("é😀"))},
		"raw UTF-8 in member name":                     {input: `{"clé":true}`, wantTree: tree(obj("clé", boolean(true)))},
		"BMP escape":                                   {input: `"\u00e9\u20AC"`, wantTree: tree(str("é€"))},
		"all short escapes":                            {input: `"\"\\\/\b\f\n\r\t"`, wantTree: tree(str("\"\\/\b\f\n\r\t"))},
		"escaped NUL is valid JSON":                    {input: `"a\u0000b"`, wantTree: tree(str("a\x00b"))},
		"escape mixed with plain text":                 {input: `"ab\ncd\u0041"`, wantTree: tree(str("ab\ncdA"))},
		"same name in sibling objects":                 {input: `[{"a":1},{"a":1}]`, wantTree: tree(arr(obj("a", num("1")), obj("a", num("1"))))},
		"same name in parent and child":                {input: `{"a":{"a":1}}`, wantTree: tree(obj("a", obj("a", num("1"))))},
		"names differing only by case are distinct":    {input: `{"a":1,"A":2}`, wantTree: tree(obj("a", num("1"), "A", num("2")))},
		"names distinct after escape decoding":         {input: `{"a\u0000":1,"a":2}`, wantTree: tree(obj("a\x00", num("1"), "a", num("2")))},
		"duplicate array elements are kept":            {input: `["x","x"]`, wantTree: tree(arr(str("x"), str("x")))},
		"depth exactly default MaxDepth":               {input: nested("[", "]", jsonexact.DefaultMaxDepth)},
		"depth exactly custom MaxDepth":                {input: `[{"a":[]}]`, lim: jsonexact.Limits{MaxDepth: 3}},
		"scalar at depth zero under MaxDepth one":      {input: `1`, lim: jsonexact.Limits{MaxDepth: 1}},
		"input exactly MaxBytes":                       {input: `[1,2]`, lim: jsonexact.Limits{MaxBytes: 5}},
		"input exactly default MaxBytes":               {input: `"` + strings.Repeat("a", jsonexact.DefaultMaxBytes-2) + `"`},
		"scalar with negative MaxDepth":                {input: `1`, lim: jsonexact.Limits{MaxDepth: -1}},
		"large object without duplicates":              {input: bigObject(1000, -1)},
		"object just above linear duplicate scan":      {input: bigObject(17, -1)},
	}
}

type rejectCase struct {
	input      string
	lim        jsonexact.Limits
	wantCode   jsonexact.Code
	wantOffset int64
}

// rejectCases is shared with the differential test and the fuzz seeds.
func rejectCases() map[string]rejectCase {
	const (
		syn = jsonexact.CodeSyntax
		esc = jsonexact.CodeInvalidEscape
		u8  = jsonexact.CodeInvalidUTF8
	)
	return map[string]rejectCase{
		"empty input rejects":                  {input: ``, wantCode: jsonexact.CodeEmpty, wantOffset: 0},
		"whitespace-only input rejects":        {input: " \n\t\r", wantCode: jsonexact.CodeEmpty, wantOffset: 4},
		"byte order mark rejects":              {input: "\xEF\xBB\xBF{}", wantCode: syn, wantOffset: 0},
		"null rejects":                         {input: `null`, wantCode: jsonexact.CodeNull, wantOffset: 0},
		"null member value rejects":            {input: `{"a":null}`, wantCode: jsonexact.CodeNull, wantOffset: 5},
		"truncated null is syntax":             {input: `nul`, wantCode: syn, wantOffset: 3},
		"null glued to letters is syntax":      {input: `nullx`, wantCode: syn, wantOffset: 4},
		"capitalised literal is syntax":        {input: `True`, wantCode: syn, wantOffset: 0},
		"literal glued to literal is syntax":   {input: `truefalse`, wantCode: syn, wantOffset: 4},
		"duplicate key rejects":                {input: `{"a":1,"a":2}`, wantCode: jsonexact.CodeDuplicateKey, wantOffset: 7},
		"duplicate key with equal values":      {input: `{"a":1,"a":1}`, wantCode: jsonexact.CodeDuplicateKey, wantOffset: 7},
		"duplicate key after escape decoding":  {input: `{"a":1,"\u0061":2}`, wantCode: jsonexact.CodeDuplicateKey, wantOffset: 7},
		"duplicate key in nested object":       {input: `{"x":{"b":true,"b":false}}`, wantCode: jsonexact.CodeDuplicateKey, wantOffset: 15},
		"duplicate key in object inside array": {input: `[{},{"k":"v","k":"v"}]`, wantCode: jsonexact.CodeDuplicateKey, wantOffset: 13},
		"duplicate key with surrogate escapes": {input: `{"😀":1,"\ud83d\ude00":2}`, wantCode: jsonexact.CodeDuplicateKey, wantOffset: 10},
		"duplicate key in large object":        {input: bigObject(1000, 3), wantCode: jsonexact.CodeDuplicateKey, wantOffset: int64(len(bigObject(1000, -1)))},
		"duplicate key at linear scan edge":    {input: bigObject(16, 15), wantCode: jsonexact.CodeDuplicateKey, wantOffset: int64(len(bigObject(16, -1)))},
		"fraction rejects":                     {input: `1.0`, wantCode: jsonexact.CodeFraction, wantOffset: 1},
		"fraction with exponent is fraction":   {input: `1.5e3`, wantCode: jsonexact.CodeFraction, wantOffset: 1},
		"negative fraction rejects":            {input: `[-0.5]`, wantCode: jsonexact.CodeFraction, wantOffset: 3},
		"exponent rejects":                     {input: `1e3`, wantCode: jsonexact.CodeExponent, wantOffset: 1},
		"signed capital exponent rejects":      {input: `1E+2`, wantCode: jsonexact.CodeExponent, wantOffset: 1},
		"zero with exponent rejects":           {input: `{"n":0e0}`, wantCode: jsonexact.CodeExponent, wantOffset: 6},
		"negative zero rejects":                {input: `-0`, wantCode: jsonexact.CodeNegativeZero, wantOffset: 0},
		"negative zero in array rejects":       {input: `[1,-0]`, wantCode: jsonexact.CodeNegativeZero, wantOffset: 3},
		"leading zero is syntax":               {input: `01`, wantCode: syn, wantOffset: 1},
		"negative leading zero is syntax":      {input: `-01`, wantCode: syn, wantOffset: 2},
		"double zero is syntax":                {input: `00`, wantCode: syn, wantOffset: 1},
		"plus sign is syntax":                  {input: `+1`, wantCode: syn, wantOffset: 0},
		"leading dot is syntax":                {input: `.5`, wantCode: syn, wantOffset: 0},
		"trailing dot is syntax":               {input: `1.`, wantCode: syn, wantOffset: 2},
		"empty exponent is syntax":             {input: `1e`, wantCode: syn, wantOffset: 2},
		"lone minus is syntax":                 {input: `-`, wantCode: syn, wantOffset: 1},
		"double minus is syntax":               {input: `--1`, wantCode: syn, wantOffset: 1},
		"NaN is syntax":                        {input: `NaN`, wantCode: syn, wantOffset: 0},
		"Infinity is syntax":                   {input: `Infinity`, wantCode: syn, wantOffset: 0},
		"negative Infinity is syntax":          {input: `-Infinity`, wantCode: syn, wantOffset: 1},
		"hex literal is syntax":                {input: `0x10`, wantCode: syn, wantOffset: 1},
		"digit separator is syntax":            {input: `1_000`, wantCode: syn, wantOffset: 1},
		"minus between numbers is syntax":      {input: `[1-2]`, wantCode: syn, wantOffset: 2},
		"2^64 is out of range":                 {input: `18446744073709551616`, wantCode: jsonexact.CodeOutOfRange, wantOffset: 0},
		"-2^63-1 is out of range":              {input: `-9223372036854775809`, wantCode: jsonexact.CodeOutOfRange, wantOffset: 0},
		"long literal is out of range":         {input: `12345678901234567890123`, wantCode: jsonexact.CodeOutOfRange, wantOffset: 0},
		"out of range inside array":            {input: `[100000000000000000000]`, wantCode: jsonexact.CodeOutOfRange, wantOffset: 1},
		"invalid UTF-8 inside string":          {input: "\"\xff\"", wantCode: u8, wantOffset: 1},
		"invalid UTF-8 outside string":         {input: "[1,\xff]", wantCode: u8, wantOffset: 3},
		"invalid UTF-8 in member name":         {input: "{\"a\xc3\":1}", wantCode: u8, wantOffset: 3},
		"truncated multibyte sequence":         {input: "\"\xe2\x82\"", wantCode: u8, wantOffset: 1},
		"overlong encoding":                    {input: "\"\xc0\xaf\"", wantCode: u8, wantOffset: 1},
		"UTF-8 encoded surrogate":              {input: "\"\xed\xa0\x80\"", wantCode: u8, wantOffset: 1},
		"invalid UTF-8 wins over later syntax": {input: "[,\xff", wantCode: u8, wantOffset: 2},
		"lone high surrogate escape":           {input: `"\ud800"`, wantCode: esc, wantOffset: 1},
		"lone low surrogate escape":            {input: `"a\udc00"`, wantCode: esc, wantOffset: 2},
		"reversed surrogate pair":              {input: `"\udc00\ud800"`, wantCode: esc, wantOffset: 1},
		"high surrogate then BMP escape":       {input: `"\ud800\u0041"`, wantCode: esc, wantOffset: 1},
		"high surrogate then two highs":        {input: `"\ud800\ud800"`, wantCode: esc, wantOffset: 1},
		"high surrogate then plain text":       {input: `"\ud800xxxxxx"`, wantCode: esc, wantOffset: 1},
		"non-hex unicode escape":               {input: `"\u12G4"`, wantCode: esc, wantOffset: 1},
		"unknown escape letter":                {input: `"\x41"`, wantCode: esc, wantOffset: 1},
		"single-quote escape":                  {input: `"\'"`, wantCode: esc, wantOffset: 1},
		"input ends inside unicode escape":     {input: `"\u12`, wantCode: syn, wantOffset: 5},
		"input ends after backslash":           {input: `"\`, wantCode: syn, wantOffset: 2},
		"unescaped control character":          {input: "\"a\x01\"", wantCode: syn, wantOffset: 2},
		"unescaped newline in string":          {input: "\"a\nb\"", wantCode: syn, wantOffset: 2},
		"unescaped tab after escape":           {input: "\"\\n\t\"", wantCode: syn, wantOffset: 3},
		"unterminated string":                  {input: `"abc`, wantCode: syn, wantOffset: 4},
		"unterminated string with escape":      {input: `"a\n`, wantCode: syn, wantOffset: 4},
		"missing colon":                        {input: `{"a" 1}`, wantCode: syn, wantOffset: 5},
		"non-string member name":               {input: `{1:2}`, wantCode: syn, wantOffset: 1},
		"single-quoted string":                 {input: `'a'`, wantCode: syn, wantOffset: 0},
		"trailing comma in array":              {input: `[1,]`, wantCode: syn, wantOffset: 3},
		"trailing comma in object":             {input: `{"a":1,}`, wantCode: syn, wantOffset: 7},
		"leading comma in array":               {input: `[,1]`, wantCode: syn, wantOffset: 1},
		"missing comma":                        {input: `[1 2]`, wantCode: syn, wantOffset: 3},
		"unterminated object":                  {input: `{"a":1`, wantCode: syn, wantOffset: 6},
		"unterminated array":                   {input: `[`, wantCode: syn, wantOffset: 1},
		"object closed by bracket":             {input: `{]`, wantCode: syn, wantOffset: 1},
		"array closed by brace":                {input: `[1}`, wantCode: syn, wantOffset: 2},
		"lone closing bracket":                 {input: `]`, wantCode: syn, wantOffset: 0},
		"comment is syntax":                    {input: `/*x*/1`, wantCode: syn, wantOffset: 0},
		"non-ASCII outside string":             {input: `[é]`, wantCode: syn, wantOffset: 1},
		"no-break space is not whitespace":     {input: "\u00a01", wantCode: syn, wantOffset: 0},
		"form feed is not whitespace":          {input: "\f1", wantCode: syn, wantOffset: 0},
		"trailing value rejects":               {input: `{} {}`, wantCode: jsonexact.CodeTrailingData, wantOffset: 3},
		"two numbers reject":                   {input: `1 2`, wantCode: jsonexact.CodeTrailingData, wantOffset: 2},
		"adjacent strings reject":              {input: `"a""b"`, wantCode: jsonexact.CodeTrailingData, wantOffset: 3},
		"extra closing bracket rejects":        {input: `[1]]`, wantCode: jsonexact.CodeTrailingData, wantOffset: 3},
		"trailing NUL rejects":                 {input: "1\x00", wantCode: jsonexact.CodeTrailingData, wantOffset: 1},
		"depth default MaxDepth plus one":      {input: nested("[", "]", jsonexact.DefaultMaxDepth+1), wantCode: jsonexact.CodeTooDeep, wantOffset: jsonexact.DefaultMaxDepth},
		"depth custom MaxDepth plus one":       {input: `[{"a":[[]]}]`, lim: jsonexact.Limits{MaxDepth: 3}, wantCode: jsonexact.CodeTooDeep, wantOffset: 7},
		"negative MaxDepth rejects containers": {input: `[]`, lim: jsonexact.Limits{MaxDepth: -1}, wantCode: jsonexact.CodeTooDeep, wantOffset: 0},
		"unbalanced deep nesting is too deep":  {input: strings.Repeat("[", 1<<16), wantCode: jsonexact.CodeTooDeep, wantOffset: jsonexact.DefaultMaxDepth},
		"input MaxBytes plus one":              {input: `[1,2]`, lim: jsonexact.Limits{MaxBytes: 4}, wantCode: jsonexact.CodeTooLarge, wantOffset: 4},
		"input default MaxBytes plus one":      {input: `"` + strings.Repeat("a", jsonexact.DefaultMaxBytes-1) + `"`, wantCode: jsonexact.CodeTooLarge, wantOffset: jsonexact.DefaultMaxBytes},
		"too large is checked before UTF-8":    {input: "\xff\xff", lim: jsonexact.Limits{MaxBytes: 1}, wantCode: jsonexact.CodeTooLarge, wantOffset: 1},
		"negative MaxBytes rejects everything": {input: `1`, lim: jsonexact.Limits{MaxBytes: -1}, wantCode: jsonexact.CodeTooLarge, wantOffset: 0},
	}
}

func TestDecodeAccepts(t *testing.T) {
	t.Parallel()
	for name, tc := range acceptCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := jsonexact.Decode([]byte(tc.input), tc.lim)
			if err != nil {
				t.Fatalf("Decode() error: %v", err)
			}
			if tc.wantTree == nil {
				return
			}
			if diff := cmp.Diff(*tc.wantTree, describe(got)); diff != "" {
				t.Errorf("Decode() tree mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	for name, tc := range rejectCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := jsonexact.Decode([]byte(tc.input), tc.lim)
			if err == nil {
				t.Fatalf("Decode() = %v, want error %v", describe(got), tc.wantCode)
			}
			want := &jsonexact.Error{Code: tc.wantCode, Offset: tc.wantOffset}
			if diff := cmp.Diff(want, asError(t, err)); diff != "" {
				t.Errorf("Decode() error mismatch (-want +got):\n%s", diff)
			}
			if !errors.Is(err, &jsonexact.Error{Code: tc.wantCode}) {
				t.Errorf("errors.Is(%v, code %v) = false, want true", err, tc.wantCode)
			}
			if diff := cmp.Diff(jsonexact.Value{}, got, cmp.Comparer(jsonexact.Value.Equal)); diff != "" {
				t.Errorf("Decode() returned a partial value on error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeCoversEveryCode keeps the reject table honest: every Code a
// decode can produce has at least one input.
func TestDecodeCoversEveryCode(t *testing.T) {
	t.Parallel()
	seen := map[jsonexact.Code]bool{jsonexact.CodeWrongKind: true} // accessor-only; see value_test.go
	for _, tc := range rejectCases() {
		seen[tc.wantCode] = true
	}
	for _, c := range allCodes {
		if !seen[c] {
			t.Errorf("no reject case produces code %v", c)
		}
	}
}

func TestDecodeDeepNestingDoesNotUseTheStack(t *testing.T) {
	t.Parallel()
	// Unterminated 1 MiB of brackets: the parser must reach the end and
	// fail, not overflow.
	const mib = 1 << 20
	_, err := jsonexact.Decode([]byte(strings.Repeat("[", mib)), jsonexact.Limits{MaxDepth: 1 << 30, MaxBytes: mib})
	if diff := cmp.Diff(&jsonexact.Error{Code: jsonexact.CodeSyntax, Offset: mib}, asError(t, err)); diff != "" {
		t.Errorf("Decode(unterminated) error mismatch (-want +got):\n%s", diff)
	}

	const depth = 1 << 17
	lim := jsonexact.Limits{MaxDepth: depth, MaxBytes: 2 * depth}

	// Balanced: decoding, encoding and comparing are all iterative.
	in := nested("[", "]", depth)
	v, err := jsonexact.Decode([]byte(in), lim)
	if err != nil {
		t.Fatalf("Decode(balanced) error: %v", err)
	}
	out := v.AppendJSON(nil)
	if string(out) != in {
		t.Errorf("AppendJSON(balanced) differs from input (len %d vs %d)", len(out), len(in))
	}
	w, err := jsonexact.Decode(out, lim)
	if err != nil {
		t.Fatalf("Decode(AppendJSON) error: %v", err)
	}
	if !v.Equal(w) {
		t.Errorf("Equal(v, Decode(AppendJSON(v))) = false, want true")
	}
}

func TestDecodeDoesNotAliasInput(t *testing.T) {
	t.Parallel()
	in := []byte(`{"name":"abc","n":123}`)
	v, err := jsonexact.Decode(in, jsonexact.Limits{})
	if err != nil {
		t.Fatalf("Decode() error: %v", err)
	}
	for i := range in {
		in[i] = 'x'
	}
	want := obj("name", str("abc"), "n", num("123"))
	if diff := cmp.Diff(want, describe(v)); diff != "" {
		t.Errorf("value changed after input was overwritten (-want +got):\n%s", diff)
	}
}

func TestDecodeLargeObjectKeepsOrder(t *testing.T) {
	t.Parallel()
	const n = 5000
	v := mustDecode(t, bigObject(n, -1))
	ms := v.Members()
	if len(ms) != n {
		t.Fatalf("len(Members()) = %d, want %d", len(ms), n)
	}
	for i, m := range ms {
		wantName := "k" + strconv.Itoa(i)
		if m.Name != wantName || m.Value.Literal() != strconv.Itoa(i) {
			t.Fatalf("Members()[%d] = %q:%q, want %q:%q", i, m.Name, m.Value.Literal(), wantName, strconv.Itoa(i))
		}
	}
}
