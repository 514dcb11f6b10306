package server

import (
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/jsonlex"
	"github.com/toolgate/toolgate/internal/logtime"
)

// Entry is one decision-log line. It holds identities, digests, outcomes
// and reason codes; never argument values, prompts, bindings or tokens.
type Entry struct {
	Time          UnixTime `json:"time"`
	Verb          string   `json:"verb"`
	Caller        string   `json:"caller,omitempty"`
	Namespace     string   `json:"namespace,omitempty"`
	HostAuthority string   `json:"hostAuthority,omitempty"`
	// Selection is an authorize's exact selection, once made: "REGISTRY@GEN
	// POLICY-SNAPSHOT@GEN POLICY@GEN", every "current" resolved (the policy
	// version only when the snapshot holds it).
	Selection       string   `json:"selection,omitempty"`
	DecisionID      string   `json:"decisionID,omitempty"`
	Outcome         string   `json:"outcome,omitempty"`
	Reasons         []string `json:"reasons,omitempty"`
	MatchedRules    []string `json:"matchedRules,omitempty"`
	AuthorizationID string   `json:"authorizationID,omitempty"`
	Binding         string   `json:"binding,omitempty"`
	// Confirmation is the confirmation binding's digest and Requester who
	// asked for it, on every step of a confirmation (docs/confirmation.md);
	// Caller is then who acted (asked, approved, denied, listed, used).
	Confirmation string `json:"confirmation,omitempty"`
	Requester    string `json:"requester,omitempty"`
	Result       string `json:"result"`
	Code         string `json:"code,omitempty"`
	Path         string `json:"path,omitempty"`
	// Shadow records the shadow generation evaluated beside an authorize
	// that selected the current generation (shadow.go).
	Shadow *ShadowEntry `json:"shadow,omitempty"`
}

// UnixTime is a decision-log time in Unix seconds, written as a string in
// logtime.Layout (UTC), the one time format of toolgate's logs.
type UnixTime int64

// MarshalJSON writes t as a JSON string in logtime.Layout.
func (t UnixTime) MarshalJSON() ([]byte, error) {
	return append(logtime.AppendUnix([]byte{'"'}, int64(t)), '"'), nil
}

// UnmarshalJSON reads a time written by MarshalJSON, for tools reading
// the log back.
func (t *UnixTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(logtime.Layout, s)
	if err != nil {
		return errors.New("decision log: time is not in the log time layout")
	}
	*t = UnixTime(v.Unix())
	return nil
}

// DecisionLog writes one JSON line per request. By default it never blocks
// the request path: lines go through a bounded buffer to a writer
// goroutine, and a line that finds the buffer full is dropped and counted
// (Dropped answers "how blind are we"). The writer writes the lines that
// are waiting in one write (at most maxBatch octets), so under load the
// log costs one system call per batch, not per request. In synchronous
// mode every line is written before the response.
//
// A drop is visible in the log itself, not only in the metric: the next
// write begins with a line {"time":…,"verb":"dropped","dropped":N,…}
// counting the lines lost since the last such line, and Close writes one for
// the lines lost after the last write (docs/decisions.md, "A tamper-evident
// decision log").
type DecisionLog struct {
	w           io.Writer
	synchronous bool
	lines       chan *[]byte // from pool
	pool        sync.Pool    // of *[]byte
	dropped     atomic.Uint64
	// logged is the part of dropped that drop lines in the log account
	// for; the writer goroutine owns it (mu in synchronous mode).
	logged uint64
	clock  func() time.Time // dates the drop lines
	mu     sync.Mutex       // serializes synchronous writes
	done   chan struct{}
}

// maxBatch bounds the octets the writer goroutine gathers into one write.
const maxBatch = 64 << 10

// NewDecisionLog logs to w through a buffer of size lines, or synchronously.
func NewDecisionLog(w io.Writer, size int, synchronous bool) *DecisionLog {
	l := &DecisionLog{w: w, synchronous: synchronous, done: make(chan struct{}), clock: time.Now}
	l.pool.New = func() any { b := make([]byte, 0, 512); return &b }
	if synchronous {
		close(l.done)
		return l
	}
	l.lines = make(chan *[]byte, max(size, 1))
	go l.writer()
	return l
}

// writer writes the queued lines in order, gathering those already waiting
// into one write; a failed write counts each of its lines as dropped.
func (l *DecisionLog) writer() {
	defer close(l.done)
	var batch []byte
	for line := range l.lines {
		n, open := uint64(1), true
		var accounted uint64
		batch, accounted = l.appendDrops(batch[:0])
		batch = l.take(batch, line)
	gather:
		for len(batch) < maxBatch {
			select {
			case line, ok := <-l.lines:
				if !ok {
					open = false
					break gather
				}
				batch, n = l.take(batch, line), n+1
			default:
				break gather
			}
		}
		if _, err := l.w.Write(batch); err != nil {
			l.dropped.Add(n)
		} else {
			l.logged = accounted
		}
		if cap(batch) > maxBatch*2 { // keep no outsized buffer
			batch = nil
		}
		if !open {
			return
		}
	}
}

// take appends a queued line to batch and returns the line to the pool.
func (l *DecisionLog) take(batch []byte, line *[]byte) []byte {
	batch = append(batch, *line...)
	l.recycle(line)
	return batch
}

// recycle returns a line buffer to the pool, unless it grew outsized.
func (l *DecisionLog) recycle(line *[]byte) {
	if cap(*line) <= 4<<10 {
		*line = (*line)[:0]
		l.pool.Put(line)
	}
}

// Write logs e.
func (l *DecisionLog) Write(e Entry) {
	if l == nil {
		return
	}
	line := l.pool.Get().(*[]byte)
	*line = append(e.appendJSON((*line)[:0]), '\n')
	if l.synchronous {
		l.mu.Lock()
		defer l.mu.Unlock()
		out, accounted := l.appendDrops(nil)
		if len(out) == 0 {
			out = *line
		} else {
			out = append(out, *line...)
		}
		if _, err := l.w.Write(out); err != nil {
			l.dropped.Add(1)
		} else {
			l.logged = accounted
		}
		l.recycle(line)
		return
	}
	select {
	case l.lines <- line:
	default:
		l.dropped.Add(1)
		l.recycle(line)
	}
}

// Dropped returns the number of lines lost so far.
func (l *DecisionLog) Dropped() uint64 {
	if l == nil {
		return 0
	}
	return l.dropped.Load()
}

// appendDrops appends to b the drop line of the lines lost since the last
// drop line the log holds, if any, and returns the drop total that line
// accounts for.
func (l *DecisionLog) appendDrops(b []byte) ([]byte, uint64) {
	d := l.dropped.Load()
	if d > l.logged {
		b = append(audit.AppendDroppedLine(b, l.clock().Unix(), d-l.logged), '\n')
	}
	return b, d
}

// Close flushes the buffered lines, writes the drop line of any lines lost
// since the last write, and stops the writer. Write must not be called
// after Close.
func (l *DecisionLog) Close() {
	if l == nil {
		return
	}
	if !l.synchronous {
		close(l.lines)
	}
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if out, accounted := l.appendDrops(nil); len(out) > 0 {
		if _, err := l.w.Write(out); err == nil {
			l.logged = accounted
		}
	}
}

// appendJSON appends e as encoding/json would marshal it (field order,
// omitempty, string escaping by jsonlex.HTMLSafe; TestEntryJSONIsEncodingJSON),
// without reflection: one line per request.
func (e *Entry) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = append(logtime.AppendUnix(b, int64(e.Time)), '"')
	b = appendField(b, "verb", e.Verb, false)
	b = appendField(b, "caller", e.Caller, true)
	b = appendField(b, "namespace", e.Namespace, true)
	b = appendField(b, "hostAuthority", e.HostAuthority, true)
	b = appendField(b, "selection", e.Selection, true)
	b = appendField(b, "decisionID", e.DecisionID, true)
	b = appendField(b, "outcome", e.Outcome, true)
	b = appendList(b, "reasons", e.Reasons)
	b = appendList(b, "matchedRules", e.MatchedRules)
	b = appendField(b, "authorizationID", e.AuthorizationID, true)
	b = appendField(b, "binding", e.Binding, true)
	b = appendField(b, "confirmation", e.Confirmation, true)
	b = appendField(b, "requester", e.Requester, true)
	b = appendField(b, "result", e.Result, false)
	b = appendField(b, "code", e.Code, true)
	b = appendField(b, "path", e.Path, true)
	if e.Shadow != nil {
		b = e.Shadow.appendJSON(append(b, `,"shadow":`...))
	}
	return append(b, '}')
}

func appendField(b []byte, name, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonlex.AppendString(b, v, jsonlex.HTMLSafe)
}

func appendList(b []byte, name string, v []string) []byte {
	if len(v) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':', '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonlex.AppendString(b, s, jsonlex.HTMLSafe)
	}
	return append(b, ']')
}
