// Package boltstore is the standalone Consumption store: one bbolt file in
// a state directory and its write-ahead journal (journal.go).
//
// A Consume creates its record only when it is absent. Consumes and Claims
// are group-committed (docs/decisions.md, "Group commit in boltstore"): the
// write that finds no commit running takes every write waiting, decides them
// together against what the store holds, writes what they write to the
// journal in one write, and answers each only after that write's fdatasync
// returned; writes that arrive meanwhile share the next one. A lone write
// therefore commits at once, in its caller's goroutine, and there is no
// timer. A batch in which one write fails is decided again one write at a
// time, so each still commits or fails alone.
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
// A Consume also holds the consumed Authorization's three identities
// (bucket "claims", key domain/index/identity, value the binding digest),
// in the same decision and the same journal write as its record: all four
// are written, or none. Held reads those entries without the commit queue.
//
// Records and held identities expire: a background goroutine, started by Open and
// stopped by Close, deletes every record whose expiresAt lies more than
// Options.Retention in the past, every Options.SweepInterval. An expiry
// index (bucket "expiry", keys big-endian expiry seconds + record key)
// makes a sweep cost only the records it removes. Time comes from
// Options.Clock, so tests are deterministic and can call Sweep themselves.
package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

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
	bucketClaims      = []byte("claims")       // key domain/field/identity → the binding digest holding it
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
	// the segment appended to and the entries it holds. mem is changed
	// only under fmu's write lock, so Held reads it under the read lock.
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

// Consume records r and holds its identities, unless r is recorded
// already, one of its identities is held by another binding, or r is
// expired by the clock read while its batch is decided.
func (s *Store) Consume(ctx context.Context, r consume.Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return consume.Unavailable("consume", err)
	}
	rk := recordKey(r.Key)
	exp := expirySeconds(r.ExpiresAt)
	var ids [3][]byte
	for i, id := range r.Identities {
		ids[i] = claimKey(r.Key.Domain, i, id)
	}
	binding := []byte(r.Key.Binding)
	var (
		consumed, expired bool
		refusal           error
	)
	err := s.commit(func(t *txn) error {
		consumed, expired, refusal = false, false, nil // a failed batch runs this function again alone
		now := s.clock()
		if r.Expired(now) {
			expired = true
			return nil
		}
		if t.get(kindRecord, rk) != nil {
			consumed = true
			return nil
		}
		for i, k := range ids {
			v := t.get(kindClaim, k)
			if v == nil {
				continue
			}
			by, err := holder(v)
			if err != nil {
				return err
			}
			if !bytes.Equal(by, binding) {
				refusal = consume.Reused(i)
				return nil
			}
		}
		t.put(entry{kind: kindRecord, exp: exp, key: rk, value: binary.BigEndian.AppendUint64(nil, exp)})
		hold := expirySeconds(consume.HoldUntil(r, now))
		for _, k := range ids {
			t.put(entry{kind: kindClaim, exp: hold, key: k, value: binding})
		}
		return nil
	})
	switch {
	case err != nil:
		return consume.Unavailable("commit", err)
	case expired:
		return consume.ErrExpired
	case consumed:
		return consume.ErrConsumed
	case refusal != nil:
		return refusal
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

// Len returns the number of records held (for metrics and tests), after a
// checkpoint.
func (s *Store) Len() (int, error) { return s.count(bucketRecords) }

// Claims returns the number of identities held (three per Consumption),
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
