package server

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestEntryJSONIsEncodingJSON: the hand-written line is byte for byte what
// encoding/json marshals, for entries with every field empty or set and
// strings of escapes, control characters, HTML characters, invalid UTF-8
// and line separators.
func TestEntryJSONIsEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"", "a", "é", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "sha256:0a", "/"}
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		s := ""
		for range r.IntN(5) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	list := func() []string {
		var out []string
		for range r.IntN(3) {
			out = append(out, str())
		}
		return out
	}
	for range 5000 {
		e := Entry{Time: r.Int64() - r.Int64(), Verb: str(), Caller: str(), Namespace: str(), HostAuthority: str(),
			DecisionID: str(), Outcome: str(), Reasons: list(), MatchedRules: list(), AuthorizationID: str(),
			Binding: str(), Result: str(), Code: str(), Path: str()}
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
}
