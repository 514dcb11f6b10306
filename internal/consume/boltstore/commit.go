// Group commit: the writes that wait beside each other are decided
// together and made durable by one journal append (the package comment).

package boltstore

import (
	"errors"
	"runtime"
	"slices"

	bolt "go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"
)

// write is one Consume's or Claim's decision, or (fn nil) a request to
// freeze the journal segment for a checkpoint; done receives errLead (this
// write's goroutine now commits the next batch) or the write's outcome,
// after the append holding it was synced.
type write struct {
	fn     func(*txn) error
	freeze bool
	// closing marks Close's own freeze: the one write admitted after
	// Close began, so nothing runs once Close closes the files.
	closing bool
	done    chan error
}

// errLead hands the committing to a waiting write; it never leaves the
// package.
var errLead = errors.New("lead the next commit")

// txn is what a batch's writes read and write: their own earlier writes,
// then the journal's entries in memory, then the file as of the batch's
// read transaction.
type txn struct {
	s     *Store
	rtx   *bolt.Tx
	over  map[string]entry
	puts  []entry
	bytes int
}

func memKey(kind byte, key []byte) string {
	return string(append([]byte{kind}, key...))
}

func (t *txn) get(kind byte, key []byte) []byte {
	k := memKey(kind, key)
	if e, ok := t.over[k]; ok {
		return e.value
	}
	if e, ok := t.s.mem[k]; ok {
		return e.value
	}
	for i := len(t.s.frozen) - 1; i >= 0; i-- { // t.s.fmu is read-locked by run
		if e, ok := t.s.frozen[i].entries[k]; ok {
			return e.value
		}
	}
	data, _ := entry{kind: kind}.buckets()
	return t.rtx.Bucket(data).Get(key)
}

func (t *txn) put(e entry) {
	t.over[memKey(e.kind, e.key)] = e
	t.puts = append(t.puts, e)
}

// commit runs fn with the writes that wait beside it and returns once the
// journal append holding its writes was synced, or failed.
//
// Group commit without a goroutine of its own: the first write to find no
// commit running leads — it takes every waiting write (itself included, up
// to maxBatch), commits them with one append, answers them, and hands
// the lead to the oldest write that arrived meanwhile. A lone write thus
// commits in its caller's goroutine, with no handoff and no delay.
func (s *Store) commit(fn func(*txn) error) error {
	return s.enqueue(&write{fn: fn, done: make(chan error, 1)})
}

func (s *Store) enqueue(w *write) error {
	s.mu.Lock()
	switch {
	case s.closed && !w.closing:
		s.mu.Unlock()
		return bberrors.ErrDatabaseNotOpen
	case s.broken:
		s.mu.Unlock()
		return errJournalFailed
	}
	s.pending = append(s.pending, w)
	if s.leading {
		s.mu.Unlock()
		if err := <-w.done; err != errLead {
			return err
		}
		s.mu.Lock()
	} else {
		s.leading = true
	}
	if s.shared {
		// The last commit was shared: its callers are likely about to
		// write again. Let them run first, so that the commit after a
		// shared one is not one write alone while they queue behind it.
		s.mu.Unlock()
		runtime.Gosched()
		s.mu.Lock()
	}
	// w is the oldest pending write, so it is in this batch.
	n := min(len(s.pending), s.maxBatch)
	s.shared = n > 1
	batch := slices.Clone(s.pending[:n])
	s.pending = slices.Delete(s.pending, 0, n)
	s.mu.Unlock()

	s.run(batch)

	s.mu.Lock()
	if len(s.pending) == 0 {
		s.leading = false
	} else {
		s.pending[0].done <- errLead
	}
	s.mu.Unlock()
	return <-w.done
}

// run decides batch, makes its writes durable with one append, publishes
// them to the batch after it, and answers every write. When one write's
// function fails, the batch is decided again one write at a time, so that
// only the failing one fails (each function resets its results on entry).
func (s *Store) run(batch []*write) {
	results := make([]error, len(batch))
	// The read lock spans the read transaction: a generation a checkpoint
	// removes from frozen is in the file before the removal, so a batch
	// either finds it frozen or reads a file that holds it.
	s.fmu.RLock()
	rtx, err := s.db.Begin(false)
	if err != nil {
		s.fmu.RUnlock()
		answer(batch, err)
		return
	}
	t := s.decide(batch, rtx, results, false)
	if t == nil {
		t = s.decide(batch, rtx, results, true)
	}
	_ = rtx.Rollback()
	s.fmu.RUnlock()

	if len(t.puts) > 0 {
		buf := make([]byte, 0, t.bytes)
		for _, e := range t.puts {
			buf = appendEntry(buf, s.seg.seq, e)
		}
		if err := s.seg.write(buf); err != nil {
			// The segment's tail is unknown now: later appends after it
			// could be lost to a replay, so nothing more is appended.
			s.fail()
			answer(batch, errJournalFailed)
			return
		}
		// Held reads mem outside the commit queue, under fmu's read lock.
		s.fmu.Lock()
		for _, e := range t.puts {
			s.mem[memKey(e.kind, e.key)] = e
		}
		s.fmu.Unlock()
		s.memBytes += int64(len(buf))
	}
	freeze := s.memBytes >= checkpointBytes
	for _, w := range batch {
		freeze = freeze || w.freeze
	}
	if freeze {
		if err := s.freeze(); err != nil {
			s.fail()
			answer(batch, errJournalFailed)
			return
		}
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	for i, w := range batch {
		w.done <- results[i]
	}
}

// decide runs the batch's functions against one overlay. Together, it
// returns nil at the first failing function; alone, a failing function's
// writes are dropped and its error is its result.
func (s *Store) decide(batch []*write, rtx *bolt.Tx, results []error, alone bool) *txn {
	t := &txn{s: s, rtx: rtx, over: map[string]entry{}}
	for i, w := range batch {
		if w.fn == nil {
			continue
		}
		mark := len(t.puts)
		if err := w.fn(t); err != nil {
			if !alone {
				return nil
			}
			for _, e := range t.puts[mark:] {
				delete(t.over, memKey(e.kind, e.key))
			}
			t.puts = t.puts[:mark]
			results[i] = err
		}
	}
	for _, e := range t.puts {
		t.bytes += entryHeader + payloadFixed + len(e.key) + len(e.value)
	}
	return t
}

func answer(batch []*write, err error) {
	for _, w := range batch {
		w.done <- err
	}
}

func (s *Store) fail() {
	s.mu.Lock()
	s.broken = true
	s.mu.Unlock()
}
