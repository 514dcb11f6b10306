package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
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

// TestDecisionLogBatchesCompleteLines: the writer goroutine gathers the
// queued lines into batches; every line arrives once, whole, and in the
// order each goroutine wrote it, and Close flushes them all.
func TestDecisionLogBatchesCompleteLines(t *testing.T) {
	t.Parallel()
	const writers, each = 8, 2000
	var out bytes.Buffer
	var writes int
	l := NewDecisionLog(writerFunc(func(p []byte) (int, error) { writes++; return out.Write(p) }), writers*each, false)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				l.Write(Entry{Time: int64(i), Verb: "authorize", Caller: strconv.Itoa(w), Result: "issued", Reasons: []string{"a<b"}})
			}
		})
	}
	wg.Wait()
	l.Close()
	if l.Dropped() != 0 {
		t.Fatalf("dropped %d lines with room for all", l.Dropped())
	}
	next := make([]int64, writers)
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != writers*each {
		t.Fatalf("%d lines, want %d", len(lines), writers*each)
	}
	for _, line := range lines {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		w, _ := strconv.Atoi(e.Caller)
		if e.Time != next[w] {
			t.Fatalf("writer %d: line %d, want %d", w, e.Time, next[w])
		}
		next[w]++
	}
	t.Logf("%d lines in %d writes", len(lines), writes)
}

// TestDecisionLogCountsFailedWrites: a line whose write fails is counted
// as dropped.
func TestDecisionLogCountsFailedWrites(t *testing.T) {
	t.Parallel()
	for _, synchronous := range []bool{false, true} {
		l := NewDecisionLog(writerFunc(func([]byte) (int, error) { return 0, errors.New("disk full") }), 1000, synchronous)
		for range 100 {
			l.Write(Entry{Verb: "consume", Result: "consumed"})
		}
		l.Close()
		if l.Dropped() != 100 {
			t.Errorf("synchronous %v: dropped %d, want 100", synchronous, l.Dropped())
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
