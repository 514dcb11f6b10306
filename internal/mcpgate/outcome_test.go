package mcpgate

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// sameAsEncodingJSON fails unless the line appendRecord writes for r is one
// JSON object on one line that decodes to exactly what encoding/json's
// encoding of r decodes to.
func sameAsEncodingJSON(t *testing.T, r Record) {
	t.Helper()
	line := appendRecord(nil, &r)
	if n := len(line); n == 0 || line[n-1] != '\n' {
		t.Fatalf("%q does not end in one newline", line)
	}
	for _, c := range line[:len(line)-1] {
		if c == '\n' {
			t.Fatalf("%q spans lines", line)
		}
	}
	if !json.Valid(line) || !utf8.Valid(line) {
		t.Fatalf("%q is not JSON in UTF-8", line)
	}
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got, exp map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &exp); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(exp, got); d != "" {
		t.Fatalf("the line decodes differently from encoding/json's (-encoding/json +line):\n%s", d)
	}
}

func TestAnOutcomeLineDecodesAsEncodingJSONsDoes(t *testing.T) {
	when := time.Date(2026, 12, 1, 23, 30, 0, 123456789, time.UTC)
	for name, r := range map[string]Record{
		"a consumed line, no outcome or reason": {Time: when, Event: "consumed", Tool: "submit_payment", ToolID: "payments.submit",
			Version: "1", AuthorizationID: "authz-1", ConsumptionID: "c-1", Binding: "sha256:00ff"},
		"an outcome line with its reason":                       {Time: when, Event: "outcome", Tool: "t", Binding: "b", Outcome: OutcomeUncertain, Reason: "timeout"},
		"the zero record":                                       {},
		"quotes, backslashes and control characters":            {Tool: "a\"b\\c\nd\re\tf\x00g\x1fh\x7f"},
		"invalid UTF-8 reads as U+FFFD":                         {AuthorizationID: "a\xffb\xc3", ConsumptionID: "\xed\xa0\x80"},
		"multi-byte UTF-8, HTML characters and line separators": {Tool: "zahlung-ü-支払い-<&>-\u2028\u2029-😀"},
		"a time with a zone and no fraction":                    {Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))},
	} {
		t.Run(name, func(t *testing.T) { sameAsEncodingJSON(t, r) })
	}
}

func FuzzOutcomeLine(f *testing.F) {
	f.Add("consumed", "submit_payment", "authz-1", "sha256:00", "", "", int64(0))
	f.Add("outcome", "a\"b\\c\n", "\xff\xfe", "\u2028<>&", OutcomeFailed, "toolError", int64(1764631800123456789))
	f.Fuzz(func(t *testing.T, event, tool, id, binding, outcome, reason string, nanos int64) {
		sameAsEncodingJSON(t, Record{Time: time.Unix(0, nanos).UTC(), Event: event, Tool: tool, ToolID: tool + "x",
			Version: reason, AuthorizationID: id, ConsumptionID: id + binding, Binding: binding, Outcome: outcome, Reason: reason})
	})
}
