// Package suggest finds the known names nearest to a mistyped one, for
// the "did you mean" of the CLI's flags and of a manifest's unknown keys.
// It is the one edit distance of the repository.
package suggest

// Near returns the candidates within two edits of name, or that name
// prefixes (name at least two octets), in the candidates' order.
func Near(name string, candidates []string) []string {
	var out []string
	for _, c := range candidates {
		if c == name {
			continue
		}
		if Distance(name, c) <= 2 || (len(name) > 1 && len(c) > len(name) && c[:len(name)] == name) {
			out = append(out, c)
		}
	}
	return out
}

// Nearest returns the one candidate closest to name within two edits, and
// false when there is none or two are equally close.
func Nearest(name string, candidates []string) (string, bool) {
	best, bestD, tie := "", 3, false
	for _, c := range candidates {
		d := Distance(name, c)
		switch {
		case c == name:
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie {
		return "", false
	}
	return best, best != ""
}

// Distance is the Levenshtein distance of a and b, in octets.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
