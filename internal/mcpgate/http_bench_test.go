package mcpgate

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkHeaderCheck is the HTTP layer's added work on one tools/call
// carrying a 3 KB artifact: reading the envelope and checking the standard
// headers.
func BenchmarkHeaderCheck(b *testing.B) {
	f := newFixture(b)
	body := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"submit_payment",`+
		`"arguments":{"amount":1,"currency":"eur","debtor-account":"a","creditor-account":"b"},"_meta":{%q:{"artifact":%q,"authorizationID":"a"}}}}`,
		MetaKey, strings.Repeat("x", 3000)))
	h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"submit_payment"}}
	b.ReportAllocs()
	for b.Loop() {
		if r := f.g.checkHeaders(h, readEnvelope(body), true); r != nil {
			b.Fatal(r.Code)
		}
	}
}
