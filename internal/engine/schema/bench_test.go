package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// realisticDraft is an 8-field payments proposal.
func realisticDraft() schema.Draft {
	return object(
		req("recipient", str()),
		req("source", resource()),
		req("amount", unsigned()),
		req("currency", enum("usd", "eur", "chf", "gbp", "jpy")),
		opt("urgent", boolean()),
		opt("approvers", array(resource())),
		opt("memo", str()),
		opt("details", object(req("reference", str()), opt("invoice", unsigned()), opt("due", str()))),
	)
}

const realisticJSON = `{"recipient":"ACME Corp. Accounts Payable","source":"acct-ops-eu-1","amount":125000,` +
	`"currency":"eur","urgent":false,"approvers":["user-ana","user-bo","user-cy"],` +
	`"memo":"Invoice 2026-0412, net 30","details":{"reference":"PO-88812","invoice":4412,"due":"2026-06-30"}}`

// maximalDraft sits at every Schema bound at once: 64 root fields, 256
// nodes, depth 8, a 64-case enumeration and 64-field nested objects.
func maximalDraft() schema.Draft {
	fields := []schema.FieldDraft{
		req("deep", chain(7)), // levels 2..8
		req("res", array(resource())),
		req("tier", enum(manyCases(64)...)),
		req("flag", boolean()),
		req("delta", signed()),
		req("amount", unsigned()),
		req("matrix", array(array(signed()))),
		req("wide0", object(manyFields(64, unsigned())...)),
		req("wide1", object(manyFields(64, unsigned())...)),
		req("wide2", object(manyFields(54, unsigned())...)),
	}
	for i := range 54 {
		fields = append(fields, req(fmt.Sprintf("s%02d", i), str()))
	}
	return object(fields...)
}

// maximalJSON fills maximalDraft: every field present, arrays at 64
// elements or 8x8, strings at 1,024 octets, integers at full width.
func maximalJSON() string {
	long := strings.Repeat("Lorem ipsum dolor sit amet, 0123456789 !#$%&()*+,-./:;<=>?@[]^_{|}~ ", 16)[:1024]
	var b strings.Builder
	b.WriteString(`{"deep":` + strings.Repeat(`{"n":`, 6) + `"` + long + `"` + strings.Repeat(`}`, 6))
	b.WriteString(`,"res":[`)
	for i := range 64 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s-%02d"`, strings.Repeat("r", 61), i)
	}
	b.WriteString(`],"tier":"c063","flag":true,"delta":-9223372036854775808,"amount":18446744073709551615,"matrix":[`)
	for i := range 8 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`[1,-2,3,-4,5,-6,7,-8]`)
	}
	b.WriteByte(']')
	for w, n := range []int{64, 64, 54} {
		fmt.Fprintf(&b, `,"wide%d":{`, w)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%s":%d`, fname(i), uint64(1<<64-1)-uint64(i))
		}
		b.WriteByte('}')
	}
	for i := range 54 {
		fmt.Fprintf(&b, `,"s%02d":"%s"`, i, long)
	}
	b.WriteByte('}')
	return b.String()
}

func TestBenchmarkSchemasAreAtTheirBounds(t *testing.T) {
	t.Parallel()
	s := mustNew(t, maximalDraft())
	if s.Nodes() != schema.MaxNodes || s.Depth() != schema.MaxDepth || len(s.Draft().Fields) != schema.MaxFields {
		t.Errorf("maximal schema: Nodes, Depth, fields = %d, %d, %d", s.Nodes(), s.Depth(), len(s.Draft().Fields))
	}
	if _, err := s.Validate(decode(t, maximalJSON())); err != nil {
		t.Errorf("maximal input: %v", err)
	}
	args, err := mustNew(t, realisticDraft()).Validate(decode(t, realisticJSON))
	if err != nil || args.Root().Len() != 8 || len(args.Resources()) != 4 {
		t.Errorf("realistic input: %v", err)
	}
}

// benchCase is one Schema and argument text the benchmarks validate.
type benchCase struct {
	name  string
	draft schema.Draft
	json  string
}

func benchCases() []benchCase {
	return []benchCase{
		{"realistic", realisticDraft(), realisticJSON},
		{"maximal", maximalDraft(), maximalJSON()},
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			s := mustNew(b, bc.draft)
			in := decode(b, bc.json)
			b.SetBytes(int64(len(bc.json)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Validate(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidateJSON measures the one-pass fast path the Canonical
// Request takes for raw argument text (request.New).
func BenchmarkValidateJSON(b *testing.B) {
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			s := mustNew(b, bc.draft)
			raw := []byte(bc.json)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := s.ValidateJSON(raw); !ok {
					b.Fatal("the fast path did not accept the input")
				}
			}
		})
	}
}

func BenchmarkNew(b *testing.B) {
	for _, bc := range []struct {
		name  string
		draft schema.Draft
	}{{"realistic", realisticDraft()}, {"maximal", maximalDraft()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := schema.New(testID, vocab.V1, bc.draft); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
