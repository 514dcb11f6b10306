package bench

import (
	"testing"
)

// BenchmarkDecision measures one decision per iteration, cycling through
// the 64 inputs, for every engine and size. `make bench-peers` runs
// TestPeerTable instead, which interleaves the engines in rounds.
func BenchmarkDecision(b *testing.B) {
	for _, size := range Sizes {
		e := Build(b, size)
		for _, d := range e.Deciders() {
			b.Run(size.Name+"/"+d.Name, func(b *testing.B) { benchDecisions(b, d.Decide) })
		}
	}
}

// benchDecisions measures one decision per iteration, cycling through the
// inputs.
func benchDecisions(b *testing.B, decide Decider) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := decide(i % NumInputs); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
