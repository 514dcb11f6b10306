package mcpgate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/jsonlex"
)

// Outcome values of a consumed call.
const (
	OutcomeCompleted = "completed" // the upstream answered with a result
	OutcomeFailed    = "failed"    // the upstream answered with an error
	OutcomeUncertain = "uncertain" // no answer after Consumption: the side effect may or may not have happened
)

// Record is one line of the outcome log. Event "consumed" is written after
// the Consumption and before the call is forwarded; event "outcome" when
// the upstream answered or the gateway gave up. A "consumed" line without
// its "outcome" line (the gateway died in between) reads as uncertain. No
// argument value, artifact or result content is ever recorded.
type Record struct {
	Time            time.Time `json:"time"`
	Event           string    `json:"event"`
	Tool            string    `json:"tool"`
	ToolID          string    `json:"toolID"`
	Version         string    `json:"version"`
	AuthorizationID string    `json:"authorizationID"`
	ConsumptionID   string    `json:"consumptionID"`
	Binding         string    `json:"binding"`
	Outcome         string    `json:"outcome,omitempty"`
	// Reason says why: "upstreamError", "toolError", "transport",
	// "timeout", "outputSchema" (failed: the tool ran, its result was
	// withheld),
	// "noOutcomeRecorded".
	Reason string `json:"reason,omitempty"`
}

// OutcomeLog appends Records to one file. Lines are written, not synced:
// a line reaches the kernel before Write returns, so it survives the
// gateway's own crash (the case the kill test makes), but not a
// crash of the host (docs/decisions.md, "The MCP gateway: latency").
type OutcomeLog struct {
	mu  sync.Mutex
	f   *os.File
	buf []byte // one line, reused under mu
}

// OpenOutcomeLog opens (creating) the outcome log for appending.
func OpenOutcomeLog(path string) (*OutcomeLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("outcome log: %w", err)
	}
	return &OutcomeLog{f: f}, nil
}

// Write appends one record as one line (one write call, O_APPEND).
func (l *OutcomeLog) Write(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = appendRecord(l.buf[:0], &r)
	_, err := l.f.Write(l.buf)
	return err
}

// appendRecord appends r as one JSON line, the JSON encoding/json.Marshal
// writes for a Record (same members, order and omitempty; strings quoted
// by jsonlex as encoding/json quotes them), without reflection
// on the forwarded path (TestAnOutcomeLineDecodesAsEncodingJSONsDoes,
// FuzzOutcomeLine).
func appendRecord(b []byte, r *Record) []byte {
	b = append(b, `{"time":"`...)
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","event":`...)
	b = jsonlex.AppendString(b, r.Event, jsonlex.HTMLSafe)
	b = append(b, `,"tool":`...)
	b = jsonlex.AppendString(b, r.Tool, jsonlex.HTMLSafe)
	b = append(b, `,"toolID":`...)
	b = jsonlex.AppendString(b, r.ToolID, jsonlex.HTMLSafe)
	b = append(b, `,"version":`...)
	b = jsonlex.AppendString(b, r.Version, jsonlex.HTMLSafe)
	b = append(b, `,"authorizationID":`...)
	b = jsonlex.AppendString(b, r.AuthorizationID, jsonlex.HTMLSafe)
	b = append(b, `,"consumptionID":`...)
	b = jsonlex.AppendString(b, r.ConsumptionID, jsonlex.HTMLSafe)
	b = append(b, `,"binding":`...)
	b = jsonlex.AppendString(b, r.Binding, jsonlex.HTMLSafe)
	if r.Outcome != "" {
		b = append(b, `,"outcome":`...)
		b = jsonlex.AppendString(b, r.Outcome, jsonlex.HTMLSafe)
	}
	if r.Reason != "" {
		b = append(b, `,"reason":`...)
		b = jsonlex.AppendString(b, r.Reason, jsonlex.HTMLSafe)
	}
	return append(b, "}\n"...)
}

// Close closes the file.
func (l *OutcomeLog) Close() error { return l.f.Close() }

// ReadOutcomes reads outcome logs and returns one record per consumed
// call, in the order of their Consumption: its outcome, or uncertain
// (reason noOutcomeRecorded) when none was written.
func ReadOutcomes(r io.Reader) ([]Record, error) {
	var order []string
	calls := map[string]*Record{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("outcome log line %d: not a record", line)
		}
		key := rec.Binding
		switch rec.Event {
		case "consumed":
			if _, ok := calls[key]; !ok {
				order = append(order, key)
			}
			rec.Event, rec.Outcome, rec.Reason = "outcome", OutcomeUncertain, "noOutcomeRecorded"
			c := rec
			calls[key] = &c
		case "outcome":
			if _, ok := calls[key]; !ok {
				order = append(order, key)
			}
			c := rec
			calls[key] = &c
		default:
			return nil, fmt.Errorf("outcome log line %d: unknown event", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(order))
	for _, k := range order {
		out = append(out, *calls[k])
	}
	return out, nil
}

// ErrNoLog is returned when no outcome log was given.
var ErrNoLog = errors.New("no outcome log given")
