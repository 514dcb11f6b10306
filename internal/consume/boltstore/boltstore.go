// Package boltstore is the standalone Consumption store: one bbolt file in
// a state directory, written with an fsync on every commit.
//
// A Consume is one read-write transaction that creates the record only when
// it is absent. Consumes and Claims are group-committed (issue 18, item 2):
// the write that finds no commit running takes every write waiting, runs
// them in one transaction and answers each only after that transaction's
// fsync returned; writes that arrive during an fsync share the next one.
// A lone write therefore commits at once, in its caller's goroutine, and
// there is no timer — bbolt's Batch has one, which split concurrent writes
// into many small commits. A batch in which one write fails is re-run one
// write at a time, so each still commits or fails alone.
//
// The file is locked by one process at a time, so every replica sharing
// the store is a goroutine of that process: use etcdstore or apistore for
// several processes.
//
// A Consume reads the clock inside its write transaction, immediately
// before the atomic step, and refuses an expired Authorization
// (consume.ErrExpired) without writing: sweeps are write transactions too,
// so no sweep can run between that reading and the step.
//
// A Claim is one read-write transaction too: it reads the three
// identities' entries (bucket "claims", key domain/index/identity) and
// writes all three or none.
//
// Records and claims expire: a sweeper goroutine, started by Open and stopped by
// Close, deletes every record whose expiresAt lies more than
// Options.Retention in the past, every Options.SweepInterval. An expiry index (bucket "expiry", keys
// big-endian expiry seconds + record key) makes a sweep cost only the
// records it removes. Time comes from Options.Clock, so tests are
// deterministic and can call Sweep themselves.
package boltstore

import (
	"context"
	"encoding/binary"
	"errors"
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
	// transaction never grows without bound under a flood.
	DefaultMaxBatch = 512
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
	// OpenTimeout bounds the wait for the file lock another process holds;
	// 0 means DefaultOpenTimeout.
	OpenTimeout time.Duration
	// Retention is how long past its expiry a record is kept; 0 means
	// consume.DefaultRetention, and a negative value is rejected by Open.
	// One process owns the file, so only that process's clock and its
	// request times matter: keep it at least consume.MaxRequestTime.
	Retention time.Duration
	// MaxBatch is the most Consumes and Claims one transaction (and one
	// fsync) commits together; 0 means DefaultMaxBatch and 1 commits every
	// write alone. Negative values are rejected by Open.
	MaxBatch int
}

// Store is the bbolt Consumption store. It is safe for concurrent use.
type Store struct {
	db        *bolt.DB
	clock     func() time.Time
	retention uint64 // whole seconds, rounded up
	maxBatch  int

	// Group commit (see commit): the writes waiting, whether one of them
	// is committing, and whether Close was called.
	mu      sync.Mutex
	pending []*write
	leading bool
	shared  bool // the last batch held more than one write
	closed  bool

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

var _ consume.Store = (*Store)(nil)

// Open opens (creating when absent) the store file in dir, which must exist
// or be creatable with mode 0700. Failure wraps consume.ErrUnavailable.
func Open(dir string, opts Options) (*Store, error) {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.SweepInterval == 0 {
		opts.SweepInterval = DefaultSweepInterval
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
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{
		Timeout:      opts.OpenTimeout,
		NoSync:       false, // fsync on every commit: a yes survives a crash
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
	s := &Store{db: db, clock: opts.Clock, retention: uint64((opts.Retention + time.Second - 1) / time.Second),
		maxBatch: opts.MaxBatch, stop: make(chan struct{}), done: make(chan struct{})}
	if opts.SweepInterval > 0 {
		go s.sweepLoop(opts.SweepInterval)
	} else {
		close(s.done)
	}
	return s, nil
}

// Consume records r unless it is recorded already or expired by the clock
// read inside the transaction.
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
	err := s.commit(func(tx *bolt.Tx) error {
		consumed, expired = false, false // a failed batch runs this function again alone
		if r.Expired(s.clock()) {
			expired = true
			return nil
		}
		records := tx.Bucket(bucketRecords)
		if records.Get(rk) != nil {
			consumed = true
			return nil
		}
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], exp)
		if err := records.Put(rk, v[:]); err != nil {
			return err
		}
		return tx.Bucket(bucketExpiry).Put(expiryKey(exp, rk), nil)
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

// Ready reports whether the file answers a read transaction.
func (s *Store) Ready(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return consume.Unavailable("ready", err)
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

// write is one Consume's or Claim's work in a transaction; done receives
// errLead (this write's goroutine now commits the next batch) or the
// outcome of the transaction that ran fn, after its commit and fsync
// returned.
type write struct {
	fn   func(*bolt.Tx) error
	done chan error
}

// errLead hands the committing to a waiting write; it never leaves the
// package.
var errLead = errors.New("lead the next commit")

// commit runs fn in a read-write transaction shared with the writes that
// wait beside it, and returns once that transaction committed or failed.
//
// Group commit without a goroutine of its own: the first write to find no
// commit running leads — it takes every waiting write (itself included, up
// to maxBatch), commits them in one transaction, answers them, and hands
// the lead to the oldest write that arrived meanwhile. A lone write thus
// commits in its caller's goroutine, with no handoff and no delay.
func (s *Store) commit(fn func(*bolt.Tx) error) error {
	w := &write{fn: fn, done: make(chan error, 1)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return bberrors.ErrDatabaseNotOpen
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

// run commits batch in one transaction and answers every write with its
// outcome. When one write's function fails, the transaction is rolled back
// and every write is re-run in a transaction of its own, so that only the
// failing one fails (each function resets its results on entry).
func (s *Store) run(batch []*write) {
	failed := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		for _, w := range batch {
			if err := w.fn(tx); err != nil {
				failed = true
				return err
			}
		}
		return nil
	})
	if !failed || len(batch) == 1 {
		for _, w := range batch {
			w.done <- err
		}
		return
	}
	for _, w := range batch {
		w.done <- s.db.Update(w.fn)
	}
}

// Sweep deletes every record and every claim whose expiresAt plus the
// retention is at or before the clock's now, in transactions of at most
// SweepBatch deletions, and returns how many it deleted.
func (s *Store) Sweep(ctx context.Context) (int, error) {
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

// Claim records c's identities in one read-write transaction, decided by
// consume.Resolve over what the transaction reads for them: all three are
// written, or none.
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
	err := s.commit(func(tx *bolt.Tx) error {
		out, refusal = consume.Claim{}, nil // a failed batch runs this function again alone
		claims := tx.Bucket(bucketClaims)
		var stored [3]*consume.Claim
		for i, k := range keys {
			if v := claims.Get(k); v != nil {
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
		index := tx.Bucket(bucketClaimExpiry)
		for _, k := range keys {
			if err := claims.Put(k, value); err != nil {
				return err
			}
			if err := index.Put(expiryKey(exp, k), nil); err != nil {
				return err
			}
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

// Len returns the number of records held (for metrics and tests).
func (s *Store) Len() (int, error) { return s.count(bucketRecords) }

// Claims returns the number of claimed identities held (three per claim).
func (s *Store) Claims() (int, error) { return s.count(bucketClaims) }

func (s *Store) count(bucket []byte) (int, error) {
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

func (s *Store) sweepLoop(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			// A failed sweep leaves records longer than needed, which
			// never permits a second Consumption; the next tick retries.
			_, _ = s.Sweep(context.Background())
		}
	}
}

// Close stops the sweeper and closes the file. Every later call fails
// closed with ErrUnavailable. Close is idempotent.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.stop)
		<-s.done
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
