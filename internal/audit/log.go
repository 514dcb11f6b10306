package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/toolgate/toolgate/internal/logtime"
)

// The files of a log directory.
const (
	RecordsFile     = "records"
	HashesFile      = "hashes"
	CheckpointsFile = "checkpoints"
)

// Defaults of Options.
const (
	DefaultCheckpointEvery    = 1000
	DefaultCheckpointInterval = 10 * time.Second
)

// Options tune a Log.
type Options struct {
	// CheckpointEvery signs a checkpoint once this many records are
	// unsigned; DefaultCheckpointEvery when 0.
	CheckpointEvery int64
	// CheckpointInterval signs a checkpoint of the unsigned records this
	// often; DefaultCheckpointInterval when 0, never (only by count and at
	// Close) when negative.
	CheckpointInterval time.Duration
	// Clock dates the drop records Open writes; time.Now when nil.
	Clock func() time.Time
}

// Log appends records to a log directory. Write takes whole decision-log
// lines; a Log is safe for concurrent use.
type Log struct {
	mu          sync.Mutex
	records     *os.File
	hashes      *os.File
	checkpoints *os.File
	key         *Key
	every       int64
	n           int64 // records in the log
	signed      int64 // size of the last checkpoint
	recordsSize int64 // octets in records
	// frontier holds, for each level whose bit is set in fsize, the hash
	// of the complete subtree of that height on the right edge of the tree
	// of fsize records: all that appending and a root need.
	frontier [64]tlog.Hash
	fsize    int64
	buf      []byte
	stored   []byte
	broken   error // a write that could not be undone: no more appends
	signErr  error // the last checkpoint that could not be signed
	stop     chan struct{}
	ticker   sync.WaitGroup
	closed   bool
}

var (
	// ErrNotLines: Write was given something other than whole JSON-object
	// lines.
	ErrNotLines = errors.New("audit: a write must be whole JSON-object lines")
	// ErrClosed: the log was closed.
	ErrClosed = errors.New("audit: the log is closed")
)

// Open opens (creating when absent) the log in dir, signing with key. A
// log torn by a crash is repaired: a partial last line or checkpoint is cut
// off, and records whose hashes were stored but whose line never reached
// the disk are recorded as truncated, naming the missing range (the loss
// is in the log itself, and audit verify names it). Open
// refuses a log whose files disagree in a way no crash explains — records
// the hashes do not cover, a last checkpoint beyond the records or not
// matching them — and says to run audit verify.
func Open(dir string, key *Key, o Options) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	l := &Log{key: key, every: o.CheckpointEvery, stop: make(chan struct{})}
	if l.every <= 0 {
		l.every = DefaultCheckpointEvery
	}
	var err error
	open := func(name string) *os.File {
		if err != nil {
			return nil
		}
		var f *os.File
		f, err = os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
		return f
	}
	l.records, l.hashes, l.checkpoints = open(RecordsFile), open(HashesFile), open(CheckpointsFile)
	if err == nil {
		err = l.recover(o)
	}
	if err != nil {
		_ = l.closeFiles()
		return nil, fmt.Errorf("audit log %s: %w", dir, err)
	}
	if o.CheckpointInterval == 0 {
		o.CheckpointInterval = DefaultCheckpointInterval
	}
	if o.CheckpointInterval > 0 {
		l.ticker.Go(func() { l.tick(o.CheckpointInterval) })
	}
	return l, nil
}

// recover reads the files' state, repairs what a crash tears, and signs a
// checkpoint of any unsigned records.
func (l *Log) recover(o Options) error {
	lines, size, total, err := countLines(l.records)
	if err != nil {
		return err
	}
	st, err := l.hashes.Stat()
	if err != nil {
		return err
	}
	hashed := leavesOf(st.Size() / tlog.HashSize)
	switch {
	case lines > hashed:
		return fmt.Errorf("records holds %d records but hashes covers %d: records were added outside the log; run toolgate audit verify", lines, hashed)
	case total > size && lines == hashed:
		// The writer writes a record's hashes before its line, so a torn
		// line always has hashes; one without was added outside the log.
		return fmt.Errorf("records ends in a partial line no hash covers: it was added outside the log; run toolgate audit verify")
	case lines < hashed && lines < l.lastCheckpointSizeHint():
		return fmt.Errorf("records holds %d records but a checkpoint covers more; run toolgate audit verify", lines)
	}
	if err := l.records.Truncate(size); err != nil { // a torn last line
		return err
	}
	l.recordsSize = size
	if err := l.hashes.Truncate(tlog.StoredHashCount(lines) * tlog.HashSize); err != nil {
		return err
	}
	l.n = lines
	if err := l.loadFrontier(); err != nil {
		return err
	}
	if err := l.readLastCheckpoint(); err != nil {
		return err
	}
	if lost := hashed - lines; lost > 0 {
		clock := o.Clock
		if clock == nil {
			clock = time.Now
		}
		// Not a drop: nothing overloaded. Records that were written are
		// gone (cut after the last checkpoint, or lost in a crash between
		// their hashes and their lines), and the log says which.
		line := append(AppendTruncatedLine(nil, clock().Unix(), lines, lost), '\n')
		if _, err := l.Write(line); err != nil {
			return err
		}
	}
	if l.n > l.signed {
		return l.checkpoint()
	}
	return nil
}

// lastCheckpointSizeHint is the size of the last complete checkpoint in
// the file, unverified, or 0.
func (l *Log) lastCheckpointSizeHint() int64 {
	data, err := readAll(l.checkpoints)
	if err != nil {
		return 0
	}
	notes, _ := splitNotes(data)
	if len(notes) == 0 {
		return 0
	}
	lines := bytes.SplitN(notes[len(notes)-1], []byte("\n"), 3)
	if len(lines) < 3 {
		return 0
	}
	n, _ := strconv.ParseInt(string(lines[1]), 10, 64)
	return n
}

// readLastCheckpoint cuts a torn note off the checkpoints file and checks
// the last checkpoint against the stored hashes.
func (l *Log) readLastCheckpoint() error {
	data, err := readAll(l.checkpoints)
	if err != nil {
		return err
	}
	notes, rest := splitNotes(data)
	if err := l.checkpoints.Truncate(int64(len(data) - len(rest))); err != nil {
		return err
	}
	if len(notes) == 0 {
		return nil
	}
	c, err := openCheckpoint(notes[len(notes)-1], l.key.verifier)
	if err != nil {
		return fmt.Errorf("the last checkpoint: %v; run toolgate audit verify", err)
	}
	if c.size > l.n {
		return fmt.Errorf("the last checkpoint covers %d records but the log holds %d; run toolgate audit verify", c.size, l.n)
	}
	root, err := tlog.TreeHash(c.size, l.reader())
	if err != nil {
		return err
	}
	if root != c.root {
		return fmt.Errorf("the stored hashes do not match the last checkpoint (size %d); run toolgate audit verify", c.size)
	}
	l.signed = c.size
	return nil
}

// Write appends p, one or more whole lines each a JSON object, as records
// with their seq, and signs a checkpoint when CheckpointEvery records are
// unsigned. Nothing of p is appended when it returns an error.
func (l *Log) Write(p []byte) (int, error) {
	if len(p) == 0 || p[len(p)-1] != '\n' {
		return 0, ErrNotLines
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return 0, ErrClosed
	case l.broken != nil:
		return 0, l.broken
	}
	buf, stored, n := l.buf[:0], l.stored[:0], l.n
	reader := l.reader()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		line := rest[:i]
		rest = rest[i+1:]
		if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
			l.restoreFrontier()
			return 0, ErrNotLines
		}
		start := len(buf)
		buf = strconv.AppendInt(append(buf, `{"seq":`...), n, 10)
		if len(line) > 2 {
			buf = append(buf, ',')
		}
		buf = append(buf, line[1:]...)
		hs, err := tlog.StoredHashes(n, buf[start:], reader)
		if err != nil {
			l.restoreFrontier()
			return 0, err
		}
		buf = append(buf, '\n')
		for _, h := range hs {
			stored = append(stored, h[:]...)
		}
		// The last hash stored for record n is the subtree it completes,
		// of the height of n's trailing one bits; the lower ones merged
		// into it.
		l.frontier[len(hs)-1], l.fsize = hs[len(hs)-1], n+1
		n++
	}
	l.buf, l.stored = buf, stored
	// The hashes go first: a crash between the two writes leaves hashes
	// without records, which Open records as dropped; records without
	// hashes would be indistinguishable from records added afterwards.
	hashesSize := tlog.StoredHashCount(l.n) * tlog.HashSize
	if err := l.append(l.hashes, hashesSize, stored); err != nil {
		l.restoreFrontier()
		return 0, err
	}
	if err := l.append(l.records, l.recordsSize, buf); err != nil {
		if terr := l.hashes.Truncate(hashesSize); terr != nil {
			l.broken = fmt.Errorf("audit: a failed write could not be undone: %w", terr)
		}
		l.restoreFrontier()
		return 0, err
	}
	l.n, l.recordsSize = n, l.recordsSize+int64(len(buf))
	if l.n-l.signed >= l.every {
		l.signErr = l.checkpoint()
	}
	return len(p), nil
}

// append writes b at offset off of f (its end), cutting a partial write
// off again.
func (l *Log) append(f *os.File, off int64, b []byte) error {
	if _, err := f.WriteAt(b, off); err != nil {
		if terr := f.Truncate(off); terr != nil {
			l.broken = fmt.Errorf("audit: a failed write could not be undone: %w", terr)
		}
		return err
	}
	return nil
}

// checkpoint syncs the records and hashes and appends a signed checkpoint
// of all records. l.mu is held (or l is not yet shared).
func (l *Log) checkpoint() error {
	if err := errors.Join(l.hashes.Sync(), l.records.Sync()); err != nil {
		return err
	}
	root, err := tlog.TreeHash(l.n, l.reader())
	if err != nil {
		return err
	}
	msg, err := checkpoint{origin: l.key.signer.Name(), size: l.n, root: root}.sign(l.key.signer)
	if err != nil {
		return err
	}
	st, err := l.checkpoints.Stat()
	if err != nil {
		return err
	}
	if err := l.append(l.checkpoints, st.Size(), msg); err != nil {
		return err
	}
	if err := l.checkpoints.Sync(); err != nil {
		return err
	}
	l.signed = l.n
	return nil
}

// tick signs a checkpoint of the unsigned records every interval.
func (l *Log) tick(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.mu.Lock()
			if !l.closed && l.broken == nil && l.n > l.signed {
				l.signErr = l.checkpoint()
			}
			l.mu.Unlock()
		}
	}
}

// Size returns the number of records and the size of the last checkpoint.
func (l *Log) Size() (records, signed int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.signed
}

// Close signs a checkpoint of the unsigned records and closes the files.
// It returns the error of the last checkpoint that failed, if no later one
// succeeded.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	close(l.stop)
	var err error
	if l.broken == nil && l.n > l.signed {
		l.signErr = l.checkpoint()
	}
	if l.n > l.signed {
		err = l.signErr
	}
	err = errors.Join(err, l.closeFiles())
	l.mu.Unlock()
	l.ticker.Wait()
	return err
}

func (l *Log) closeFiles() error {
	var errs []error
	for _, f := range []*os.File{l.records, l.hashes, l.checkpoints} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// reader reads stored hashes from the frontier, or else from the hashes
// file.
func (l *Log) reader() tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if level, k := tlog.SplitStoredHashIndex(x); l.fsize&(1<<level) != 0 && k == frontierNode(l.fsize, level) {
				out[i] = l.frontier[level]
				continue
			}
			if _, err := l.hashes.ReadAt(out[i][:], x*tlog.HashSize); err != nil {
				return nil, fmt.Errorf("reading stored hash %d: %w", x, err)
			}
		}
		return out, nil
	})
}

// frontierNode is the index, at level, of the complete subtree on the
// right edge of a tree of n records whose bit level is set: the records
// above that bit come before it.
func frontierNode(n int64, level int) int64 {
	return n >> (level + 1) << 1
}

// loadFrontier reads the frontier of l.n records from the hashes file.
func (l *Log) loadFrontier() error {
	l.fsize = 0
	for level := range 63 {
		if l.n&(1<<level) == 0 {
			continue
		}
		x := tlog.StoredHashIndex(level, frontierNode(l.n, level))
		if _, err := l.hashes.ReadAt(l.frontier[level][:], x*tlog.HashSize); err != nil {
			return fmt.Errorf("reading stored hash %d: %w", x, err)
		}
	}
	l.fsize = l.n
	return nil
}

// restoreFrontier reloads the frontier of l.n records after a failed
// write.
func (l *Log) restoreFrontier() {
	if err := l.loadFrontier(); err != nil {
		l.broken = fmt.Errorf("audit: the stored hashes cannot be read again: %w", err)
	}
}

// leavesOf returns the largest number of records whose stored hashes fit
// in count hashes.
func leavesOf(count int64) int64 {
	lo, hi := int64(0), count
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if tlog.StoredHashCount(mid) <= count {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// countLines counts the whole lines of f and returns the octets they
// take (a partial last line excluded) and the octets of f.
func countLines(f *os.File) (lines, size, total int64, err error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 1<<16)
	for {
		chunk, err := r.ReadSlice('\n')
		total += int64(len(chunk))
		switch {
		case err == nil:
			lines, size = lines+1, total
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return lines, size, total, nil
		default:
			return 0, 0, 0, err
		}
	}
}

func readAll(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// AppendDroppedLine appends the decision-log line that records n lines
// lost (a full buffer, a failed write, a crash) at unixTime: the drop is in
// the log itself, not only in a metric.
func AppendDroppedLine(b []byte, unixTime int64, n uint64) []byte {
	b = append(logtime.AppendUnix(append(b, `{"time":"`...), unixTime), '"')
	b = strconv.AppendUint(append(b, `,"verb":"dropped","dropped":`...), n, 10)
	return append(b, `,"result":"dropped"}`...)
}

// AppendTruncatedLine appends the record Open writes when n records from
// seq from had their hashes stored but were missing from the records file:
// an unsigned tail cut off, or lines a crash lost. Unlike a drop, these
// records were written; Verify reports the line as a Truncated finding.
func AppendTruncatedLine(b []byte, unixTime, from, n int64) []byte {
	b = append(logtime.AppendUnix(append(b, `{"time":"`...), unixTime), '"')
	b = strconv.AppendInt(append(b, `,"verb":"truncated","from":`...), from, 10)
	b = strconv.AppendInt(append(b, `,"missing":`...), n, 10)
	return append(b, `,"result":"truncated"}`...)
}
