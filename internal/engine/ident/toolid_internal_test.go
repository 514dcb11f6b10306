package ident

import (
	"strings"
	"testing"
)

// toolIDCompareReference is the segment-by-segment definition of the
// Section 49 order (the previous ToolID.Compare).
func toolIDCompareReference(t, u ToolID) int {
	ts, us := t.s, u.s
	for {
		ta, trest, tmore := strings.Cut(ts, ".")
		ua, urest, umore := strings.Cut(us, ".")
		if c := strings.Compare(ta, ua); c != 0 {
			return c
		}
		switch {
		case !tmore && !umore:
			return 0
		case !tmore:
			return -1
		case !umore:
			return 1
		}
		ts, us = trest, urest
	}
}

// TestToolIDCompareMatchesReference compares every pair of strings of up to
// four octets over an alphabet with '.', '-' (which sorts below '.'), a
// digit and two letters, valid identifiers or not, and a few real ones.
func TestToolIDCompareMatchesReference(t *testing.T) {
	t.Parallel()
	const alphabet = "-.0ab"
	all := []string{""}
	for n, level := 0, []string{""}; n < 4; n++ {
		var next []string
		for _, s := range level {
			for _, c := range alphabet {
				next = append(next, s+string(c))
			}
		}
		all = append(all, next...)
		level = next
	}
	all = append(all, "payments.submit", "payments-x.submit", "payments.submit.v2", "payments", "a.b", "a-c.b")
	for _, a := range all {
		for _, b := range all {
			ta, tb := ToolID{s: a}, ToolID{s: b}
			if got, want := ta.Compare(tb), toolIDCompareReference(ta, tb); got != want {
				t.Fatalf("Compare(%q, %q) = %d, reference %d", a, b, got, want)
			}
		}
	}
}
