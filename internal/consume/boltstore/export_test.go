package boltstore

// Crash stops s as a killed process would: the file and the journal are
// closed without a checkpoint, so the next Open must replay the journal.
// The store must have been opened with a negative CheckpointInterval.
func (s *Store) Crash() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.stop)
		<-s.done
		_ = s.seg.f.Close()
		s.closeErr = s.db.Close()
	})
}

// AppendEntry is the journal's encoding of a record entry, for tests that
// tear or corrupt a segment.
func AppendEntry(b []byte, key string, exp uint64) []byte {
	return appendEntry(b, entry{kind: kindRecord, exp: exp, key: []byte(key), value: make([]byte, 8)})
}

// JournalPrefix is the name of every journal segment before its sequence.
const JournalPrefix = journalPrefix

// SetBeforeCopy makes f run inside every checkpoint after the journal's
// entries were frozen and before they are copied into the file. Call it
// before the store is used.
func SetBeforeCopy(s *Store, f func()) { s.beforeCopy = f }
