// Package vocab holds the closed protocol vocabularies of spec Section 48.
//
// Each vocabulary is a small unsigned type whose constants start at 1 (the
// zero value is invalid) and follow the listed token order of Section 48,
// which is also the deterministic order of Section 50 where one is defined.
// String returns the exact, case-sensitive protocol token; the Parse function
// of each vocabulary accepts exactly those tokens and rejects everything else
// with a *fault.Error of code UnknownToken whose text lists the accepted
// tokens but never echoes the rejected one.
package vocab

import (
	"strings"

	"github.com/toolgate/toolgate/internal/engine/fault"
)

// table is the token list of one vocabulary; index 0 is unused so that the
// zero value of every vocabulary is invalid.
type table struct {
	name   string
	tokens []string
}

func newTable(name string, tokens ...string) table {
	return table{name: name, tokens: append([]string{""}, tokens...)}
}

func (t table) valid(i uint8) bool { return i > 0 && int(i) < len(t.tokens) }

func (t table) str(i uint8) string {
	if !t.valid(i) {
		return "invalid " + t.name
	}
	return t.tokens[i]
}

func (t table) parse(s string) (uint8, error) {
	for i := 1; i < len(t.tokens); i++ {
		if t.tokens[i] == s {
			return uint8(i), nil
		}
	}
	return 0, fault.New(fault.UnknownToken, t.rule())
}

func (t table) rule() string {
	return t.name + " must be one of: " + strings.Join(t.tokens[1:], ", ")
}

func all[T ~uint8](t table) []T {
	out := make([]T, 0, len(t.tokens)-1)
	for i := 1; i < len(t.tokens); i++ {
		out = append(out, T(i))
	}
	return out
}
