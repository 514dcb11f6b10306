package argpred_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
)

const (
	M = argpred.Matched
	N = argpred.NotMatched
	I = argpred.Indeterminate
)

type evalCase struct {
	args string
	want argpred.Result
}

func runCases(t *testing.T, d argpred.Draft, cases []evalCase) {
	t.Helper()
	reg := tools(t)
	for _, c := range cases {
		if got := eval(t, reg, d, c.args); got != c.want {
			t.Errorf("%s %s on %s: got %v, want %v", d.Name, d.Path, c.args, got, c.want)
		}
	}
}

func filesArgs(path string) string {
	return `{"path":"` + strings.ReplaceAll(path, `\`, `\\`) + `","content":{"length":1,"sha256":"x"}}`
}

func TestPathWithinRefusesEveryEscapeForm(t *testing.T) {
	d := argpred.Draft{Name: "pathWithin", Tool: "files.write", Version: "1", Path: "/path", Root: "/workspace/project"}
	var cases []evalCase
	for p, want := range map[string]argpred.Result{
		"/workspace/project":              M,
		"/workspace/project/a":            M,
		"/workspace/project/a/b.txt":      M,
		"/workspace/project/...":          M, // three dots is a name, not an escape
		"/workspace/project/.hidden":      M,
		"/workspace/project2":             N, // a sibling sharing the prefix
		"/workspace/projec":               N,
		"/workspace":                      N,
		"/etc/passwd":                     N,
		"":                                I, // empty
		"workspace/project/a":             I, // relative
		"/workspace/project/":             I, // trailing '/'
		"/workspace//project/a":           I, // doubled '/'
		"//workspace/project":             I,
		"/workspace/project/./a":          I, // '.'
		"/./workspace/project":            I,
		"/workspace/project/../x":         I, // '..'
		"/workspace/project/a/..":         I,
		"/workspace/project/..":           I,
		"..":                              I,
		"/workspace/project/a\\..\\..\\x": I, // backslash
		"/workspace/project\\a":           I,
	} {
		cases = append(cases, evalCase{filesArgs(p), want})
	}
	runCases(t, d, cases)
}

func TestPathWithinRootSlashAdmitsEveryAbsolutePath(t *testing.T) {
	d := argpred.Draft{Name: "pathWithin", Tool: "files.write", Version: "1", Path: "/path", Root: "/"}
	runCases(t, d, []evalCase{
		{filesArgs("/a"), M}, {filesArgs("/"), I}, {filesArgs("/a/../b"), I}, {filesArgs("a"), I},
	})
}

func urlArgs(u string) string { return `{"url":"` + strings.ReplaceAll(u, `\`, `\\`) + `"}` }

func TestURLInReadsOnlyUnambiguousURLs(t *testing.T) {
	d := argpred.Draft{Name: "urlIn", Tool: "http.fetch", Version: "1", Path: "/url",
		Schemes: []string{"https"}, Hosts: []string{"api.example.com", "example.com:8443", "10.0.0.1"}}
	var cases []evalCase
	for u, want := range map[string]argpred.Result{
		"https://api.example.com":            M,
		"https://api.example.com/x?y=1#z":    M,
		"https://api.example.com?q":          M,
		"https://example.com:8443/a":         M,
		"https://10.0.0.1/":                  M,
		"http://api.example.com":             N, // scheme not in the set
		"https://evil.example":               N,
		"https://api.example.com:443/":       N, // no default-port equivalence
		"https://example.com/":               N, // the operand has a port
		"https://sub.api.example.com":        N,
		"https://user@api.example.com":       I, // userinfo
		"https://api.example.com@evil.com":   I,
		"https://API.example.com":            I, // uppercase host
		"HTTPS://api.example.com":            I, // uppercase scheme
		"https://api.example.com./":          I, // trailing dot
		"https://api..example.com":           I,
		"https://api%2eexample.com":          I, // percent-encoded host
		"https://[::1]/":                     I, // IPv6 literal
		"https://127.1/":                     I, // non-canonical IPv4 forms
		"https://0x7f.0.0.1/":                I,
		"https://2130706433/":                I,
		"https://010.0.0.1/":                 I,
		"https://10.0.0.256/":                I,
		"https://api.example.com:0443/":      I, // non-canonical port
		"https://api.example.com:/":          I,
		"https://api.example.com:65536/":     I,
		"api.example.com/x":                  I, // no scheme
		"https:/api.example.com":             I,
		"https://":                           I,
		"https://api.example.com\\@evil.com": I, // backslash
		"https://api.example.com /":          I, // space
		"https://-api.example.com":           I,
	} {
		cases = append(cases, evalCase{urlArgs(u), want})
	}
	runCases(t, d, cases)
}

func mailArgs(to ...string) string {
	q := make([]string, len(to))
	for i, s := range to {
		q[i] = `"` + s + `"`
	}
	return `{"to":[` + strings.Join(q, ",") + `],"parts":[]}`
}

func TestEmailDomainInTakesTheSuffixAfterTheOnlyAt(t *testing.T) {
	d := argpred.Draft{Name: "emailDomainIn", Tool: "mail.send", Version: "1", Path: "/to/*", Values: []string{"example.com", "example.org"}}
	runCases(t, d, []evalCase{
		{mailArgs("a@example.com", "b@example.org"), M},
		{mailArgs(), M}, // every element of none
		{mailArgs("a@example.com", "b@mail.example.com"), N}, // no subdomain cover
		{mailArgs("a@evil.com"), N},
		{mailArgs("a@example.com.evil.com"), N},
		{mailArgs("a@evil.com", "a@b@example.com"), I}, // one refused element decides
		{mailArgs("a@b@example.com"), I},               // two '@'
		{mailArgs("example.com"), I},                   // none
		{mailArgs("@example.com"), I},                  // empty local part
		{mailArgs("a@"), I},
		{mailArgs("a@EXAMPLE.com"), I}, // uppercase domain: refused, not folded
		{mailArgs("a@example.com."), I},
	})
}

func TestElementCountBoundsTheArray(t *testing.T) {
	d := argpred.Draft{Name: "elementCountAtMost", Tool: "mail.send", Version: "1", Path: "/to", Value: "2"}
	runCases(t, d, []evalCase{{mailArgs(), M}, {mailArgs("a@x.com", "b@x.com"), M}, {mailArgs("a@x.com", "b@x.com", "c@x.com"), N}})
	d = argpred.Draft{Name: "elementCountAtLeast", Tool: "mail.send", Version: "1", Path: "/to", Value: "1"}
	runCases(t, d, []evalCase{{mailArgs(), N}, {mailArgs("a@x.com"), M}})
}

func payArgs(amount, delta string) string {
	return `{"amount":` + amount + `,"delta":` + delta + `,"account":"acct-1","flag":true}`
}

func TestIntegerBoundsCompareInTheFieldsDomain(t *testing.T) {
	runCases(t, argpred.Draft{Name: "integerAtMost", Tool: "payments.transfer", Version: "1", Path: "/amount", Value: "100000"}, []evalCase{
		{payArgs("100000", "0"), M}, {payArgs("0", "0"), M}, {payArgs("100001", "0"), N}, {payArgs("18446744073709551615", "0"), N},
	})
	runCases(t, argpred.Draft{Name: "integerAtMost", Tool: "payments.transfer", Version: "1", Path: "/amount", Value: "1000.00", Scale: "2"}, []evalCase{
		{payArgs("100000", "0"), M}, {payArgs("100001", "0"), N},
	})
	runCases(t, argpred.Draft{Name: "integerAtLeast", Tool: "payments.transfer", Version: "1", Path: "/delta", Value: "-5"}, []evalCase{
		{payArgs("0", "-5"), M}, {payArgs("0", "7"), M}, {payArgs("0", "-6"), N}, {payArgs("0", "-9223372036854775808"), N},
	})
	runCases(t, argpred.Draft{Name: "integerAtMost", Tool: "payments.transfer", Version: "1", Path: "/delta", Value: "-1"}, []evalCase{
		{payArgs("0", "-1"), M}, {payArgs("0", "0"), N}, {payArgs("0", "9223372036854775807"), N},
	})
	runCases(t, argpred.Draft{Name: "integerIn", Tool: "payments.transfer", Version: "1", Path: "/delta", Values: []string{"3", "-3", "0"}}, []evalCase{
		{payArgs("0", "-3"), M}, {payArgs("0", "0"), M}, {payArgs("0", "3"), M}, {payArgs("0", "2"), N},
	})
}

func TestScaledOperandsConvertExactly(t *testing.T) {
	reg := tools(t)
	for _, c := range []struct {
		path, value, scale, want string
		code                     fault.Code
	}{
		{"/amount", "1000.00", "2", "100000", 0},
		{"/amount", "1000.5", "2", "100050", 0},
		{"/amount", "1000", "2", "100000", 0},
		{"/amount", "0.01", "2", "1", 0},
		{"/amount", "184467440737095516.15", "2", "18446744073709551615", 0},
		{"/delta", "-1.5", "1", "-15", 0},
		{"/delta", "-92233720368547758.08", "2", "-9223372036854775808", 0},
		{"/amount", "1000.001", "2", "", fault.Malformed}, // extra digits
		{"/amount", "1000.", "2", "", fault.Malformed},
		{"/amount", ".5", "2", "", fault.Malformed},
		{"/amount", "1000.5", "", "", fault.Malformed}, // a decimal needs a scale
		{"/amount", "01000", "", "", fault.Malformed},
		{"/amount", "+1", "", "", fault.Malformed},
		{"/amount", "-1", "", "", fault.OutOfRange}, // unsigned domain
		{"/amount", "184467440737095516.16", "2", "", fault.OutOfRange},
		{"/amount", "18446744073709551616", "", "", fault.OutOfRange},
		{"/delta", "9223372036854775808", "", "", fault.OutOfRange},
		{"/delta", "-0", "", "", fault.Malformed},
		{"/delta", "-0.00", "2", "", fault.Malformed},
		{"/amount", "1", "0", "", fault.OutOfRange},
		{"/amount", "1", "19", "", fault.OutOfRange},
	} {
		p, err := argpred.New(argpred.Draft{Name: "integerAtMost", Tool: "payments.transfer", Version: "1", Path: c.path, Value: c.value, Scale: c.scale}, reg, nil)
		switch {
		case c.code != 0:
			if fault.CodeOf(err) != c.code {
				t.Errorf("%s scale %q: got %v, want %v", c.value, c.scale, err, c.code)
			}
		case err != nil:
			t.Errorf("%s scale %q: %v", c.value, c.scale, err)
		case p.Draft().Value != c.want:
			t.Errorf("%s scale %q: converted to %s, want %s", c.value, c.scale, p.Draft().Value, c.want)
		}
	}
}

func TestStringPredicatesCompareExactOctets(t *testing.T) {
	f := func(name, value string, values ...string) argpred.Draft {
		return argpred.Draft{Name: name, Tool: "files.write", Version: "1", Path: "/path", Value: value, Values: values}
	}
	runCases(t, f("stringEquals", "/a"), []evalCase{{filesArgs("/a"), M}, {filesArgs("/A"), N}, {filesArgs("/a "), N}})
	runCases(t, f("stringIn", "", "/a", "/b"), []evalCase{{filesArgs("/b"), M}, {filesArgs("/c"), N}})
	runCases(t, f("stringHasPrefix", "/repos/acme/"), []evalCase{{filesArgs("/repos/acme/x"), M}, {filesArgs("/repos/ACME/x"), N}, {filesArgs("/repos/acme"), N}})
	runCases(t, f("stringHasSuffix", ".txt"), []evalCase{{filesArgs("/a.txt"), M}, {filesArgs("/a.TXT"), N}})
	runCases(t, argpred.Draft{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/mode", Values: []string{"append"}},
		[]evalCase{{`{"path":"/a","content":{"length":1,"sha256":"x"},"mode":"append"}`, M}, {`{"path":"/a","content":{"length":1,"sha256":"x"},"mode":"overwrite"}`, N}})
	runCases(t, argpred.Draft{Name: "stringHasPrefix", Tool: "payments.transfer", Version: "1", Path: "/account", Value: "acct-"},
		[]evalCase{{payArgs("1", "1"), M}})
}

func TestLengthBoundsReadOctetsAndDigestedTextLength(t *testing.T) {
	runCases(t, argpred.Draft{Name: "octetLengthAtMost", Tool: "files.write", Version: "1", Path: "/path", Value: "3"},
		[]evalCase{{filesArgs("/ab"), M}, {filesArgs("/abc"), N}})
	runCases(t, argpred.Draft{Name: "octetLengthAtLeast", Tool: "files.write", Version: "1", Path: "/path", Value: "3"},
		[]evalCase{{filesArgs("/ab"), M}, {filesArgs("/a"), N}})
	// Digested text {length, sha256}: a length bound is an integer bound.
	runCases(t, argpred.Draft{Name: "integerAtMost", Tool: "files.write", Version: "1", Path: "/content/length", Value: "4096"}, []evalCase{
		{`{"path":"/a","content":{"length":4096,"sha256":"x"}}`, M},
		{`{"path":"/a","content":{"length":4097,"sha256":"x"}}`, N},
	})
}

func TestAbsentOptionalFieldIsIndeterminate(t *testing.T) {
	runCases(t, argpred.Draft{Name: "octetLengthAtMost", Tool: "files.write", Version: "1", Path: "/note", Value: "10"},
		[]evalCase{{filesArgs("/a"), I}, {`{"path":"/a","content":{"length":1,"sha256":"x"},"note":"hi"}`, M}})
	runCases(t, argpred.Draft{Name: "emailDomainIn", Tool: "mail.send", Version: "1", Path: "/cc/*", Values: []string{"example.com"}},
		[]evalCase{{mailArgs("a@example.com"), I}, {`{"to":[],"cc":["a@example.com"],"parts":[]}`, M}})
	runCases(t, argpred.Draft{Name: "stringEquals", Tool: "mail.send", Version: "1", Path: "/parts/*/label", Value: "x"}, []evalCase{
		{`{"to":[],"parts":[{"label":"x"},{}]}`, I},
		{`{"to":[],"parts":[{"label":"y"},{}]}`, I}, // a failing element does not hide an absent one
		{`{"to":[],"parts":[{"label":"x"},{"label":"x"}]}`, M},
		{`{"to":[],"parts":[{"label":"x"},{"label":"y"}]}`, N},
	})
}

func TestAnotherDefinitionDoesNotMatch(t *testing.T) {
	reg := tools(t)
	p, err := argpred.New(argpred.Draft{Name: "pathWithin", Tool: "files.write", Version: "1", Path: "/path", Root: "/w"}, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tid, _ := ident.ParseToolID("files.write")
	one, _ := ident.NewGeneration(1)
	res, _ := reg.Lookup(tid, one)
	a, _ := res.Definition().Schema().ValidateJSON([]byte(filesArgs("/etc/../x")))
	if got := p.Eval(digest.Digest{1}, a.Root()); got != N {
		t.Fatalf("another definition: got %v, want notMatched (not even the refusal counts)", got)
	}
}

func TestPublicationReportsEveryViolationWithItsPath(t *testing.T) {
	reg := tools(t)
	for _, c := range []struct {
		name  string
		d     argpred.Draft
		wants map[string]fault.Code // path -> code, all of them
	}{
		{"unknown name, tool, version, path at once",
			argpred.Draft{Name: "regexMatches", Tool: "Files", Version: "01", Path: "path"},
			map[string]fault.Code{"name": fault.UnknownToken, "tool": fault.Malformed, "version": fault.Malformed, "path": fault.Malformed}},
		{"tool not in the snapshot", argpred.Draft{Name: "stringEquals", Tool: "files.read", Version: "1", Path: "/path", Value: "x"},
			map[string]fault.Code{"tool": fault.NotFound}},
		{"path not in the schema", argpred.Draft{Name: "stringEquals", Tool: "files.write", Version: "1", Path: "/paths", Value: "x"},
			map[string]fault.Code{"path": fault.NotFound}},
		{"path past a scalar", argpred.Draft{Name: "stringEquals", Tool: "files.write", Version: "1", Path: "/path/x", Value: "x"},
			map[string]fault.Code{"path": fault.KindMismatch}},
		{"* on an object", argpred.Draft{Name: "integerAtMost", Tool: "files.write", Version: "1", Path: "/content/*", Value: "1"},
			map[string]fault.Code{"path": fault.KindMismatch}},
		{"wrong field kind", argpred.Draft{Name: "integerAtMost", Tool: "files.write", Version: "1", Path: "/path", Value: "1"},
			map[string]fault.Code{"path": fault.KindMismatch}},
		{"pathWithin on a resourceID", argpred.Draft{Name: "pathWithin", Tool: "payments.transfer", Version: "1", Path: "/account", Root: "/"},
			map[string]fault.Code{"path": fault.KindMismatch}},
		{"extra and missing operands", argpred.Draft{Name: "pathWithin", Tool: "files.write", Version: "1", Path: "/path", Value: "/w"},
			map[string]fault.Code{"value": fault.UnknownField, "root": fault.Missing}},
		{"scale on a string predicate", argpred.Draft{Name: "stringEquals", Tool: "files.write", Version: "1", Path: "/path", Value: "x", Scale: "2"},
			map[string]fault.Code{"scale": fault.UnknownField}},
		{"malformed root", argpred.Draft{Name: "pathWithin", Tool: "files.write", Version: "1", Path: "/path", Root: "/w/../x"},
			map[string]fault.Code{"root": fault.Malformed}},
		{"every bad scheme and host", argpred.Draft{Name: "urlIn", Tool: "http.fetch", Version: "1", Path: "/url",
			Schemes: []string{"HTTPS", "https", "https"}, Hosts: []string{"ok.example", "Bad.example", "x.example:0", "ok.example"}},
			map[string]fault.Code{"schemes[0]": fault.Malformed, "schemes[2]": fault.Duplicate, "hosts[1]": fault.Malformed, "hosts[2]": fault.Malformed, "hosts[3]": fault.Duplicate}},
		{"bad domains", argpred.Draft{Name: "emailDomainIn", Tool: "mail.send", Version: "1", Path: "/to/*", Values: []string{"example.com.", "@example.com"}},
			map[string]fault.Code{"values[0]": fault.Malformed, "values[1]": fault.Malformed}},
		{"undeclared enumeration case", argpred.Draft{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/mode", Values: []string{"append", "truncate"}},
			map[string]fault.Code{"values[1]": fault.NotFound}},
		{"not a Resource", argpred.Draft{Name: "stringEquals", Tool: "payments.transfer", Version: "1", Path: "/account", Value: "Acct 1"},
			map[string]fault.Code{"value": fault.KindMismatch}},
		{"empty prefix", argpred.Draft{Name: "stringHasSuffix", Tool: "files.write", Version: "1", Path: "/path", Value: ""},
			map[string]fault.Code{"value": fault.Missing}},
		{"duplicate integers after conversion", argpred.Draft{Name: "integerIn", Tool: "payments.transfer", Version: "1", Path: "/amount", Values: []string{"1.5", "1.50"}, Scale: "2"},
			map[string]fault.Code{"values[1]": fault.Duplicate}},
		{"length out of range", argpred.Draft{Name: "octetLengthAtMost", Tool: "files.write", Version: "1", Path: "/path", Value: "1025"},
			map[string]fault.Code{"value": fault.OutOfRange}},
		{"count out of range", argpred.Draft{Name: "elementCountAtMost", Tool: "mail.send", Version: "1", Path: "/to", Value: "65"},
			map[string]fault.Code{"value": fault.OutOfRange}},
		{"too many values", argpred.Draft{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/path", Values: strings.Split(strings.Repeat("x,", 33), ",")},
			map[string]fault.Code{"values": fault.LimitExceeded}},
	} {
		_, err := argpred.New(c.d, reg, nil)
		got := map[string]fault.Code{}
		for _, e := range fault.All(err) {
			got[e.Path] = e.Code
		}
		if len(got) != len(c.wants) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.wants)
			continue
		}
		for p, code := range c.wants {
			if got[p] != code {
				t.Errorf("%s: at %s got %v, want %v (all: %v)", c.name, p, got[p], code, got)
			}
		}
	}
}

func TestResourceOperandsLieWithinTheCeiling(t *testing.T) {
	reg := tools(t)
	ceiling := func(r ident.Resource) bool { return r.String() == "acct-1" }
	for _, c := range []struct {
		d    argpred.Draft
		want fault.Code
	}{
		{argpred.Draft{Name: "stringEquals", Tool: "payments.transfer", Version: "1", Path: "/account", Value: "acct-1"}, 0},
		{argpred.Draft{Name: "stringEquals", Tool: "payments.transfer", Version: "1", Path: "/account", Value: "acct-2"}, fault.OutOfRange},
		{argpred.Draft{Name: "stringIn", Tool: "payments.transfer", Version: "1", Path: "/account", Values: []string{"acct-1", "acct-9"}}, fault.OutOfRange},
		{argpred.Draft{Name: "stringHasPrefix", Tool: "payments.transfer", Version: "1", Path: "/account", Value: "acct-"}, 0}, // names no Resource
	} {
		if _, err := argpred.New(c.d, reg, ceiling); fault.CodeOf(err) != c.want {
			t.Errorf("%s %v: got %v, want %v", c.d.Name, c.d.Values, err, c.want)
		}
	}
}

func TestPublicationErrorsEchoNoOperand(t *testing.T) {
	const secret = "sekret-operand"
	_, err := argpred.New(argpred.Draft{Name: "urlIn", Tool: "http.fetch", Version: "1", Path: "/url", Schemes: []string{secret + "\\"}, Hosts: []string{secret + "%"}}, tools(t), nil)
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("error %v echoes the operand", err)
	}
}

func TestKeysAreInjectiveOverOperandText(t *testing.T) {
	reg := tools(t)
	keys := map[string]string{}
	for _, d := range []argpred.Draft{
		{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/path", Values: []string{"a,b"}},
		{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/path", Values: []string{"a", "b"}},
		{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/path", Values: []string{"a:1:b"}},
		{Name: "stringEquals", Tool: "files.write", Version: "1", Path: "/path", Value: "a]"},
		{Name: "stringEquals", Tool: "files.write", Version: "1", Path: "/path", Value: "a"},
		{Name: "stringHasPrefix", Tool: "files.write", Version: "1", Path: "/path", Value: "a"},
		{Name: "stringEquals", Tool: "files.write", Version: "1", Path: "/note", Value: "a"},
	} {
		p, err := argpred.New(d, reg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := keys[p.Key()]; ok {
			t.Fatalf("%+v and %s share the key %q", d, prev, p.Key())
		}
		keys[p.Key()] = d.Name + d.Path + d.Value + strings.Join(d.Values, "|")
	}
	// Set order is normalized: the same set is the same key.
	a, _ := argpred.New(argpred.Draft{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/path", Values: []string{"b", "a"}}, reg, nil)
	b, _ := argpred.New(argpred.Draft{Name: "stringIn", Tool: "files.write", Version: "1", Path: "/path", Values: []string{"a", "b"}}, reg, nil)
	if a.Key() != b.Key() {
		t.Fatal("a set's key depends on its order")
	}
}

func TestParseNameIsExact(t *testing.T) {
	for _, n := range argpred.AllNames() {
		got, err := argpred.ParseName(n.String())
		if err != nil || got != n {
			t.Fatalf("%v does not round-trip", n)
		}
	}
	for _, s := range []string{"", "PathWithin", "pathwithin", " pathWithin", "exactToolID"} {
		if _, err := argpred.ParseName(s); !errors.Is(err, fault.ErrUnknownToken) {
			t.Errorf("%q: %v", s, err)
		}
	}
}
