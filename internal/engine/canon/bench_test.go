package canon_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/value"
)

// realisticRoot is an eight-field payments argument object, with fields in
// Schema (ASCII) order.
func realisticRoot() value.Value {
	return object(
		field("amount", value.Unsigned(125000)),
		field("approved", value.Bool(true)),
		field("currency", enum("usd")),
		field("memo", str("Invoice 2024-117: consulting services, March")),
		field("metadata", object(
			field("channel", enum("api")),
			field("priority", value.Signed(-2)),
		)),
		field("payee", resource("acct-4412")),
		field("payer", resource("acct-1001")),
		field("references", array(resource("inv-2024-117"), resource("po-8812"), resource("contract-77"))),
	)
}

// maximalRoot is 63 fields of 1,024-octet strings: a request of 65,241
// octets, just under the bound.
func maximalRoot() value.Value {
	fs := make([]value.Field, 63)
	for i := range fs {
		fs[i] = field(fmt.Sprintf("f%02d", i), str(strings.Repeat("m", value.MaxStringLen)))
	}
	return object(fs...)
}

func BenchmarkEncode(b *testing.B) {
	cases := []struct {
		name string
		root value.Value
	}{
		{"realistic", realisticRoot()},
		{"maximal", maximalRoot()},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			env := fixtureEnvelope(b)
			env.Root = bc.root
			out, err := canon.Encode(env)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canon.Encode(env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
