package policy

import (
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// Obligation is one inert, closed structured requirement (Section 27). It
// grants no authority and invokes no behavior; issuance decides what each
// kind means.
type Obligation struct {
	kind     vocab.ObligationKind
	seconds  uint64             // maximumEvaluationAgeSeconds only
	boundary ident.ControlledID // requireCompleteInfluenceBoundary only
	key      string
}

// Kind returns the obligation kind.
func (o Obligation) Kind() vocab.ObligationKind { return o.kind }

// Seconds returns the maximum evaluation age; 0 for other kinds.
func (o Obligation) Seconds() uint64 { return o.seconds }

// Boundary returns the Influence collection boundary that must be complete;
// zero for other kinds.
func (o Obligation) Boundary() ident.ControlledID { return o.boundary }

// Key returns the Section 50 ordering key: "0", "1:<decimal seconds>",
// "2:<boundary identity>", "3" or "4". Obligation collections are ordered by
// ASCII comparison of this key, so seconds compare lexically within kind 1.
func (o Obligation) Key() string { return o.key }

// IsZero reports whether o is the invalid zero Obligation.
func (o Obligation) IsZero() bool { return o.kind == 0 }

func compareObligations(a, b Obligation) int { return strings.Compare(a.key, b.key) }

// newObligation validates one obligation draft. Operand fields that the kind
// does not take reject rather than being ignored.
func newObligation(d ObligationDraft) (Obligation, error) {
	kind, err := vocab.ParseObligationKind(d.Kind)
	if err != nil {
		return Obligation{}, fault.Within("kind", err)
	}
	o := Obligation{kind: kind}
	order := string(rune('0' + kind - 1))
	if kind != vocab.ObligationMaximumEvaluationAge && d.Seconds != "" {
		return Obligation{}, fault.At("seconds", fault.UnknownField, "only maximumEvaluationAgeSeconds takes seconds")
	}
	if kind != vocab.ObligationRequireCompleteInfluenceBoundary && d.Boundary != "" {
		return Obligation{}, fault.At("boundary", fault.UnknownField, "only requireCompleteInfluenceBoundary takes a boundary")
	}
	switch kind {
	case vocab.ObligationMaximumEvaluationAge:
		s, err := parseDecimal(d.Seconds, MaxEvaluationAgeSeconds, "maximum evaluation age is a canonical decimal from 1 to 3600 seconds")
		if err != nil {
			return Obligation{}, fault.Within("seconds", err)
		}
		if s == 0 {
			return Obligation{}, fault.At("seconds", fault.OutOfRange, "maximum evaluation age is a canonical decimal from 1 to 3600 seconds")
		}
		o.seconds = s
		o.key = order + ":" + d.Seconds
	case vocab.ObligationRequireCompleteInfluenceBoundary:
		b, err := ident.ParseControlledID(d.Boundary)
		if err != nil {
			return Obligation{}, fault.Within("boundary", err)
		}
		o.boundary = b
		o.key = order + ":" + b.String()
	default:
		o.key = order
	}
	return o, nil
}

// newObligations validates 0–8 unique obligations and returns them in key
// order.
func newObligations(ds []ObligationDraft) ([]Obligation, error) {
	if len(ds) > MaxRuleObligations {
		return nil, fault.At("obligations", fault.LimitExceeded, "a rule has at most 8 obligations")
	}
	if len(ds) == 0 {
		return nil, nil
	}
	// Every obligation is checked, so that publication reports every
	// violation at its path.
	var errs fault.Errors
	out := make([]Obligation, 0, len(ds))
	for i, d := range ds {
		o, err := newObligation(d)
		if err != nil {
			errs.Add("obligations"+fault.Index(i), err)
			continue
		}
		if slices.ContainsFunc(out, func(x Obligation) bool { return x.key == o.key }) {
			errs.Add("", fault.At("obligations"+fault.Index(i), fault.Duplicate, "obligations of a rule are unique"))
			continue
		}
		out = append(out, o)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, compareObligations)
	return out, nil
}

// parseDecimal parses canonical unsigned decimal text ("0" or a nonzero digit
// followed by digits) no greater than max.
func parseDecimal(s string, max uint64, rule string) (uint64, error) {
	if s == "" || len(s) > 20 || (s[0] == '0' && len(s) > 1) {
		return 0, fault.New(fault.Malformed, rule)
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fault.New(fault.Malformed, rule)
		}
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return 0, fault.New(fault.OutOfRange, rule)
		}
		v = v*10 + d
	}
	if v > max {
		return 0, fault.New(fault.OutOfRange, rule)
	}
	return v, nil
}
