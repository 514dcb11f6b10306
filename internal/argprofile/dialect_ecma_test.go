package argprofile_test

import (
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/argprofile"
)

// Both pattern dialects mean what ECMA-262 means, checked against a real
// ECMA-262 engine (Node.js's): random patterns the dialect accepts, on
// random values the node accepts — any text for the dialect of every
// node (with line terminators, non-ASCII and astral code points), printable
// ASCII for the wider one of a string node. Every match must agree.
func TestPatternDialectsAgreeWithAnECMA262Engine(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("needs Node.js (an ECMA-262 engine) on PATH")
	}
	for _, tc := range []struct {
		name  string
		ascii bool
		atoms []string
		value func(r *rand.Rand) string
	}{
		{"any text", false,
			[]string{"a", "b", "1", " ", `\d`, `\w`, `\.`, `\x20`, `[\x21-\x7e]`, "~", `\\`, `[\d-z]`, `\-`, `\n`, `\t`, `\r`, `[a-c\d]`},
			func(r *rand.Rand) string {
				s := randomOf(r, "ab1 .-~\\\n\r\t")
				if r.IntN(2) == 0 {
					s += []string{"\u2028", "😀", "é", "\u00a0", "\u0085"}[r.IntN(5)] + randomOf(r, "ab1 ")
				}
				return s
			}},
		{"printable ASCII", true,
			[]string{"a", "b", "1", " ", ".", `\s`, `\S`, `\d`, `\D`, `\w`, `\W`, `[^a1 ]`, `[a-c\s]`, `[^\S]`, `\.`, `\x20`, `[^\d-z]`, `\-`},
			func(r *rand.Rand) string {
				var b strings.Builder
				for range r.IntN(6) {
					b.WriteByte(byte(0x20 + r.IntN(95)))
				}
				return b.String()
			}},
	} {
		r := rand.New(rand.NewPCG(1, 2))
		type check struct {
			P string   `json:"p"`
			S []string `json:"s"`
		}
		var checks []check
		for len(checks) < 1000 {
			p := randomPattern(r, tc.atoms, 0)
			if r.IntN(2) == 0 {
				p = "^" + p
			}
			if r.IntN(2) == 0 {
				p += "$"
			}
			if len(p) > 256 {
				continue // short patterns: the check runs 30,000 matches per dialect
			}
			if !argprofile.ValidPattern(p, tc.ascii) {
				t.Fatalf("%s: the generator's pattern %q is outside the dialect", tc.name, p)
			}
			c := check{P: p}
			for range 30 {
				c.S = append(c.S, tc.value(r))
			}
			checks = append(checks, c)
		}
		in, err := json.Marshal(checks)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(node, "-e", `let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{`+
			`console.log(JSON.stringify(JSON.parse(d).map(k=>{const r=new RegExp(k.p);return k.s.map(s=>r.test(s))})))})`)
		cmd.Stdin = strings.NewReader(string(in))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		var ecma [][]bool
		if err := json.Unmarshal(out, &ecma); err != nil || len(ecma) != len(checks) {
			t.Fatalf("node's answer: %v", err)
		}
		for i, c := range checks {
			re := regexp.MustCompile(c.P)
			for j, s := range c.S {
				if re.MatchString(s) != ecma[i][j] {
					t.Errorf("%s: %q on %q: RE2 %t, ECMA-262 %t", tc.name, c.P, s, !ecma[i][j], ecma[i][j])
				}
			}
		}
	}
}

func randomOf(r *rand.Rand, alphabet string) string {
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// randomPattern composes atoms with groups, alternation and quantifiers.
func randomPattern(r *rand.Rand, atoms []string, depth int) string {
	var b strings.Builder
	for range 1 + r.IntN(3) {
		switch k := r.IntN(10); {
		case k < 6 || depth > 2:
			b.WriteString(atoms[r.IntN(len(atoms))])
		case k < 8:
			b.WriteString("(" + randomPattern(r, atoms, depth+1) + "|" + randomPattern(r, atoms, depth+1) + ")")
		default:
			b.WriteString("(?:" + randomPattern(r, atoms, depth+1) + ")")
		}
		b.WriteString([]string{"", "", "*", "+", "?", "{1,2}"}[r.IntN(6)])
	}
	return b.String()
}
