package ident

import (
	"slices"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

// ParseUnique parses every token with parse, in order, and rejects the
// first one that does not parse (at its index "[i]") or that repeats an
// earlier member (fault.Duplicate with duplicateRule, at its index). The
// result keeps input order; a caller that needs Section 50 order sorts it.
// Limits on the number of members are the caller's.
func ParseUnique[T comparable](tokens []string, parse func(string) (T, error), duplicateRule string) ([]T, error) {
	out := make([]T, 0, len(tokens))
	for i, s := range tokens {
		v, err := parse(s)
		if err != nil {
			return nil, fault.Within(fault.Index(i), err)
		}
		if slices.Contains(out, v) {
			return nil, fault.At(fault.Index(i), fault.Duplicate, duplicateRule)
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseSet parses a set of at most limit unique tokens (fault.LimitExceeded
// with limitRule otherwise; see ParseUnique for the members) and returns it
// sorted by compare, the set's Section 50 order. A lower bound on the
// number of members is the caller's, checked before ParseSet.
func ParseSet[T comparable](tokens []string, parse func(string) (T, error), compare func(T, T) int,
	limit int, limitRule, duplicateRule string) ([]T, error) {
	if len(tokens) > limit {
		return nil, fault.New(fault.LimitExceeded, limitRule)
	}
	set, err := ParseUnique(tokens, parse, duplicateRule)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(set, compare)
	return set, nil
}
