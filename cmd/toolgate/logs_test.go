package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/logtime"
	"github.com/toolgate/toolgate/internal/server"
)

// TestEveryLogWritesOneTimeFormat: the process log (serve, mcp gateway),
// the manager's log and the decision log write their "time" field in
// logtime.Layout, in UTC, so one parser reads every line.
func TestEveryLogWritesOneTimeFormat(t *testing.T) {
	t.Parallel()
	const decided = 1796083200 // a decision's Unix time
	tests := map[string]struct {
		write func(*bytes.Buffer)
		want  time.Time // zero: the clock's now
	}{
		"the process log": {write: func(b *bytes.Buffer) { processLogger(b).Info("started") }},
		"the manager's log": {write: func(b *bytes.Buffer) {
			managerLogger(b).Info("started")
		}},
		"the decision log": {write: func(b *bytes.Buffer) {
			l := server.NewDecisionLog(b, 1, true)
			l.Write(server.Entry{Time: decided, Verb: "authorize", Result: "issued"})
			l.Close()
		}, want: time.Unix(decided, 0)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			before := time.Now().Add(-time.Second)
			tc.write(&b)
			var line map[string]any
			if err := json.Unmarshal(bytes.SplitN(b.Bytes(), []byte("\n"), 2)[0], &line); err != nil {
				t.Fatalf("not one JSON line: %q: %v", b.String(), err)
			}
			s, ok := line["time"].(string)
			if !ok {
				t.Fatalf("no string time field: %q", b.String())
			}
			at, err := time.Parse(logtime.Layout, s)
			if err != nil || at.Location() != time.UTC || logtime.Format(at) != s {
				t.Fatalf("time %q is not UTC in %s: %v", s, logtime.Layout, err)
			}
			if !tc.want.IsZero() && !at.Equal(tc.want) {
				t.Errorf("time %q, want %s", s, logtime.Format(tc.want))
			}
			if tc.want.IsZero() && at.Before(before) {
				t.Errorf("time %q is not the clock's now", s)
			}
		})
	}
}
