package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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
		e := Entry{Time: UnixTime(r.Int64() - r.Int64()), Verb: str(), Caller: str(), Namespace: str(), HostAuthority: str(), Selection: str(),
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
				l.Write(Entry{Time: UnixTime(i), Verb: "authorize", Caller: strconv.Itoa(w), Result: "issued", Reasons: []string{"a<b"}})
			}
		})
	}
	wg.Wait()
	l.Close()
	if l.Dropped() != 0 {
		t.Fatalf("dropped %d lines with room for all", l.Dropped())
	}
	next := make([]UnixTime, writers)
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

// TestDropsAreLinesOfTheLog: lines lost to a full buffer or a failed
// write are counted in Dropped and also written into the log, as drop
// lines before the next line that is written (or at Close), whose counts
// add up to Dropped.
func TestDropsAreLinesOfTheLog(t *testing.T) {
	t.Parallel()
	type dropLine struct {
		Time    string `json:"time"`
		Verb    string `json:"verb"`
		Dropped uint64 `json:"dropped"`
		Result  string `json:"result"`
	}
	// read returns the drop lines and the other lines' callers, in order.
	read := func(t *testing.T, out []byte) (drops []dropLine, order []string) {
		t.Helper()
		for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
			var d dropLine
			if err := json.Unmarshal(line, &d); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if d.Verb == "dropped" {
				// The clock's 1234 s after the epoch, in the one log time format.
				if d.Time != "1970-01-01T00:20:34.000Z" || d.Result != "dropped" || d.Dropped == 0 {
					t.Errorf("drop line %s: want time 1970-01-01T00:20:34.000Z, result dropped, a count", line)
				}
				drops = append(drops, d)
				order = append(order, "dropped")
				continue
			}
			var e Entry
			_ = json.Unmarshal(line, &e)
			order = append(order, e.Caller)
		}
		return drops, order
	}
	sum := func(ds []dropLine) (n uint64) {
		for _, d := range ds {
			n += d.Dropped
		}
		return n
	}

	t.Run("a full buffer", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		gate, first := make(chan struct{}), make(chan struct{}, 1)
		l := NewDecisionLog(writerFunc(func(p []byte) (int, error) {
			select {
			case first <- struct{}{}:
				<-gate // hold the writer on its first write
			default:
			}
			return out.Write(p)
		}), 4, false)
		l.clock = func() time.Time { return time.Unix(1234, 0) }
		l.Write(Entry{Caller: "a", Result: "issued"})
		<-first // the writer holds line a; the buffer has room for 4
		for range 10 {
			l.Write(Entry{Caller: "b", Result: "issued"})
		}
		close(gate)
		l.Close()
		drops, order := read(t, out.Bytes())
		if l.Dropped() != 6 || sum(drops) != 6 {
			t.Fatalf("Dropped %d, drop lines say %d: want 6 both", l.Dropped(), sum(drops))
		}
		if got, want := strings.Join(order, " "), "a dropped b b b b"; got != want {
			t.Fatalf("log %v, want %q: the drop line opens the next write", order, want)
		}
	})
	t.Run("failed writes, synchronous", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		fail := 3
		l := NewDecisionLog(writerFunc(func(p []byte) (int, error) {
			if fail > 0 {
				fail--
				return 0, errors.New("disk full")
			}
			return out.Write(p)
		}), 0, true)
		l.clock = func() time.Time { return time.Unix(1234, 0) }
		for _, c := range []string{"a", "b", "c", "d"} {
			l.Write(Entry{Caller: c, Result: "issued"})
		}
		fail = 1
		l.Write(Entry{Caller: "e", Result: "issued"})
		l.Close()
		drops, order := read(t, out.Bytes())
		if got, want := strings.Join(order, " "), "dropped d dropped"; got != want {
			t.Fatalf("log %v, want %q", order, want)
		}
		if l.Dropped() != 4 || sum(drops) != 4 || drops[0].Dropped != 3 {
			t.Fatalf("Dropped %d, drop lines %+v: want 3 then 1", l.Dropped(), drops)
		}
	})
}
