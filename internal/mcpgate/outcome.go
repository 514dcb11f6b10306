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
	// "timeout", "outputSchema" (completed, result withheld),
	// "noOutcomeRecorded".
	Reason string `json:"reason,omitempty"`
}

// OutcomeLog appends Records to one file.
type OutcomeLog struct {
	mu sync.Mutex
	f  *os.File
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
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.f.Write(b)
	return err
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
