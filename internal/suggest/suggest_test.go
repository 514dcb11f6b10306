package suggest

import (
	"fmt"
	"slices"
	"testing"
)

// TestNearSuggestsWithinTwoEditsOrAPrefix: a dropped, added or swapped
// letter is near; a prefix is near; anything farther is not.
func TestNearSuggestsWithinTwoEditsOrAPrefix(t *testing.T) {
	t.Parallel()
	known := []string{"manifests", "request", "tls-cert", "tls-key", "explain"}
	tests := map[string][]string{
		"manifest": {"manifests"},
		"requst":   {"request"},
		"tls":      {"tls-cert", "tls-key"},
		"bogus":    nil,
		"request":  nil, // the name itself is no suggestion
	}
	for name, want := range tests {
		if got := Near(name, known); !slices.Equal(got, want) {
			t.Errorf("Near(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestNearestIsOneOrNone: one closest candidate, or none on a tie or
// beyond two edits.
func TestNearestIsOneOrNone(t *testing.T) {
	t.Parallel()
	known := []string{"snapshotID", "snapshotGeneration", "definitions", "abc", "abd"}
	tests := map[string]struct {
		want string
		ok   bool
	}{
		"snapshotId":  {"snapshotID", true},
		"defintions":  {"definitions", true},
		"secretfield": {"", false},
		"abe":         {"", false}, // abc and abd tie
	}
	for name, tc := range tests {
		if got, ok := Nearest(name, known); got != tc.want || ok != tc.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"tset", "test", 2}} {
		if d := Distance(tc.a, tc.b); d != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

func ExampleNearest() {
	fmt.Println(Nearest("snapshotId", []string{"snapshotID", "snapshotGeneration"}))
	// Output: snapshotID true
}
