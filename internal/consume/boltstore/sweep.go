// Expiry: the background sweep and the expiry index that makes it cost
// only the records it removes (the package comment).

package boltstore

import (
	"context"
	"encoding/binary"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/toolgate/toolgate/internal/consume"
)

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
