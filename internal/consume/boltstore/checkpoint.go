// Checkpoints and replay: the journal's entries reach the bbolt file in one
// transaction, at a checkpoint or, after a crash, when Open replays them.

package boltstore

import (
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"
)

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
	s.mem = map[string]entry{}
	s.fmu.Unlock()
	s.seg, s.memBytes = next, 0
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
