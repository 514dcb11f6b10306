package jsonerr_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonerr"
)

// code and other are two codecs' closed sets, as jsonexact and agentsafe
// define theirs.
type code uint8

func (c code) String() string {
	if c != 1 {
		return "Code(" + strconv.Itoa(int(c)) + ")"
	}
	return "duplicateKey"
}

func (c code) Sentence() (string, bool) { return "duplicate key", c == 1 }
func (code) Codec() string              { return "codec" }

type other uint8

func (other) String() string           { return "duplicateKey" }
func (other) Sentence() (string, bool) { return "duplicate key", true }
func (other) Codec() string            { return "other" }

func TestErrorTextNeverQuotesInput(t *testing.T) {
	t.Parallel()
	var nilErr *jsonerr.Error[code]
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"a positioned rejection names the byte": {jsonerr.At(code(1), 7), "codec: duplicate key at byte 7"},
		"offset zero is a position":             {jsonerr.At(code(1), 0), "codec: duplicate key at byte 0"},
		"a sentinel has no position":            {jsonerr.Sentinel(code(1)), "codec: duplicate key"},
		"a code outside the set is named":       {jsonerr.At(code(9), 1), "codec: unknown error Code(9) at byte 1"},
		"a nil error names its codec":           {nilErr, "codec: <nil>"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIsMatchesByCodeAndCodecOnly(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("decoding: %w", jsonerr.At(code(1), 42))
	if !errors.Is(err, jsonerr.Sentinel(code(1))) {
		t.Error("a wrapped rejection does not match its reason's sentinel")
	}
	if errors.Is(err, jsonerr.Sentinel(code(2))) {
		t.Error("a rejection matches another reason's sentinel")
	}
	if errors.Is(err, jsonerr.Sentinel(other(1))) {
		t.Error("a rejection matches another codec's sentinel with the same number")
	}
	var e *jsonerr.Error[code]
	if !errors.As(err, &e) || e.Offset != 42 {
		t.Errorf("errors.As = %v, want the rejection at byte 42", e)
	}
}

func TestTableLookupRejectsOutsideTheSet(t *testing.T) {
	t.Parallel()
	table := []jsonerr.Text{1: {Token: "syntax", Sentence: "invalid JSON syntax"}}
	if got := jsonerr.Token(table, 1); got != "syntax" {
		t.Errorf("Token(1) = %q, want syntax", got)
	}
	for _, c := range []uint8{0, 2, 255} {
		if got, want := jsonerr.Token(table, c), "Code("+strconv.Itoa(int(c))+")"; got != want {
			t.Errorf("Token(%d) = %q, want %q", c, got, want)
		}
		if s, ok := jsonerr.Sentence(table, c); ok || s != "" {
			t.Errorf("Sentence(%d) = %q, %v; want no sentence", c, s, ok)
		}
	}
}
