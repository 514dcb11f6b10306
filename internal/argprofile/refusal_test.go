package argprofile_test

import (
	"bytes"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/argprofile"
	"sigs.k8s.io/yaml"
)

// The call of the Example, as an agent would send it.
const sampleCall = `{"entityType":"Person","query":"Zoë's notes","label":"Q3\tplan","max_results":10,` +
	`"minScore":0.75,"since":"2024-02-29","filter":{"b":[1,2.5],"a":"x"},"region":"eu-west1","tags":["a","b"]}`

func sampleProfile(t testing.TB) *argprofile.Profile {
	t.Helper()
	p, err := argprofile.Parse(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// I1′: the executor forwards exact bytes; any one-octet change of them
// that is still accepted and is another JSON value derives other protocol
// arguments, and one that is the same JSON value (white space) derives the
// same.
func TestOneOctetChangeMismatches(t *testing.T) {
	t.Parallel()
	p := sampleProfile(t)
	base, err := p.Derive([]byte(sampleCall))
	if err != nil {
		t.Fatal(err)
	}
	changed, accepted := 0, 0
	for i := range len(sampleCall) {
		for _, c := range []byte{'0', '1', '9', 'a', 'b', 'e', 'x', '.', ' ', '"', '-', 'E', 'P', 'u', '\t'} {
			if sampleCall[i] == c {
				continue
			}
			m := []byte(sampleCall)
			m[i] = c
			changed++
			out, err := p.Derive(m)
			if err != nil {
				continue
			}
			accepted++
			if same := sameJSONValue([]byte(sampleCall), m); same != bytes.Equal(out, base) {
				t.Errorf("octet %d to %q: same JSON value %v, same derivation %v", i, c, same, !same)
			}
		}
	}
	if accepted < 50 {
		t.Fatalf("only %d of %d one-octet changes were accepted: the test proves little", accepted, changed)
	}
}

// I1, numbers: numerically equal spellings are the same JSON value and
// bind equally; a different value never does.
func TestNumericallyEqualSpellingsBindEqually(t *testing.T) {
	t.Parallel()
	dec := oneMember(t, `{choice: decimal, scale: 2}`)
	js := oneMember(t, `{choice: json}`)
	for _, tc := range []struct {
		p    *argprofile.Profile
		a, b string
		same bool
	}{
		{dec, "1.5", "1.50", true},
		{dec, "1", "1.00", true},
		{dec, "0", "-0", true},
		{dec, "1.5", "1.05", false},
		{js, "1.5", "15e-1", true},
		{js, "1", "1.0", true},
		{js, `{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{js, `"\u00e9"`, `"é"`, true},
		{js, `"é"`, `"e\u0301"`, false}, // no Unicode normalization
		{js, "1", `"1"`, false},
		{js, "[1,2]", "[2,1]", false},
	} {
		x, err1 := tc.p.Derive([]byte(`{"v":` + tc.a + `}`))
		y, err2 := tc.p.Derive([]byte(`{"v":` + tc.b + `}`))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s, %s: %v %v", tc.a, tc.b, err1, err2)
		}
		if bytes.Equal(x, y) != tc.same {
			t.Errorf("%s and %s: same derivation %v, want %v", tc.a, tc.b, !tc.same, tc.same)
		}
	}
}

// I2: the same input derives the same octets, and the output does not
// depend on the input's member order.
func TestDeriveIsDeterministic(t *testing.T) {
	t.Parallel()
	p := sampleProfile(t)
	a, err := p.Derive([]byte(sampleCall))
	if err != nil {
		t.Fatal(err)
	}
	reordered := `{"tags":["a","b"],"region":"eu-west1","filter":{"a":"x","b":[1,2.5]},"since":"2024-02-29",` +
		`"minScore":0.75,"max_results":10,"label":"Q3\tplan","query":"Zoë's notes","entityType":"Person"}`
	for range 20 {
		for _, in := range []string{sampleCall, reordered} {
			b, err := p.Derive([]byte(in))
			if err != nil || !bytes.Equal(a, b) {
				t.Fatalf("derivation changed: %s vs %s (%v)", a, b, err)
			}
		}
	}
}

// I5: no refusal quotes a value or a caller's member name, whatever fails.
func TestErrorsNeverEchoValues(t *testing.T) {
	t.Parallel()
	p := sampleProfile(t)
	const secret = "s3cr3tv4lu3"
	for _, in := range []string{
		`{"entityType":"` + secret + `","query":"x"}`,
		`{"entityType":"Person","query":"x","` + secret + `":1}`,
		`{"entityType":"Person","query":"x","region":"` + secret + `"}`,
		`{"entityType":"Person","query":"x","label":` + secret + `}`,
		`{"entityType":"Person","query":"x","filter":{"` + secret + `":9007199254740993}}`,
		`{"entityType":"Person","query":"x","tags":["` + secret + strings.Repeat("x", 40) + `"]}`,
		`{"entityType":"Person","query":"x","since":"` + secret + `"}`,
	} {
		_, err := p.Derive([]byte(in))
		if err == nil {
			t.Fatalf("%s was accepted", in)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error echoes the value: %v", err)
		}
	}
	h := http.Header{}
	h.Set("Mcp-Param-Region", secret)
	if err := p.CheckHeaders([]byte(`{"region":"eu-west1"}`), h.Values); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("header check: %v", err)
	}
}

// I5: every refusal of the whole value at once, in profile order, each at
// its pointer; nothing partial is returned.
func TestEveryRefusalAtOnce(t *testing.T) {
	t.Parallel()
	p := sampleProfile(t)
	out, err := p.Derive([]byte(`{"entityType":"Robot","label":"` + strings.Repeat("é", 101) + `","max_results":0,` +
		`"minScore":0.123,"since":7,"filter":{"a":1e400},"region":"EU","tags":["",1],"extra/~":1}`))
	want := []string{
		"unknownMember@", "case@/entityType", "inexactNumber@/filter", "tooLong@/label", "outOfRange@/max_results",
		"fraction@/minScore", "missing@/query", "pattern@/region", "kind@/since", "tooShort@/tags/0", "kind@/tags/1",
	}
	if got := paths(err); out != nil || !slices.Equal(got, want) {
		t.Errorf("Derive = %s\n got %q\nwant %q", out, got, want)
	}
	var e *argprofile.Error
	if !errors.As(err, &e) || !errors.Is(err, &argprofile.Error{Code: argprofile.CodeMissing}) {
		t.Errorf("errors.As/Is do not see the members: %v", err)
	}
}

// I4: the profile's own limits refuse, before any unbounded work.
func TestLimitsRefuse(t *testing.T) {
	t.Parallel()
	small, err := argprofile.New(argprofile.Draft{Profile: argprofile.Version, Tool: "t",
		Limits: argprofile.LimitsDraft{MaxOctets: 64, MaxDepth: 3},
		Arguments: argprofile.NodeDraft{Choice: "object", Members: []argprofile.MemberDraft{
			{JSON: "v", Field: "v", Value: argprofile.NodeDraft{Choice: "json"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want string
	}{
		{`{"v":"` + strings.Repeat("a", 60) + `"}`, "tooLarge@"},
		{`{"v":[[[1]]]}`, "tooDeep@"},
		{`{"v":[[1]]}`, ""},
		{`{"v":1,"v":2}`, "duplicate@"},
		{`{"v":1} x`, "syntax@"},
		{`{"v":"\ud800"}`, "syntax@"},
		{"", "syntax@"},
	} {
		_, err := small.Derive([]byte(tc.in))
		if got := strings.Join(paths(err), ","); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// I4: a pattern's match work on one value is bounded at construction: RE2
// is linear in the value times the program, and a counted repetition makes
// a short pattern a long program, so a text node's maxOctets times the
// program's instructions is at most 2^26.
func TestPatternMatchWorkIsBoundedAtConstruction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		node string
		ok   bool
	}{
		{`{choice: text, bind: digest, pattern: "a{1000}b{22}"}`, true},                    // 65,536 × 1,024
		{`{choice: text, bind: digest, maxOctets: 65537, pattern: "a{1000}b{22}"}`, false}, // one octet more
		{`{choice: text, bind: digest, maxOctets: 1048576, pattern: "^[a-z]+$"}`, true},    // a short program
		{`{choice: text, bind: digest, maxOctets: 1048576, pattern: "a{100}"}`, false},     // 102 instructions
		{`{choice: string, pattern: "a{1000}b{22}"}`, true},                                // at most 1,024 octets
	} {
		var n argprofile.NodeDraft
		if err := yaml.UnmarshalStrict([]byte(tc.node), &n); err != nil {
			t.Fatal(err)
		}
		_, err := argprofile.New(argprofile.Draft{Profile: argprofile.Version, Tool: "t", Arguments: argprofile.NodeDraft{
			Choice: "object", Members: []argprofile.MemberDraft{{JSON: "v", Field: "v", Value: n}}}})
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want accepted %t", tc.node, err, tc.ok)
		}
	}
}

// x-mcp-header: a mirrored member's header must agree with the body; absent
// or null members must have none.
func TestCheckHeadersAgreesWithTheBody(t *testing.T) {
	t.Parallel()
	p := oneMemberHeader(t)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		rule, body string
		h          http.Header
		ok         bool
	}{
		{"plain value agrees", `{"region":"eu-west1","n":42}`, hdr("Mcp-Param-Region", "eu-west1", "Mcp-Param-N", "42"), true},
		{"base64 value agrees", `{"region":"Zürich"}`, hdr("Mcp-Param-Region", "=?base64?WsO8cmljaA==?="), true},
		{"integers compare numerically", `{"n":42}`, hdr("Mcp-Param-N", "42.0"), true},
		{"absent member, no header", `{}`, hdr(), true},
		{"null member, no header", `{"region":null}`, hdr(), true},
		{"header differs", `{"region":"eu-west1"}`, hdr("Mcp-Param-Region", "us-east1"), false},
		{"header missing", `{"region":"eu-west1"}`, hdr(), false},
		{"header for an absent member", `{}`, hdr("Mcp-Param-Region", "eu-west1"), false},
		{"two headers", `{"region":"a"}`, hdr("Mcp-Param-Region", "a", "Mcp-Param-Region", "a"), false},
		{"bad base64", `{"region":"a"}`, hdr("Mcp-Param-Region", "=?base64?!!?="), false},
		{"number differs", `{"n":42}`, hdr("Mcp-Param-N", "43"), false},
	} {
		err := p.CheckHeaders([]byte(tc.body), tc.h.Values)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.rule, err)
		}
		if err != nil && !errors.Is(err, &argprofile.Error{Code: argprofile.CodeHeaderMismatch}) {
			t.Errorf("%s: %v is not headerMismatch", tc.rule, err)
		}
	}
	if got := p.Mirrored(); len(got) != 2 || got[0].Pointer != "/n" || got[1].Header != "Region" {
		t.Errorf("Mirrored = %+v", got)
	}
}

func oneMemberHeader(t testing.TB) *argprofile.Profile {
	t.Helper()
	p, err := argprofile.Parse([]byte(`
profile: toolgate.mcp-arguments/1
tool: t
arguments:
  choice: object
  members:
    - {json: region, field: region, header: Region, value: {choice: union, alternatives: [{when: string, tag: s, value: {choice: text, bind: digest}}, {when: "null", tag: "n"}]}}
    - {json: "n", field: "n", header: "N", value: {choice: integer}}
`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pattern: only a dialect ECMA-262 and RE2 agree on is accepted; on a
// string node, whose values are printable ASCII, the wider one.
func TestPatternDialectIsWhereTheEnginesAgree(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern      string
		text, string bool // accepted on a text node, on a string node
	}{
		{`^[a-z0-9-]+$`, true, true},
		{`^\d{3}-\w+(?:\.[A-Z]{2,4})?$`, true, true},
		{`a|b\.c\/d`, true, true},
		{`^[\x20-\x7E]*$`, true, true}, // \xHH: one code unit, one code point
		{`\x4`, false, false},          // ECMA-262 reads the letter x
		{`\x{41}`, false, false},       // RE2's form only
		{`.`, false, true},             // '.' excludes \r and U+2028 in ECMA-262 only
		{`\s`, false, true},            // Unicode spaces in ECMA-262, ASCII in RE2
		{`^[a-z\s()]+$`, false, true},
		{`[^a]`, false, true}, // a negated class counts UTF-16 units in ECMA-262
		{`\D\S\W`, false, true},
		{`\bword`, false, false}, // word boundary
		{`(?i)a`, false, false},  // flags
		{`(?=a)`, false, false},  // lookahead
		{`(a)\1`, false, false},  // backreference
		{`é`, false, false},      // non-ASCII literal
		{`[[:alpha:]]`, false, false},
		{`\p{L}`, false, false},
		{`a{2,1}`, false, false},                          // invalid
		{strings.Repeat("[ab]", 256), true, true},         // 1,024 octets: the length limit
		{strings.Repeat("[ab]", 256) + "a", false, false}, // 1,025
		{`a{1000}b{22}`, true, true},                      // 1,024 program instructions
		{`a{1000}b{23}`, false, false},                    // 1,025: a short text is no bound on the work
	} {
		for choice, ok := range map[string]bool{"text": tc.text, "string": tc.string} {
			n := argprofile.NodeDraft{Choice: choice, Pattern: tc.pattern}
			if choice == "text" {
				n.Bind = "digest"
			}
			_, err := argprofile.New(argprofile.Draft{Profile: argprofile.Version, Tool: "t", Arguments: argprofile.NodeDraft{
				Choice: "object", Members: []argprofile.MemberDraft{{JSON: "v", Field: "v", Value: n}}}})
			if (err == nil) != ok {
				t.Errorf("%s pattern %q: %v", choice, tc.pattern, err)
			}
			if argprofile.ValidPattern(tc.pattern, choice == "string") != ok {
				t.Errorf("ValidPattern(%q, %t) disagrees with New", tc.pattern, choice == "string")
			}
		}
	}
}

// On printable ASCII, RE2 reads the wider dialect's operators as ECMA-262
// defines them: '.' is every character (no line terminator is printable),
// \s is the space alone, \S, \D, \W and a negated class are the printable
// rest. Checked on every string of up to two printable characters.
func TestWiderDialectMeansECMAOnPrintableASCII(t *testing.T) {
	t.Parallel()
	for wider, ecma := range map[string]string{
		`^.$`:       `^[ -~]$`,
		`^\s$`:      `^[ ]$`,
		`^\S$`:      `^[!-~]$`,
		`^\D$`:      `^[ -/:-~]$`,
		`^\W$`:      `^[ -/:-@\[-^` + "`" + `{-~]$`,
		`^[^a-c]$`:  `^[ -` + "`" + `d-~]$`,
		`^a.?\s*b$`: `^a[ -~]?[ ]*b$`,
	} {
		if !argprofile.ValidPattern(wider, true) || !argprofile.ValidPattern(ecma, false) {
			t.Fatalf("%q or %q is outside its dialect", wider, ecma)
		}
		w, e := regexp.MustCompile(wider), regexp.MustCompile(ecma)
		var in []string
		for a := byte(0x20); a <= 0x7e; a++ {
			in = append(in, string(a))
			for b := byte(0x20); b <= 0x7e; b++ {
				in = append(in, string([]byte{a, b}))
			}
		}
		for _, s := range in {
			if w.MatchString(s) != e.MatchString(s) {
				t.Errorf("%q and %q disagree on %q", wider, ecma, s)
			}
		}
	}
}
