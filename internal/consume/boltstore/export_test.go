package boltstore

import "os"

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

// TearNewestSegment writes part of one more record entry (its first n
// octets; n = 0 writes the whole entry) after the entries of dir's newest
// segment, as a crash in the middle of a write leaves it.
func TearNewestSegment(dir, key string, n int) error {
	segs, _, err := journalFiles(dir)
	if err != nil {
		return err
	}
	seq := segs[len(segs)-1]
	path := segmentPath(dir, seq)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, end := decodeEntries(b, seq)
	// No zero octet in the value: a cut that only drops octets equal to
	// the preallocated zeros would not be a tear.
	v := []byte{1, 1, 1, 1, 1, 1, 1, 1}
	e := appendEntry(nil, seq, entry{kind: kindRecord, exp: 1, key: []byte(key), value: v})
	if n > 0 {
		e = e[:n]
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(e, int64(end)); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// NewestSegmentEntries is the octet range of the entries of dir's newest
// segment, and its path.
func NewestSegmentEntries(dir string) (path string, end int, err error) {
	segs, _, err := journalFiles(dir)
	if err != nil {
		return "", 0, err
	}
	seq := segs[len(segs)-1]
	path = segmentPath(dir, seq)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	_, end = decodeEntries(b, seq)
	return path, end, nil
}

// EntryLen is the length of a record entry with a key of n octets.
func EntryLen(n int) int { return entryHeader + payloadFixed + n + 8 }

// SetBeforeCopy makes f run inside every checkpoint after the journal's
// entries were frozen and before they are copied into the file. Call it
// before the store is used.
func SetBeforeCopy(s *Store, f func()) { s.beforeCopy = f }

// JournalPrefix is the name of every journal segment before its sequence.
const JournalPrefix = journalPrefix

// SegmentPath is the path of segment seq in dir.
func SegmentPath(dir string, seq uint64) string { return segmentPath(dir, seq) }
