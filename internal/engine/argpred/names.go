package argpred

import "github.com/toolgate/toolgate/internal/engine/fault"

// Vocabulary is the version token a Policy Definition names to opt in.
const Vocabulary = "toolgate.argument-predicates/1"

// Name is one closed argument-predicate token of Vocabulary. The numbering
// is the vocabulary's order, used in normalization keys; adding a token
// requires a new vocabulary version.
type Name uint8

// The argument predicates of toolgate.argument-predicates/1, in order.
const (
	IntegerAtMost Name = 1 + iota
	IntegerAtLeast
	IntegerIn
	StringEquals
	StringIn
	StringHasPrefix
	StringHasSuffix
	OctetLengthAtMost
	OctetLengthAtLeast
	ElementCountAtMost
	ElementCountAtLeast
	PathWithin
	URLIn
	EmailDomainIn
	maxName
)

var names = [...]string{
	IntegerAtMost:       "integerAtMost",
	IntegerAtLeast:      "integerAtLeast",
	IntegerIn:           "integerIn",
	StringEquals:        "stringEquals",
	StringIn:            "stringIn",
	StringHasPrefix:     "stringHasPrefix",
	StringHasSuffix:     "stringHasSuffix",
	OctetLengthAtMost:   "octetLengthAtMost",
	OctetLengthAtLeast:  "octetLengthAtLeast",
	ElementCountAtMost:  "elementCountAtMost",
	ElementCountAtLeast: "elementCountAtLeast",
	PathWithin:          "pathWithin",
	URLIn:               "urlIn",
	EmailDomainIn:       "emailDomainIn",
}

// IsValid reports whether n is a token of the vocabulary.
func (n Name) IsValid() bool { return n > 0 && n < maxName }

// String returns the exact token; "invalid" for a value outside the
// vocabulary.
func (n Name) String() string {
	if !n.IsValid() {
		return "invalid"
	}
	return names[n]
}

// ParseName returns the token s exactly (case-sensitive, no aliases).
func ParseName(s string) (Name, error) {
	for n := IntegerAtMost; n < maxName; n++ {
		if names[n] == s {
			return n, nil
		}
	}
	return 0, fault.New(fault.UnknownToken, "an argument predicate is one of the toolgate.argument-predicates/1 names")
}

// AllNames returns every token in vocabulary order.
func AllNames() []Name {
	out := make([]Name, 0, maxName-1)
	for n := IntegerAtMost; n < maxName; n++ {
		out = append(out, n)
	}
	return out
}
