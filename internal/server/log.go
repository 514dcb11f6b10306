package server

import (
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
)

// Entry is one decision-log line. It holds identities, digests, outcomes
// and reason codes; never argument values, prompts, bindings or tokens.
type Entry struct {
	Time            int64    `json:"time"`
	Verb            string   `json:"verb"`
	Caller          string   `json:"caller,omitempty"`
	Namespace       string   `json:"namespace,omitempty"`
	HostAuthority   string   `json:"hostAuthority,omitempty"`
	DecisionID      string   `json:"decisionID,omitempty"`
	Outcome         string   `json:"outcome,omitempty"`
	Reasons         []string `json:"reasons,omitempty"`
	MatchedRules    []string `json:"matchedRules,omitempty"`
	AuthorizationID string   `json:"authorizationID,omitempty"`
	Binding         string   `json:"binding,omitempty"`
	Result          string   `json:"result"`
	Code            string   `json:"code,omitempty"`
	Path            string   `json:"path,omitempty"`
}

// DecisionLog writes one JSON line per request. By default it never blocks
// the request path: lines go through a bounded buffer to a writer
// goroutine, and a line that finds the buffer full is dropped and counted
// (Dropped answers "how blind are we"). In synchronous mode every line is
// written before the response.
type DecisionLog struct {
	w           io.Writer
	synchronous bool
	lines       chan []byte
	dropped     atomic.Uint64
	mu          sync.Mutex // serializes synchronous writes
	done        chan struct{}
}

// NewDecisionLog logs to w through a buffer of size lines, or synchronously.
func NewDecisionLog(w io.Writer, size int, synchronous bool) *DecisionLog {
	l := &DecisionLog{w: w, synchronous: synchronous, done: make(chan struct{})}
	if synchronous {
		close(l.done)
		return l
	}
	l.lines = make(chan []byte, max(size, 1))
	go func() {
		defer close(l.done)
		for line := range l.lines {
			if _, err := l.w.Write(line); err != nil {
				l.dropped.Add(1)
			}
		}
	}()
	return l
}

// Write logs e.
func (l *DecisionLog) Write(e Entry) {
	if l == nil {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		l.dropped.Add(1)
		return
	}
	line = append(line, '\n')
	if l.synchronous {
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, err := l.w.Write(line); err != nil {
			l.dropped.Add(1)
		}
		return
	}
	select {
	case l.lines <- line:
	default:
		l.dropped.Add(1)
	}
}

// Dropped returns the number of lines lost so far.
func (l *DecisionLog) Dropped() uint64 {
	if l == nil {
		return 0
	}
	return l.dropped.Load()
}

// Close flushes the buffered lines and stops the writer. Write must not be
// called after Close.
func (l *DecisionLog) Close() {
	if l == nil {
		return
	}
	if !l.synchronous {
		close(l.lines)
	}
	<-l.done
}
