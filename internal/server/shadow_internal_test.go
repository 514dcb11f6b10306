package server

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestShadowEntryJSONIsEncodingJSON: an entry with a shadow record is
// written exactly as encoding/json would write it.
func TestShadowEntryJSONIsEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 4))
	pieces := []string{"", "a", "é", "\"", "\\", "\n", "\x00", "<", "&", "\u2028", "\xff", "deny-x"}
	str := func() string {
		s := ""
		for range r.IntN(3) {
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
	for range 2000 {
		e := Entry{Time: UnixTime(r.Int64N(1 << 40)), Verb: "authorize", Result: str(), Outcome: str()}
		if r.IntN(4) != 0 {
			e.Shadow = &ShadowEntry{Generation: str(), Tool: str(), Outcome: str(), Changed: r.IntN(2) == 0,
				RulesAdded: list(), RulesRemoved: list(), ReasonsAdded: list(), ReasonsRemoved: list(),
				CapabilitiesAdded: list(), CapabilitiesRemoved: list(), ResourcesAdded: list(), ResourcesRemoved: list(),
				ObligationsAdded: list(), ObligationsRemoved: list(), Code: str(), Path: str()}
		}
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
}
