package request_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/canon"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/testutil"
)

// BenchmarkCanonicalRequest measures request.New end to end from raw
// argument JSON: exact lookup, occurrence-preserving decode, Schema
// validation, canonical encoding and the request content digest.
//
//	go test -run '^$' -bench BenchmarkCanonicalRequest -benchmem ./internal/engine/request/
func BenchmarkCanonicalRequest(b *testing.B) {
	host := boundary.New("host")
	a := testutil.Assess(b, host, "proposal-1")

	b.Run("realistic", func(b *testing.B) {
		// The sample's eight-field payments proposal (~230 octets of JSON).
		snap := paymentsSnapshot(b)
		p := paymentsProposal(testutil.PaymentsArguments)
		run(b, snap, p, a)
	})
	b.Run("maximal", func(b *testing.B) {
		// 64 string fields of up to 1,024 octets: the widest object and a
		// canonical request of exactly 65,536 octets, the Section 39 bound.
		snap := testutil.Publish(b, testutil.RegistryDraft(bigDefinition()))
		p := bigProposal(b, snap, a, canon.MaxSize)
		run(b, snap, p, a)
	})
}

func run(b *testing.B, snap *registry.Snapshot, p request.Proposal, a *assessment.Assessment) {
	b.Helper()
	r, err := request.New(snap, p, a)
	if err != nil {
		b.Fatalf("request.New: %v", err)
	}
	b.SetBytes(int64(len(p.Arguments)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := request.New(snap, p, a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(r.Bytes())), "canonical-octets")
}
