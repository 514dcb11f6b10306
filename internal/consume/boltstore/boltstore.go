// Package boltstore is the standalone Consumption store: one bbolt file in
// a state directory and its write-ahead journal (journal.go).
//
// A Consume creates its record only when it is absent. Consumes and Claims
// are group-committed (issue 18, item 2): the write that finds no commit
// running takes every write waiting, decides them together against what
// the store holds, writes what they write to the journal in one write, and
// answers each only after that write's fdatasync returned; writes that
// arrive meanwhile share the next one. A lone write therefore commits at
// once, in its caller's goroutine, and there is no timer. A batch in which
// one write fails is decided again one write at a time, so each still
// commits or fails alone.
//
// What the journal holds is also held in memory, so reads see it, until a
// checkpoint copies it into the bbolt file in one transaction that bbolt
// fsyncs as it always does; only then are the journal's frozen entries
// dropped. Open replays the journal before it returns, so an answered
// Consume is held after any crash (the journal's format and why a torn tail
// is safe are in journal.go).
//
// The file is locked by one process at a time, so every replica sharing
// the store is a goroutine of that process: use etcdstore or apistore for
// several processes.
//
// A Consume reads the clock while its batch is decided, immediately before
// the atomic step, and refuses an expired Authorization (consume.ErrExpired)
// without writing: batches run one at a time, and a sweep deletes only what
// a checkpoint already wrote to the file, long after its expiry.
//
// A Claim reads the three identities' entries (bucket "claims", key
// domain/index/identity) and writes all three or none.
//
// Records and claims expire: a background goroutine, started by Open and
// stopped by Close, deletes every record whose expiresAt lies more than
// Options.Retention in the past, every Options.SweepInterval. An expiry
// index (bucket "expiry", keys big-endian expiry seconds + record key)
// makes a sweep cost only the records it removes. Time comes from
// Options.Clock, so tests are deterministic and can call Sweep themselves.
package boltstore

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"

	"github.com/toolgate/toolgate/internal/consume"
)

// FileName is the store's file inside the state directory.
const FileName = "consumptions.db"

// Defaults of Options.
const (
	DefaultSweepInterval = time.Minute
	DefaultOpenTimeout   = 5 * time.Second
	// DefaultMaxBatch bounds the writes of one group commit, so that one
	// append never grows without bound under a flood.
	DefaultMaxBatch = 512
	// DefaultCheckpointInterval is how often what the journal holds is
	// copied into the bbolt file.
	DefaultCheckpointInterval = time.Second
	// checkpointBytes starts a checkpoint early when the journal segment
	// grows past it, bounding memory and replay time under a flood.
	checkpointBytes = 4 << 20
	// SweepBatch bounds the deletions per sweep transaction, so a large
	// sweep never holds the write lock for long.
	SweepBatch = 1024
)

var (
	bucketRecords     = []byte("consumptions") // key domain/binding → 8-byte expiry seconds
	bucketExpiry      = []byte("expiry")       // key 8-byte expiry seconds + domain/binding → empty
	bucketClaims      = []byte("claims")       // key domain/field/identity → encoded claim
	bucketClaimExpiry = []byte("claim-expiry") // key 8-byte expiry seconds + claim key → empty
)

// buckets are every bucket of the file; sweeps are the (data, expiry
// index) pairs a sweep walks.
var (
	buckets = [][]byte{bucketRecords, bucketExpiry, bucketClaims, bucketClaimExpiry}
	sweeps  = [][2][]byte{{bucketRecords, bucketExpiry}, {bucketClaims, bucketClaimExpiry}}
)

// Options configure Open. The zero value is the production configuration.
type Options struct {
	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
	// SweepInterval is the period of the background sweep; 0 means
	// DefaultSweepInterval and a negative value disables the sweeper
	// (tests call Sweep).
	SweepInterval time.Duration
	// CheckpointInterval is the period of the background checkpoint; 0
	// means DefaultCheckpointInterval and a negative value leaves
	// checkpoints to Sweep, Len, Claims, Close and a large journal.
	CheckpointInterval time.Duration
	// OpenTimeout bounds the wait for the file lock another process holds;
	// 0 means DefaultOpenTimeout.
	OpenTimeout time.Duration
	// Retention is how long past its expiry a record is kept; 0 means
	// consume.DefaultRetention, and a negative value is rejected by Open.
	// One process owns the file, so only that process's clock and its
	// request times matter: keep it at least consume.MaxRequestTime.
	Retention time.Duration
	// MaxBatch is the most Consumes and Claims one journal append (and one
	// fdatasync) commits together; 0 means DefaultMaxBatch and 1 commits
	// every write alone. Negative values are rejected by Open.
	MaxBatch int
}

// Store is the bbolt Consumption store. It is safe for concurrent use.
type Store struct {
	db        *bolt.DB
	dir       string
	clock     func() time.Time
	retention uint64 // whole seconds, rounded up
	maxBatch  int

	// Group commit (see commit): the writes waiting, whether one of them
	// is committing, whether Close was called, and whether a failed append
	// stopped the store.
	mu      sync.Mutex
	pending []*write
	leading bool
	shared  bool // the last batch held more than one write
	closed  bool
	broken  bool

	// Owned by the leading write (leadership passes through a channel):
	// the segment appended to and the entries it holds.
	seg      *segment
	mem      map[string]entry
	memBytes int64

	// spares are the retired segments kept for reuse; the leading write
	// takes them, checkpoints return them.
	spareMu sync.Mutex
	spares  []uint64

	// frozen are the generations a checkpoint is copying into the file,
	// newest last; fmu orders their removal after that copy's commit
	// against a batch's reads (see run).
	fmu    sync.RWMutex
	frozen []generation
	// ckMu serializes checkpoints.
	ckMu sync.Mutex
	kick chan struct{}
	// beforeCopy, when set (tests), runs after a checkpoint took the
	// frozen generations and before it copies them into the file.
	beforeCopy func()

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// generation is a frozen journal segment and the entries it holds.
type generation struct {
	seq     uint64
	entries map[string]entry
}

var _ consume.Store = (*Store)(nil)

// Open opens (creating when absent) the store file in dir, which must exist
// or be creatable with mode 0700, and replays its journal into it. Failure
// wraps consume.ErrUnavailable.
func Open(dir string, opts Options) (*Store, error) {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.SweepInterval == 0 {
		opts.SweepInterval = DefaultSweepInterval
	}
	if opts.CheckpointInterval == 0 {
		opts.CheckpointInterval = DefaultCheckpointInterval
	}
	if opts.OpenTimeout <= 0 {
		opts.OpenTimeout = DefaultOpenTimeout
	}
	switch {
	case opts.MaxBatch == 0:
		opts.MaxBatch = DefaultMaxBatch
	case opts.MaxBatch < 0:
		return nil, consume.Unavailable("open", errNegativeMaxBatch)
	}
	switch {
	case opts.Retention == 0:
		opts.Retention = consume.DefaultRetention
	case opts.Retention < 0:
		return nil, consume.Unavailable("open", errNegativeRetention)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, consume.Unavailable("create state directory", errors.Unwrap(err))
	}
	// The file lock bbolt takes also makes this process the journal's
	// only reader and writer.
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{
		Timeout:      opts.OpenTimeout,
		NoSync:       false, // the file is consistent on disk after every checkpoint
		FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		return nil, consume.Unavailable("open", err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range buckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		_ = db.Close()
		return nil, consume.Unavailable("create buckets", err)
	}
	seg, spares, err := replay(db, dir)
	if err != nil {
		_ = db.Close()
		return nil, consume.Unavailable("replay journal", err)
	}
	s := &Store{db: db, dir: dir, clock: opts.Clock,
		retention: uint64((opts.Retention + time.Second - 1) / time.Second),
		maxBatch:  opts.MaxBatch, seg: seg, spares: spares, mem: map[string]entry{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go s.background(opts.SweepInterval, opts.CheckpointInterval)
	return s, nil
}

// replay copies every durable journal entry into the file in one synced
// transaction, retires the segments, and opens the next one.
func replay(db *bolt.DB, dir string) (*segment, []uint64, error) {
	seqs, spares, err := journalFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	entries, err := readSegments(dir, seqs)
	if err != nil {
		return nil, nil, err
	}
	if len(entries) > 0 {
		if err := db.Update(func(tx *bolt.Tx) error { return putAll(tx, entries) }); err != nil {
			return nil, nil, err
		}
	}
	// The next seq is above every seq a file ever had, so nothing a
	// recycled file holds checks in its new segment.
	next := uint64(1)
	if all := append(slices.Clone(seqs), spares...); len(all) > 0 {
		next = slices.Max(all) + 1
	}
	if err := retire(dir, seqs, &spares); err != nil {
		return nil, nil, err
	}
	seg, err := openSegment(dir, next, &spares)
	if err != nil {
		return nil, nil, err
	}
	return seg, spares, nil
}

// putAll writes entries, and their expiry index keys, in tx. A key the
// file holds already is overwritten with the same value: replaying an
// entry twice changes nothing.
func putAll(tx *bolt.Tx, entries []entry) error {
	for _, e := range entries {
		data, index := e.buckets()
		if err := tx.Bucket(data).Put(e.key, e.value); err != nil {
			return err
		}
		if err := tx.Bucket(index).Put(expiryKey(e.exp, e.key), nil); err != nil {
			return err
		}
	}
	return nil
}

// Consume records r unless it is recorded already or expired by the clock
// read while its batch is decided.
func (s *Store) Consume(ctx context.Context, r consume.Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return consume.Unavailable("consume", err)
	}
	rk := recordKey(r.Key)
	exp := expirySeconds(r.ExpiresAt)
	var consumed, expired bool
	err := s.commit(func(t *txn) error {
		consumed, expired = false, false // a failed batch runs this function again alone
		if r.Expired(s.clock()) {
			expired = true
			return nil
		}
		if t.get(kindRecord, rk) != nil {
			consumed = true
			return nil
		}
		t.put(entry{kind: kindRecord, exp: exp, key: rk, value: binary.BigEndian.AppendUint64(nil, exp)})
		return nil
	})
	switch {
	case err != nil:
		return consume.Unavailable("commit", err)
	case expired:
		return consume.ErrExpired
	case consumed:
		return consume.ErrConsumed
	}
	return nil
}

// Ready reports whether the file answers a read transaction and the
// journal accepts writes.
func (s *Store) Ready(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return consume.Unavailable("ready", err)
	}
	s.mu.Lock()
	broken := s.broken
	s.mu.Unlock()
	if broken {
		return consume.Unavailable("ready", errJournalFailed)
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		for _, b := range buckets {
			if tx.Bucket(b) == nil {
				return errMissingBucket
			}
		}
		return nil
	})
	if err != nil {
		return consume.Unavailable("ready", err)
	}
	return nil
}

var (
	errMissingBucket     = errors.New("bucket missing")
	errNegativeRetention = errors.New("negative retention")
	errNegativeMaxBatch  = errors.New("negative maximum batch")
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
		for _, e := range t.puts {
			s.mem[memKey(e.kind, e.key)] = e
		}
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

// freeze moves the segment and its entries to frozen and starts the next
// segment; it does nothing when the segment holds nothing. Only the
// leading write calls it.
func (s *Store) freeze() error {
	if len(s.mem) == 0 {
		return nil
	}
	if err := s.seg.seal(); err != nil {
		return err
	}
	s.spareMu.Lock()
	next, err := openSegment(s.dir, s.seg.seq+1, &s.spares)
	s.spareMu.Unlock()
	if err != nil {
		return err
	}
	_ = s.seg.f.Close() // synced by its seal
	s.fmu.Lock()
	s.frozen = append(s.frozen, generation{seq: s.seg.seq, entries: s.mem})
	s.fmu.Unlock()
	s.seg, s.mem, s.memBytes = next, map[string]entry{}, 0
	return nil
}

// checkpoint copies everything the journal holds into the file: it freezes
// the segment through the commit queue, so after every write enqueued
// before it, then writes the frozen generations.
func (s *Store) checkpoint() error { return s.checkpointAs(false) }

func (s *Store) checkpointAs(closing bool) error {
	if err := s.enqueue(&write{freeze: true, closing: closing, done: make(chan error, 1)}); err != nil {
		return err
	}
	return s.writeFrozen()
}

// writeFrozen copies the frozen generations into the file in one synced
// transaction, then drops them and deletes their segments. A failure keeps
// them frozen (still read by every batch) for the next checkpoint.
func (s *Store) writeFrozen() error {
	s.ckMu.Lock()
	defer s.ckMu.Unlock()
	s.fmu.RLock()
	gens := slices.Clone(s.frozen)
	s.fmu.RUnlock()
	if len(gens) == 0 {
		return nil
	}
	if s.beforeCopy != nil {
		s.beforeCopy()
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		for _, g := range gens {
			for _, k := range slices.Sorted(maps.Keys(g.entries)) { // sorted: bbolt writes sorted keys fastest
				if err := putAll(tx, []entry{g.entries[k]}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.fmu.Lock()
	s.frozen = slices.Delete(s.frozen, 0, len(gens))
	s.fmu.Unlock()
	seqs := make([]uint64, len(gens))
	for i, g := range gens {
		seqs[i] = g.seq
	}
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	return retire(s.dir, seqs, &s.spares)
}

// Sweep copies what the journal holds into the file, then deletes every
// record and every claim whose expiresAt plus the retention is at or
// before the clock's now, in transactions of at most SweepBatch deletions,
// and returns how many it deleted.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	if err := s.checkpoint(); err != nil {
		return 0, consume.Unavailable("checkpoint", err)
	}
	now := s.clock().Unix() - int64(s.retention)
	total := 0
	for _, b := range sweeps {
		n, err := s.sweep(ctx, now, b[0], b[1])
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// sweep deletes from data every key the expiry index lists at or before
// now.
func (s *Store) sweep(ctx context.Context, now int64, data, expiry []byte) (int, error) {
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, consume.Unavailable("sweep", err)
		}
		n := 0
		err := s.db.Update(func(tx *bolt.Tx) error {
			n = 0
			records, index := tx.Bucket(data), tx.Bucket(expiry)
			c := index.Cursor()
			for ik, _ := c.First(); ik != nil && n < SweepBatch; ik, _ = c.First() {
				if now < 0 || binary.BigEndian.Uint64(ik[:8]) > uint64(now) {
					break
				}
				if err := records.Delete(ik[8:]); err != nil {
					return err
				}
				if err := c.Delete(); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		total += n
		if err != nil {
			return total, consume.Unavailable("sweep", err)
		}
		if n < SweepBatch {
			return total, nil
		}
	}
}

// Claim records c's identities, decided by consume.Resolve over what the
// store holds for them: all three are written, or none.
func (s *Store) Claim(ctx context.Context, c consume.Claim) (consume.Claim, error) {
	if err := c.Validate(); err != nil {
		return consume.Claim{}, err
	}
	if err := ctx.Err(); err != nil {
		return consume.Claim{}, consume.Unavailable("claim", err)
	}
	var keys [3][]byte
	for i, id := range c.Identities {
		keys[i] = claimKey(c.Domain, i, id)
	}
	value := encodeClaim(c)
	exp := expirySeconds(c.ExpiresAt)
	var (
		out     consume.Claim
		refusal error
	)
	err := s.commit(func(t *txn) error {
		out, refusal = consume.Claim{}, nil // a failed batch runs this function again alone
		var stored [3]*consume.Claim
		for i, k := range keys {
			if v := t.get(kindClaim, k); v != nil {
				got, err := decodeClaim(c.Domain, v)
				if err != nil {
					return err
				}
				stored[i] = &got
			}
		}
		var record bool
		out, record, refusal = consume.Resolve(c, stored)
		if !record || refusal != nil {
			return nil
		}
		for _, k := range keys {
			t.put(entry{kind: kindClaim, exp: exp, key: k, value: value})
		}
		return nil
	})
	switch {
	case err != nil:
		return consume.Claim{}, consume.Unavailable("commit claim", err)
	case refusal != nil:
		return consume.Claim{}, refusal
	}
	return out, nil
}

// Len returns the number of records held (for metrics and tests), after a
// checkpoint.
func (s *Store) Len() (int, error) { return s.count(bucketRecords) }

// Claims returns the number of claimed identities held (three per claim),
// after a checkpoint.
func (s *Store) Claims() (int, error) { return s.count(bucketClaims) }

func (s *Store) count(bucket []byte) (int, error) {
	if err := s.checkpoint(); err != nil {
		return 0, consume.Unavailable("checkpoint", err)
	}
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucket).Stats().KeyN
		return nil
	})
	if err != nil {
		return 0, consume.Unavailable("count", err)
	}
	return n, nil
}

// background sweeps every sweepEvery (when positive) and checkpoints every
// checkpointEvery (when positive) and when a batch froze a large segment.
func (s *Store) background(sweepEvery, checkpointEvery time.Duration) {
	defer close(s.done)
	var sweepC, ckC <-chan time.Time
	if sweepEvery > 0 {
		t := time.NewTicker(sweepEvery)
		defer t.Stop()
		sweepC = t.C
	}
	if checkpointEvery > 0 {
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		ckC = t.C
	}
	for {
		// A failed sweep or checkpoint leaves records longer than needed
		// (in the file or the journal), which never permits a second
		// Consumption; the next tick retries.
		select {
		case <-s.stop:
			return
		case <-sweepC:
			_, _ = s.Sweep(context.Background())
		case <-ckC:
			_ = s.checkpoint()
		case <-s.kick:
			_ = s.writeFrozen()
		}
	}
}

// Close stops the background goroutine, copies what the journal holds into
// the file and closes it. Every later call fails closed with
// ErrUnavailable. Close is idempotent.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.stop)
		<-s.done
		// Writes enqueued before closed are ahead of this freeze; a failed
		// checkpoint leaves the journal for the next Open to replay.
		_ = s.checkpointAs(true)
		s.mu.Lock()
		_ = s.seg.f.Close()
		s.mu.Unlock()
		if err := s.db.Close(); err != nil {
			s.closeErr = consume.Unavailable("close", err)
		}
	})
	return s.closeErr
}

// recordKey is "<domain>/<binding>": neither part contains '/'.
func recordKey(k consume.Key) []byte {
	b := make([]byte, 0, len(k.Domain)+1+len(k.Binding))
	b = append(b, k.Domain...)
	b = append(b, '/')
	return append(b, k.Binding...)
}

// claimKey is "<domain>/<i>/<identity>": no part contains '/', and i (the
// identity's index) keeps the three identity kinds apart.
func claimKey(domain string, i int, id string) []byte {
	b := make([]byte, 0, len(domain)+3+len(id))
	b = append(b, domain...)
	b = append(b, '/', byte('0'+i), '/')
	return append(b, id...)
}

// encodeClaim is issuedAt and expiresAt (8 octets each, big-endian Unix
// seconds), the request and binding digests (64 hex digits each) and the
// three identities, each after one length octet. The domain is the key's.
func encodeClaim(c consume.Claim) []byte {
	b := make([]byte, 16, 16+2*consume.DigestLen+3+3*consume.MaxAuthorizationIDLen)
	binary.BigEndian.PutUint64(b[0:8], uint64(c.IssuedAt.Unix()))
	binary.BigEndian.PutUint64(b[8:16], uint64(c.ExpiresAt.Unix()))
	b = append(b, c.Request...)
	b = append(b, c.Binding...)
	for _, id := range c.Identities {
		b = append(b, byte(len(id)))
		b = append(b, id...)
	}
	return b
}

var errCorruptClaim = errors.New("corrupt claim")

// decodeClaim reads encodeClaim's form; anything else is a corrupt file
// (which fails closed: unavailable).
func decodeClaim(domain string, v []byte) (consume.Claim, error) {
	const fixed = 16 + 2*consume.DigestLen
	if len(v) < fixed {
		return consume.Claim{}, errCorruptClaim
	}
	c := consume.Claim{
		Domain:    domain,
		IssuedAt:  time.Unix(int64(binary.BigEndian.Uint64(v[0:8])), 0),
		ExpiresAt: time.Unix(int64(binary.BigEndian.Uint64(v[8:16])), 0),
		Request:   string(v[16 : 16+consume.DigestLen]),
		Binding:   string(v[16+consume.DigestLen : fixed]),
	}
	rest := v[fixed:]
	for i := range c.Identities {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return consume.Claim{}, errCorruptClaim
		}
		c.Identities[i] = string(rest[1 : 1+int(rest[0])])
		rest = rest[1+int(rest[0]):]
	}
	if len(rest) != 0 {
		return consume.Claim{}, errCorruptClaim
	}
	return c, nil
}

func expiryKey(exp uint64, rk []byte) []byte {
	b := make([]byte, 8, 8+len(rk))
	binary.BigEndian.PutUint64(b, exp)
	return append(b, rk...)
}

// expirySeconds is expiresAt in Unix seconds rounded up (a record is never
// removed before expiresAt), at least 0.
func expirySeconds(t time.Time) uint64 {
	sec := t.Unix()
	if t.Nanosecond() > 0 && sec < math.MaxInt64 {
		sec++
	}
	if sec < 0 {
		return 0
	}
	return uint64(sec)
}
