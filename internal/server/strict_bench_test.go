package server

import (
	"testing"

	"github.com/toolgate/toolgate/client"
)

// BenchmarkDecodeAuthorize: the strict single pass against the former two
// passes on the fullest seed body.
func BenchmarkDecodeAuthorize(b *testing.B) {
	authorize, _ := seeds(b)
	body := authorize[3]
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var v client.AuthorizeRequest
			if err := decodeAuthorize(string(body), &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var v client.AuthorizeRequest
			if err := refDecode(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
