package bench

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"text/tabwriter"
)

var rounds = flag.Int("peers.rounds", 0, "rounds of the interleaved peer table (make bench-peers); 0 skips it")

type sample struct{ ns, allocs, bytes int64 }

// TestPeerTable runs every engine and size in one process, interleaved:
// each round measures every (size, engine) once with testing.Benchmark,
// the engine order rotating between rounds, so that machine noise spreads
// over all engines alike. It prints the median of the rounds, the range,
// allocations and the ratio to toolgate.
func TestPeerTable(t *testing.T) {
	if *rounds <= 0 {
		t.Skip("make bench-peers runs this with -peers.rounds")
	}
	type cell struct {
		size, engine string
		decide       Decider
		samples      []sample
	}
	var cells []*cell
	for _, size := range Sizes {
		e := Build(t, size)
		for _, d := range e.Deciders() {
			cells = append(cells, &cell{size: size.Name, engine: d.Name, decide: d.Decide})
		}
	}
	for r := range *rounds {
		for k := range cells {
			c := cells[(k+r)%len(cells)]
			res := testing.Benchmark(func(b *testing.B) { benchDecisions(b, c.decide) })
			c.samples = append(c.samples, sample{res.NsPerOp(), res.AllocsPerOp(), res.AllocedBytesPerOp()})
		}
	}
	median := func(s []sample) sample {
		ns := make([]int64, len(s))
		for i, x := range s {
			ns[i] = x.ns
		}
		slices.Sort(ns)
		m := ns[len(ns)/2]
		if len(ns)%2 == 0 {
			m = (ns[len(ns)/2-1] + ns[len(ns)/2]) / 2
		}
		return sample{m, s[0].allocs, s[0].bytes}
	}
	fmt.Fprintf(os.Stdout, "\n%d interleaved rounds, %d inputs cycled, GOMAXPROCS=%d, %s\n\n", *rounds, NumInputs, runtime.GOMAXPROCS(0), runtime.Version())
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "rules\tengine\tmedian ns/decision\tmin–max\tallocs\tB\tvs toolgate\t")
	var base sample
	for _, c := range cells {
		m := median(c.samples)
		if c.engine == "toolgate" {
			base = m
		}
		lo, hi := c.samples[0].ns, c.samples[0].ns
		for _, s := range c.samples {
			lo, hi = min(lo, s.ns), max(hi, s.ns)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%d–%d\t%d\t%d\t%.1f×\t\n", c.size, c.engine, m.ns, lo, hi, m.allocs, m.bytes, float64(m.ns)/float64(base.ns))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}
