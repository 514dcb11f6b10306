// Package fault defines the one error type every engine transition returns
// when it rejects input (spec Sections 33, 37 and 38).
//
// A rejection carries a closed, stable reason [Code], the path of the
// offending field within the value being checked, and the rule that was
// violated. The rule is a constant sentence owned by the engine: an Error
// never contains a rejected value, so it is safe to log, to return to a
// caller and to write into a status field.
package fault

import (
	"errors"
	"strconv"
	"strings"
)

// Code is a closed, stable reason code. Its String form is the token that
// appears in API responses and status conditions; tokens never change meaning.
type Code uint8

const (
	// Malformed: a value violates its grammar (Section 49).
	Malformed Code = 1 + iota
	// UnknownToken: a value is not a member of its closed vocabulary (Section 48).
	UnknownToken
	// Duplicate: a collection that must be unique repeats a member.
	Duplicate
	// LimitExceeded: a deterministic limit of Section 39 is exceeded.
	LimitExceeded
	// Missing: a required value is absent.
	Missing
	// UnknownField: an object carries a field its closed Schema does not declare.
	UnknownField
	// KindMismatch: a value's kind differs from the declared kind; no coercion exists.
	KindMismatch
	// OutOfRange: a value lies outside its exact domain.
	OutOfRange
	// NotFound: an exact lookup found nothing; there is no fallback.
	NotFound
	// Ineligible: a lifecycle state forbids the operation (for example, retired).
	Ineligible
	// Mismatch: a bound value differs from its exact expectation.
	Mismatch
	// MixedDomain: values from different Host authority domains were combined.
	MixedDomain
	// Unsupported: a version or form outside the accepted protocol baseline.
	Unsupported
	// Disordered: a collection is not in its deterministic order (Section 50).
	Disordered
	// Unauthorized: the acting Role Authority does not hold the role this
	// transition or fact class requires (role substitution, Section 14).
	Unauthorized
	// Expired: evidence is not valid at the explicit time: not yet valid, or
	// at or after its exclusive expiry (stale).
	Expired

	maxCode
)

var codeTokens = [...]string{
	Malformed:     "malformed",
	UnknownToken:  "unknownToken",
	Duplicate:     "duplicate",
	LimitExceeded: "limitExceeded",
	Missing:       "missing",
	UnknownField:  "unknownField",
	KindMismatch:  "kindMismatch",
	OutOfRange:    "outOfRange",
	NotFound:      "notFound",
	Ineligible:    "ineligible",
	Mismatch:      "mismatch",
	MixedDomain:   "mixedDomain",
	Unsupported:   "unsupported",
	Disordered:    "disordered",
	Unauthorized:  "unauthorized",
	Expired:       "expired",
}

// IsValid reports whether c is a member of the closed code set.
func (c Code) IsValid() bool { return c > 0 && c < maxCode }

// String returns the stable token for c.
func (c Code) String() string {
	if !c.IsValid() {
		return "invalidCode"
	}
	return codeTokens[c]
}

// Codes returns every code in its deterministic order.
func Codes() []Code {
	cs := make([]Code, 0, maxCode-1)
	for c := Code(1); c < maxCode; c++ {
		cs = append(cs, c)
	}
	return cs
}

// Error is a typed engine rejection.
type Error struct {
	// Code is the closed reason code.
	Code Code
	// Path locates the offending value, for example
	// "definitions[2].schema.fields.amount". It is built only from reviewed
	// names (Schema field names, API field names) and indices, never from
	// rejected input.
	Path string
	// Rule is a constant description of the violated rule, written to tell a
	// user what to fix. It never contains input.
	Rule string
}

// New returns an Error with no path.
func New(code Code, rule string) *Error {
	return &Error{Code: code, Rule: rule}
}

// At returns an Error at path.
func At(path string, code Code, rule string) *Error {
	return &Error{Code: code, Path: path, Rule: rule}
}

// Error implements error: "engine: <path>: <code>: <rule>".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("engine: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Code.String())
	if e.Rule != "" {
		b.WriteString(": ")
		b.WriteString(e.Rule)
	}
	return b.String()
}

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, fault.ErrDuplicate) matches every duplicate rejection.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Path == "" && t.Rule == ""
}

// Sentinels for errors.Is, one per code. The Code is the one identifier of
// a reason: each sentinel is derived from its Code (sentinel) and matches by
// Code alone (Is), so ErrX and X never disagree.
var (
	ErrMalformed     = sentinel(Malformed)
	ErrUnknownToken  = sentinel(UnknownToken)
	ErrDuplicate     = sentinel(Duplicate)
	ErrLimitExceeded = sentinel(LimitExceeded)
	ErrMissing       = sentinel(Missing)
	ErrUnknownField  = sentinel(UnknownField)
	ErrKindMismatch  = sentinel(KindMismatch)
	ErrOutOfRange    = sentinel(OutOfRange)
	ErrNotFound      = sentinel(NotFound)
	ErrIneligible    = sentinel(Ineligible)
	ErrMismatch      = sentinel(Mismatch)
	ErrMixedDomain   = sentinel(MixedDomain)
	ErrUnsupported   = sentinel(Unsupported)
	ErrDisordered    = sentinel(Disordered)
	ErrUnauthorized  = sentinel(Unauthorized)
	ErrExpired       = sentinel(Expired)
)

// sentinel derives the errors.Is target of c: no path, no rule.
func sentinel(c Code) *Error { return &Error{Code: c} }

// Within prefixes the path of the *Error in err's chain with prefix, so a
// caller can locate a rejection produced by a lower layer. The *Error is
// found with errors.As, so a wrapped rejection keeps its code and gets the
// prefix too; the result is then a copy of that *Error alone: wrapping
// context is dropped, because only an *Error's text is known to echo no
// input. Errors with no *Error in their chain are returned unchanged. The
// original error is not modified. An Errors keeps every member, each prefixed.
func Within(prefix string, err error) error {
	var e *Error
	if prefix == "" || !errors.As(err, &e) {
		return err
	}
	var l Errors
	if errors.As(err, &l) {
		var out Errors
		out.Add(prefix, l)
		return out.Err()
	}
	c := *e
	c.Path = Join(prefix, e.Path)
	return &c
}

// Join joins two path segments; an index segment ("[3]") attaches without a dot.
func Join(prefix, rest string) string {
	switch {
	case prefix == "":
		return rest
	case rest == "":
		return prefix
	case rest[0] == '[':
		return prefix + rest
	default:
		return prefix + "." + rest
	}
}

// CodeOf returns the Code of the first *Error in err's chain (errors.As),
// and 0 when there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// Index returns the path segment of collection member i: "[i]". The
// segments of the first members are built once, so that naming them
// allocates nothing.
func Index(i int) string {
	if i >= 0 && i < len(indexSegments) {
		return indexSegments[i]
	}
	return "[" + strconv.Itoa(i) + "]"
}

var indexSegments = func() (out [256]string) {
	for i := range out {
		out[i] = "[" + strconv.Itoa(i) + "]"
	}
	return out
}()
