package argprofile_test

import "testing"

// BenchmarkDerive is the profile's cost on a typical call (the Example's
// nine members: a digest, an escape, a decimal, a union, a json value).
func BenchmarkDerive(b *testing.B) {
	p := sampleProfile(b)
	raw := []byte(sampleCall)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := p.Derive(raw); err != nil {
			b.Fatal(err)
		}
	}
}
