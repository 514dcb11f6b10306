package fault

import (
	"errors"
	"strings"
)

// Errors is every rejection found in one input, in the order found: a
// publication reports all its violations, not only the first. Each member is
// an *Error, so Errors echoes no input either. errors.Is and errors.As see
// every member (Unwrap() []error): errors.Is(err, ErrDuplicate) matches when
// any member is a duplicate, and errors.As(err, &e) finds the first member.
type Errors []*Error

// Error implements error: the members' texts joined by "; ".
func (l Errors) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the members, for errors.Is and errors.As.
func (l Errors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Add appends every rejection of err, its paths prefixed with prefix (see
// Within). An Errors contributes all its members; any other error contributes
// the *Error in its chain. An error with no *Error in its chain is kept as a
// malformed rejection at prefix, because its text is not known to be
// echo-free; a nil err adds nothing.
func (l *Errors) Add(prefix string, err error) {
	if err == nil {
		return
	}
	for _, e := range All(err) {
		c := *e
		c.Path = Join(prefix, e.Path)
		*l = append(*l, &c)
	}
}

// Err returns nil when l is empty, its only member when it has one, and l
// otherwise.
func (l Errors) Err() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	default:
		return l
	}
}

// All returns every rejection in err: the members of an Errors in its chain,
// or the one *Error in its chain. An error with neither is reported as one
// malformed rejection with no path (its text may echo input); nil has none.
func All(err error) []*Error {
	if err == nil {
		return nil
	}
	var l Errors
	if errors.As(err, &l) {
		return append([]*Error(nil), l...)
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return []*Error{{Code: Malformed, Rule: "the input was rejected"}}
}
