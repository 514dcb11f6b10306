package schema_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// referenceArguments is the reference path ValidateJSON is held to: the
// occurrence-preserving decode under the request path's limits, then
// Validate of the decoded tree.
func referenceArguments(s schema.Schema, data []byte) (schema.Arguments, error) {
	in, err := jsonexact.Decode(data, jsonexact.Limits{MaxDepth: schema.MaxDepth})
	if err != nil {
		return schema.Arguments{}, err
	}
	return s.Validate(in)
}

// inFastSubset reports whether data uses only the octets ValidateJSON
// reads itself: JSON whitespace and printable ASCII other than the
// backslash (no escapes).
func inFastSubset(data []byte) bool {
	for _, c := range data {
		if (c < 0x20 || c > 0x7e || c == '\\') && c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// checkValidateJSON compares ValidateJSON with the reference path on data:
// an acceptance must be one the reference makes, with equal Arguments
// (typed tree, Resources, digest and exact canonical bytes); a fallback
// returns the zero Arguments; and every input the reference accepts that
// is in the fast subset must be accepted (so the fast path is the one the
// common request takes). It reports whether ValidateJSON accepted.
func checkValidateJSON(t testing.TB, s schema.Schema, data []byte) bool {
	t.Helper()
	got, ok := s.ValidateJSON(data)
	want, err := referenceArguments(s, data)
	if !ok {
		if !got.IsZero() || got.Resources() != nil {
			t.Fatalf("a fallback returned partial Arguments for %q", data)
		}
		if err == nil && inFastSubset(data) {
			t.Fatalf("ValidateJSON fell back on %q, which the reference accepts and which has no escape or non-printable octet", data)
		}
		return false
	}
	if err != nil {
		t.Fatalf("ValidateJSON accepted %q, which the reference rejects: %v", data, err)
	}
	if !got.Root().Equal(want.Root()) {
		t.Fatalf("ValidateJSON built a different tree for %q", data)
	}
	if diff := cmp.Diff(resourceStrings(want.Resources()), resourceStrings(got.Resources())); diff != "" {
		t.Fatalf("Resources differ for %q (-reference +fast):\n%s", data, diff)
	}
	gb, gerr := canon.AppendValue(nil, got.Root())
	wb, werr := canon.AppendValue(nil, want.Root())
	if (gerr == nil) != (werr == nil) || !bytes.Equal(gb, wb) {
		t.Fatalf("canonical bytes differ for %q", data)
	}
	gd, wd := digest.New("test.arguments/1"), digest.New("test.arguments/1")
	got.WriteDigest(gd)
	want.WriteDigest(wd)
	if !gd.Sum().Equal(wd.Sum()) {
		t.Fatalf("digests differ for %q", data)
	}
	return true
}

// fastSchemas are the schemas of the differential: every kind and nesting
// (rich), the deepest chain, the widest object and arrays of arrays.
func fastSchemas(tb testing.TB) map[string]schema.Schema {
	return map[string]schema.Schema{
		"rich":   mustNew(tb, richDraft()),
		"deep":   mustNew(tb, chain(schema.MaxDepth)),
		"wide":   mustNew(tb, object(manyFields(schema.MaxFields, signed())...)),
		"nested": mustNew(tb, object(req("m", array(array(object(opt("u", unsigned()), opt("e", enum("x", "y")))))))),
	}
}

// TestValidateJSONMatchesReference runs the differential over the committed
// seeds of FuzzValidate and 20,000 seeded random inputs per schema (4,000
// under -race): valid
// values rendered with random member order and whitespace, near misses of
// every kind (escapes, non-canonical integers, null, unknown, repeated and
// missing members, wrong kinds, oversized strings and arrays) and random
// octet mutations of both.
func TestValidateJSONMatchesReference(t *testing.T) {
	t.Parallel()
	schemas := fastSchemas(t)
	for _, seed := range richSeeds {
		checkValidateJSON(t, schemas["rich"], []byte(seed))
	}
	for name, s := range schemas {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := &jsonGen{r: rand.New(rand.NewPCG(7, uint64(len(name))))}
			accepted, n := 0, 20000
			if raceDetector {
				n = 4000
			}
			for range n {
				data := g.input(s.Draft())
				if checkValidateJSON(t, s, data) {
					accepted++
				}
			}
			t.Logf("ValidateJSON accepted %d of %d inputs", accepted, n)
			// The generator is meant to exercise both outcomes.
			if accepted < n/10 || accepted > n*9/10 {
				t.Errorf("ValidateJSON accepted %d of %d inputs", accepted, n)
			}
		})
	}
}

// FuzzValidateJSON holds ValidateJSON to the reference path on arbitrary
// octets (checkValidateJSON), for the rich schema and, from the first
// octet, one of the others.
func FuzzValidateJSON(f *testing.F) {
	for _, s := range richSeeds {
		f.Add([]byte(s))
	}
	g := &jsonGen{r: rand.New(rand.NewPCG(1, 2))}
	rich := richDraft()
	for range 64 {
		f.Add(g.input(rich))
	}
	schemas := fastSchemas(f)
	ordered := []schema.Schema{schemas["rich"], schemas["deep"], schemas["wide"], schemas["nested"]}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkValidateJSON(t, ordered[0], data)
		if len(data) > 0 {
			checkValidateJSON(t, ordered[1+int(data[0])%3], data)
		}
	})
}

// jsonGen renders random argument text for a Draft.
type jsonGen struct {
	r     *rand.Rand
	b     []byte
	noisy bool // this input may hold near misses
}

// odd reports, in a noisy input, an event of probability 1/n.
func (g *jsonGen) odd(n int) bool { return g.noisy && g.r.IntN(n) == 0 }

// input returns one random input for d: usually a rendering of a value of
// d with occasional near misses, sometimes with octet mutations on top.
func (g *jsonGen) input(d schema.Draft) []byte {
	g.b, g.noisy = g.b[:0], g.r.IntN(2) == 0
	g.ws()
	g.value(d, 0)
	g.ws()
	out := slices.Clone(g.b)
	if g.odd(3) {
		for range 1 + g.r.IntN(3) {
			out = g.mutate(out)
		}
	}
	return out
}

const mutationOctets = "{}[],:\"\\ \t\n0123456789-+.eEnulltrfasxyzA\x00\x7f\xc3\xa9\xff"

func (g *jsonGen) mutate(b []byte) []byte {
	if len(b) == 0 {
		return append(b, mutationOctets[g.r.IntN(len(mutationOctets))])
	}
	i := g.r.IntN(len(b))
	switch g.r.IntN(4) {
	case 0:
		b[i] = mutationOctets[g.r.IntN(len(mutationOctets))]
	case 1:
		return slices.Insert(b, i, mutationOctets[g.r.IntN(len(mutationOctets))])
	case 2:
		return slices.Delete(b, i, i+1)
	default:
		return b[:i]
	}
	return b
}

func (g *jsonGen) ws() {
	if g.r.IntN(4) == 0 {
		g.b = append(g.b, " \t\n\r  "[:1+g.r.IntN(5)]...)
	}
}

// nearMisses are values of the wrong kind or outside the fast subset.
var nearMisses = []string{
	`null`, `true`, `false`, `0`, `-0`, `01`, `-01`, `1.0`, `1e2`, `1E+2`, `-`, `+1`,
	`18446744073709551615`, `18446744073709551616`, `-9223372036854775808`, `-9223372036854775809`,
	`9223372036854775807`, `9223372036854775808`, `""`, `"a"`, `"A"`, `"acct-1"`, `"x\u0041"`, `"\""`,
	`"a\/b"`, `"é"`, "\"\x7f\"", "\"\t\"", `"usd"`, `"USD"`, `[]`, `[1]`, `{}`, `{"n":"x"}`, `truex`, `1x`,
	`[1,]`, `{"a":1,}`, `"unterminated`,
}

var resourceTexts = []string{"acct-1", "a", "b", "q", "z", "acct-2", "ACCT", "", "a b", "a.b", "-a"}

var stringTexts = []string{"Ada", "", " spaced ", "x", "~!#$%&'()*+,-./:;<=>?@[]^_`{|}", `a\"b`, `\u0041`, `\\`, `\/`, `\n`}

func (g *jsonGen) value(d schema.Draft, depth int) {
	g.ws()
	if g.odd(15) {
		g.b = append(g.b, nearMisses[g.r.IntN(len(nearMisses))]...)
		return
	}
	switch d.Kind {
	case "string":
		g.str(stringTexts, 5)
	case "resourceID":
		g.str(resourceTexts, 6)
	case "bool":
		g.b = strconv.AppendBool(g.b, g.r.IntN(2) == 0)
	case "signedInteger":
		g.b = strconv.AppendInt(g.b, g.int64(), 10)
	case "unsignedInteger":
		if g.odd(20) {
			g.b = strconv.AppendInt(g.b, -1-g.r.Int64N(10), 10)
			return
		}
		g.b = strconv.AppendUint(g.b, g.uint64(), 10)
	case "enumeration":
		cases := append(slices.Clone(d.Cases), "USD", "zzz")
		i := g.r.IntN(len(d.Cases))
		if g.odd(10) {
			i = len(d.Cases) + g.r.IntN(2)
		}
		g.b = strconv.AppendQuote(g.b, cases[i])
	case "array":
		g.b = append(g.b, '[')
		n := g.r.IntN(4)
		switch {
		case g.r.IntN(60) == 0:
			n = schema.MaxElements
		case g.odd(60):
			n = schema.MaxElements + 1
		}
		for i := range n {
			if i > 0 {
				g.ws()
				g.b = append(g.b, ',')
			}
			g.value(*d.Items, depth+1)
		}
		g.ws()
		g.b = append(g.b, ']')
	case "object":
		g.object(d, depth)
	}
}

func (g *jsonGen) object(d schema.Draft, depth int) {
	var names []string
	var types []schema.Draft
	for _, f := range d.Fields {
		p := 2
		if f.Requirement == "required" {
			p = 0
		}
		if p == 0 && !g.odd(40) || p != 0 && g.r.IntN(p) != 0 {
			names, types = append(names, f.Name), append(types, f.Type)
		}
	}
	switch {
	case g.odd(30):
		names, types = append(names, "unknown"), append(types, schema.Draft{Kind: "bool"})
	case g.odd(30):
		if len(names) > 0 {
			names, types = append(names, names[0]), append(types, types[0])
		}
	}
	if g.r.IntN(3) != 0 {
		g.r.Shuffle(len(names), func(i, j int) {
			names[i], names[j] = names[j], names[i]
			types[i], types[j] = types[j], types[i]
		})
	}
	g.b = append(g.b, '{')
	for i, name := range names {
		if i > 0 {
			g.ws()
			g.b = append(g.b, ',')
		}
		g.ws()
		g.b = strconv.AppendQuote(g.b, name)
		g.ws()
		g.b = append(g.b, ':')
		g.value(types[i], depth+1)
	}
	g.ws()
	g.b = append(g.b, '}')
}

// str appends one of texts (already JSON string contents; the first clean
// are valid and without escapes), or sometimes a string at or just over
// the 1,024-octet bound.
func (g *jsonGen) str(texts []string, clean int) {
	g.b = append(g.b, '"')
	switch {
	case g.r.IntN(50) == 0:
		g.b = append(g.b, strings.Repeat("a", schema.MaxStringLen)...)
	case g.odd(50):
		g.b = append(g.b, strings.Repeat("a", schema.MaxStringLen+1)...)
	case g.noisy:
		g.b = append(g.b, texts[g.r.IntN(len(texts))]...)
	default:
		g.b = append(g.b, texts[g.r.IntN(clean)]...)
	}
	g.b = append(g.b, '"')
}

func (g *jsonGen) int64() int64 {
	switch g.r.IntN(6) {
	case 0:
		return -1 << 63
	case 1:
		return 1<<63 - 1
	case 2:
		return 0
	default:
		return g.r.Int64N(2000) - 1000
	}
}

func (g *jsonGen) uint64() uint64 {
	switch g.r.IntN(5) {
	case 0:
		return 1<<64 - 1
	case 1:
		return 0
	default:
		return g.r.Uint64N(1 << uint(g.r.IntN(64)))
	}
}
