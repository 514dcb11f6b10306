// Package jsonerr is the rejection shared by toolgate's two JSON codecs:
// internal/jsonexact (the occurrence-preserving decoder of Tool arguments)
// and internal/agentsafe (the agent-safe.intent/1 canonical form). Each
// codec keeps its own closed set of reasons; this package gives both the one
// error shape: a reason and the byte offset in the input where it was found,
// with fixed text that never quotes the input.
package jsonerr

import "strconv"

// Reason is a codec's closed set of rejection codes.
type Reason interface {
	comparable
	// String is the stable lowerCamel token, or "Code(N)" outside the set.
	String() string
	// Sentence is the fixed human text of the reason; false outside the set.
	Sentence() (string, bool)
	// Codec names the rejecting package; every message starts with it.
	Codec() string
}

// Error is a codec's rejection. Offset is the byte offset in the input where
// the problem was detected, or -1 when the error has no input position (an
// accessor on a decoded value, a programmatic value, a size limit on the
// output).
type Error[R Reason] struct {
	Code   R
	Offset int64
}

// Error returns "<codec>: <sentence>[ at byte N]". It never quotes input, so
// it is safe to log and to print as a CLI one-liner.
func (e *Error[R]) Error() string {
	if e == nil {
		var r R
		return r.Codec() + ": <nil>"
	}
	msg := e.Code.Codec() + ": "
	if s, ok := e.Code.Sentence(); ok {
		msg += s
	} else {
		msg += "unknown error " + e.Code.String()
	}
	if e.Offset >= 0 {
		msg += " at byte " + strconv.FormatInt(e.Offset, 10)
	}
	return msg
}

// Is reports whether target is an *Error of the same codec with the same
// Code, whatever the offsets, so errors.Is(err, codec.ErrX) matches every
// rejection for reason X.
func (e *Error[R]) Is(target error) bool {
	t, ok := target.(*Error[R])
	return ok && e != nil && t != nil && e.Code == t.Code
}

// At returns a fresh rejection for c found at byte off.
func At[R Reason](c R, off int) *Error[R] { return &Error[R]{Code: c, Offset: int64(off)} }

// Sentinel returns the errors.Is target of c: no offset, matched by Code
// alone, so a codec's ErrX and CodeX never disagree.
func Sentinel[R Reason](c R) *Error[R] { return &Error[R]{Code: c, Offset: -1} }

// Text is the stable token and the fixed sentence of one reason. A codec
// keeps a table of them indexed by its Code; index 0, the zero Code, is
// empty and never a reason.
type Text struct{ Token, Sentence string }

// Token returns the token of reason c in table, or "Code(N)" when c is
// outside it: the String method of a codec's Code.
func Token(table []Text, c uint8) string {
	if t, ok := lookup(table, c); ok {
		return t.Token
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// Sentence returns the sentence of reason c in table; false when c is
// outside it: the Sentence method of a codec's Code.
func Sentence(table []Text, c uint8) (string, bool) {
	t, ok := lookup(table, c)
	return t.Sentence, ok
}

func lookup(table []Text, c uint8) (Text, bool) {
	if c == 0 || int(c) >= len(table) {
		return Text{}, false
	}
	return table[c], true
}
