package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Kind is a finding's closed reason code.
type Kind string

// The kinds of finding.
const (
	// Modified: the line at a record's place is not that record.
	Modified Kind = "modified"
	// Deleted: a record is missing.
	Deleted Kind = "deleted"
	// Inserted: a line that is no record of the log, or a second copy of one.
	Inserted Kind = "inserted"
	// Swapped: two adjacent records trade places.
	Swapped Kind = "swapped"
	// Reordered: a record stands away from its place.
	Reordered Kind = "reordered"
	// CheckpointMismatch: the records do not hash to a signed checkpoint.
	CheckpointMismatch Kind = "checkpointMismatch"
	// HashesRewritten: the hashes file does not hash to a signed checkpoint.
	HashesRewritten Kind = "hashesRewritten"
	// HashesDamaged: the hashes file is missing, cut, or disagrees with
	// itself.
	HashesDamaged Kind = "hashesDamaged"
	// BadCheckpoint: a checkpoint that does not verify, parse or follow the
	// previous one.
	BadCheckpoint Kind = "badCheckpoint"
	// KeptCheckpointMismatch: a signed checkpoint kept outside the log that
	// the log no longer gives: it was cut back or rewritten, checkpoints
	// included.
	KeptCheckpointMismatch Kind = "keptCheckpointMismatch"
	// Truncated: records were missing from the records file when the log
	// was opened (their hashes were stored), and the log recorded it.
	Truncated Kind = "truncated"
)

// Finding is one thing Verify found wrong. Seq is a record's position in
// the log (what its "seq" says when intact), Line a 1-based line of the
// records file, Checkpoint a 1-based checkpoint number; -1 or 0 when not
// applicable.
type Finding struct {
	Kind        Kind
	Seq, Seq2   int64
	Line, Line2 int64
	// CopyOf is the record an inserted line duplicates, or -1.
	CopyOf     int64
	Checkpoint int
	// From and To bound the records a checkpoint finding covers: [From, To).
	From, To int64
	detail   string
}

// String is the finding as a line a person can act on.
func (f Finding) String() string {
	switch f.Kind {
	case Modified:
		return fmt.Sprintf("record seq %d (line %d): modified", f.Seq, f.Line)
	case Deleted:
		if f.Line > 0 {
			return fmt.Sprintf("record seq %d: deleted (it belongs before line %d)", f.Seq, f.Line)
		}
		return fmt.Sprintf("record seq %d: deleted (it belongs at the end)", f.Seq)
	case Inserted:
		if f.CopyOf >= 0 {
			return fmt.Sprintf("line %d: inserted (a second copy of record seq %d)", f.Line, f.CopyOf)
		}
		return fmt.Sprintf("line %d: inserted (no record of the log)", f.Line)
	case Swapped:
		return fmt.Sprintf("records seq %d and %d (lines %d and %d): swapped", f.Seq, f.Seq2, f.Line, f.Line2)
	case Reordered:
		return fmt.Sprintf("record seq %d (line %d): out of order (the line of record seq %d)", f.Seq, f.Line, f.Seq2)
	case CheckpointMismatch:
		return fmt.Sprintf("checkpoint %d (size %d): the records no longer give its signed root%s: the first alteration is among records seq %d to %d", f.Checkpoint, f.To, f.detail, f.From, f.To-1)
	case HashesRewritten:
		return fmt.Sprintf("checkpoint %d (size %d): the hashes file no longer gives its signed root%s: the first rewritten hash is among records seq %d to %d", f.Checkpoint, f.To, f.detail, f.From, f.To-1)
	case KeptCheckpointMismatch:
		return fmt.Sprintf("kept checkpoint %d (size %d): the records no longer give its signed root%s: the log was cut back or rewritten, its checkpoints with it", f.Checkpoint, f.To, f.detail)
	case Truncated:
		return fmt.Sprintf("records seq %d to %d: missing when the log was opened, recorded by record seq %d (line %d): the unsigned tail was cut (deleted) or a crash lost them between their hashes and their lines", f.From, f.To-1, f.Seq, f.Line)
	case HashesDamaged:
		return "hashes file: " + f.detail
	case BadCheckpoint:
		if f.Checkpoint > 0 {
			return fmt.Sprintf("checkpoint %d: %s", f.Checkpoint, f.detail)
		}
		return "checkpoints file: " + f.detail
	}
	return string(f.Kind)
}

// MaxFindings bounds the findings a Report lists; the rest are counted.
const MaxFindings = 1000

// Report is what Verify found.
type Report struct {
	// Records is the number of lines in the records file.
	Records int64
	// Checkpoints is the number of checkpoints that verify; Signed is the
	// size of the last of them.
	Checkpoints int
	Signed      int64
	Findings    []Finding
	// Omitted counts the findings beyond MaxFindings.
	Omitted int
}

// OK reports whether nothing was found.
func (r *Report) OK() bool { return len(r.Findings) == 0 }

func (r *Report) add(f Finding) {
	if len(r.Findings) >= MaxFindings {
		r.Omitted++
		return
	}
	r.Findings = append(r.Findings, f)
}

// signed is a checkpoint that verified, with its 1-based number.
type signed struct {
	checkpoint
	number int
}

// Verify checks the log in dir against the checkpoints v signed: every
// record is rehashed, the tree rebuilt, and every difference named — a
// modified, deleted, inserted, swapped or reordered record by its seq and
// line, a checkpoint the records or the hashes do not match by the range of
// records it covers. kept are copies of signed checkpoints kept outside the
// log (a copy of its checkpoints file, a proof): the log must still give
// each, which is what catches a log cut back together with its
// checkpoints. An error means the log could not be read at all.
func Verify(dir string, v note.Verifier, kept ...[]byte) (*Report, error) {
	recs, err := os.ReadFile(filepath.Join(dir, RecordsFile))
	if err != nil {
		return nil, fmt.Errorf("audit: reading the log: %w", err)
	}
	r := &Report{}
	lines := splitLines(recs)
	r.Records = int64(len(lines))
	actual := make([]tlog.Hash, len(lines))
	for i, line := range lines {
		actual[i] = tlog.RecordHash(line)
		checkTruncated(line, int64(i), r)
	}
	expected, storedE := readExpected(dir, r)
	cps := readCheckpoints(dir, v, r)
	if len(cps) > 0 {
		r.Checkpoints, r.Signed = len(cps), cps[len(cps)-1].size
	}
	if expected != nil {
		align(expected, actual, r)
		checkAgainst(cps, storedE, HashesRewritten, r)
	}
	storedA, err := storedHashesOf(actual)
	if err != nil {
		return nil, err
	}
	checkAgainst(cps, storedA, CheckpointMismatch, r)
	checkKept(kept, v, storedA, r)
	return r, nil
}

// truncatedMark is in every record Open writes for a missing range.
var truncatedMark = []byte(`"verb":"truncated"`)

// checkTruncated reports the record at seq if it is Open's record of
// missing records (AppendTruncatedLine).
func checkTruncated(line []byte, seq int64, r *Report) {
	if !bytes.Contains(line, truncatedMark) {
		return
	}
	var rec struct {
		Verb          string
		From, Missing int64
	}
	if json.Unmarshal(line, &rec) != nil || rec.Verb != "truncated" || rec.From < 0 || rec.Missing <= 0 {
		return
	}
	r.add(Finding{Kind: Truncated, Seq: seq, Line: seq + 1, CopyOf: -1, From: rec.From, To: rec.From + rec.Missing})
}

// checkKept reports each signed checkpoint in kept that the tree of the
// records (stored) does not give.
func checkKept(kept [][]byte, v note.Verifier, stored []tlog.Hash, r *Report) {
	size := leavesOf(int64(len(stored)))
	number := 0
	for _, raw := range kept {
		// A proof file carries its checkpoints after its header.
		if bytes.HasPrefix(raw, []byte(proofHeader+"\n")) {
			_, raw, _ = bytes.Cut(raw, []byte("\n\n"))
		}
		notes, _ := splitNotes(raw)
		for _, msg := range notes {
			number++
			c, err := openCheckpoint(msg, v)
			if err != nil {
				r.add(Finding{Kind: BadCheckpoint, detail: fmt.Sprintf("kept checkpoint %d: %v", number, err)})
				continue
			}
			f := Finding{Kind: KeptCheckpointMismatch, Checkpoint: number, To: c.size}
			if c.size > size {
				f.detail = fmt.Sprintf(" (it covers %d records, there are %d)", c.size, size)
				r.add(f)
				continue
			}
			if root, err := tlog.TreeHash(c.size, sliceReader(&stored)); err != nil || root != c.root {
				r.add(f)
			}
		}
	}
}

// splitLines splits the records file into its lines, a partial last line
// included (it is then no record).
func splitLines(b []byte) [][]byte {
	lines := bytes.Split(b, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// readExpected reads the leaf hashes of the hashes file and rebuilds the
// tree from them; nil when the file is missing or unusable.
func readExpected(dir string, r *Report) (leaves, stored []tlog.Hash) {
	raw, err := os.ReadFile(filepath.Join(dir, HashesFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.add(Finding{Kind: HashesDamaged, detail: "missing: the records are checked against the checkpoints only"})
		return nil, nil
	case err != nil:
		r.add(Finding{Kind: HashesDamaged, detail: "unreadable: the records are checked against the checkpoints only"})
		return nil, nil
	}
	count := int64(len(raw)) / tlog.HashSize
	n := leavesOf(count)
	if int64(len(raw)) != tlog.StoredHashCount(n)*tlog.HashSize {
		r.add(Finding{Kind: HashesDamaged, detail: fmt.Sprintf("%d octets are not the stored hashes of a whole number of records (cut or extended)", len(raw))})
	}
	file := make([]tlog.Hash, tlog.StoredHashCount(n))
	for i := range file {
		copy(file[i][:], raw[i*tlog.HashSize:])
	}
	leaves = make([]tlog.Hash, n)
	for i := range leaves {
		leaves[i] = file[tlog.StoredHashIndex(0, int64(i))]
	}
	stored, err = storedHashesOf(leaves)
	if err != nil {
		return nil, nil
	}
	for i := range stored {
		if stored[i] != file[i] {
			level, k := tlog.SplitStoredHashIndex(int64(i))
			r.add(Finding{Kind: HashesDamaged, detail: fmt.Sprintf("the interior hash at level %d, index %d does not match the records below it: edited (inclusion proofs through it fail)", level, k)})
			break
		}
	}
	return leaves, stored
}

// storedHashesOf builds the stored hashes of the tree of leaves.
func storedHashesOf(leaves []tlog.Hash) ([]tlog.Hash, error) {
	stored := make([]tlog.Hash, 0, tlog.StoredHashCount(int64(len(leaves))))
	r := sliceReader(&stored)
	for i, h := range leaves {
		hs, err := tlog.StoredHashesForRecordHash(int64(i), h, r)
		if err != nil {
			return nil, err
		}
		stored = append(stored, hs...)
	}
	return stored, nil
}

// sliceReader reads stored hashes from *s.
func sliceReader(s *[]tlog.Hash) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if x < 0 || x >= int64(len(*s)) {
				return nil, fmt.Errorf("stored hash %d is beyond the tree", x)
			}
			out[i] = (*s)[x]
		}
		return out, nil
	})
}

// readCheckpoints returns the checkpoints that verify with v, in order,
// and adds a finding for each that does not.
func readCheckpoints(dir string, v note.Verifier, r *Report) []signed {
	raw, err := os.ReadFile(filepath.Join(dir, CheckpointsFile))
	if err != nil {
		r.add(Finding{Kind: BadCheckpoint, detail: "missing or unreadable: nothing in the log is signed"})
		return nil
	}
	notes, rest := splitNotes(raw)
	var out []signed
	for i, msg := range notes {
		c, err := openCheckpoint(msg, v)
		if err != nil {
			r.add(Finding{Kind: BadCheckpoint, Checkpoint: i + 1, detail: err.Error()})
			continue
		}
		if len(out) > 0 && c.size <= out[len(out)-1].size {
			r.add(Finding{Kind: BadCheckpoint, Checkpoint: i + 1, detail: fmt.Sprintf("its size %d does not grow from the previous checkpoint's %d: reordered or replayed", c.size, out[len(out)-1].size)})
			continue
		}
		out = append(out, signed{c, i + 1})
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		r.add(Finding{Kind: BadCheckpoint, Checkpoint: len(notes) + 1, detail: "torn or not a signed note"})
	}
	return out
}

// checkAgainst reports the first checkpoint whose root the tree in stored
// does not give, with the records it covers since the last one that
// matched.
func checkAgainst(cps []signed, stored []tlog.Hash, kind Kind, r *Report) {
	size := leavesOf(int64(len(stored)))
	var from int64
	for _, c := range cps {
		f := Finding{Kind: kind, Checkpoint: c.number, From: from, To: c.size}
		if c.size > size {
			f.detail = fmt.Sprintf(" (it covers %d records, there are %d)", c.size, size)
			r.add(f)
			return
		}
		root, err := tlog.TreeHash(c.size, sliceReader(&stored))
		if err != nil || root != c.root {
			r.add(f)
			return
		}
		from = c.size
	}
}

// align walks the records file (actual leaf hashes) against the log's
// records (expected leaf hashes) and names every difference.
func align(expected, actual []tlog.Hash, r *Report) {
	n, m := int64(len(expected)), int64(len(actual))
	index := make(map[tlog.Hash]int64, n)
	for i, h := range expected {
		index[h] = int64(i)
	}
	idx := make([]int64, m)   // the record each line is, or -1
	pos := make([]int64, n)   // the first line holding each record, or -1
	done := make([]bool, n+1) // records accounted for
	for i := range pos {
		pos[i] = -1
	}
	for j, h := range actual {
		k, ok := index[h]
		if !ok {
			k = -1
		} else if pos[k] < 0 {
			pos[k] = int64(j)
		}
		idx[j] = k
	}
	var i, j int64
	for {
		for i < n && done[i] {
			i++
		}
		if j == m {
			for ; i < n; i++ {
				if !done[i] {
					r.add(Finding{Kind: Deleted, Seq: i, CopyOf: -1})
				}
			}
			return
		}
		k, line := idx[j], j+1
		switch {
		case i == n || k >= 0 && done[k]:
			r.add(Finding{Kind: Inserted, Line: line, CopyOf: k})
			j++
		case k == i:
			done[i] = true
			i, j = i+1, j+1
		case k < 0 && pos[i] < 0:
			r.add(Finding{Kind: Modified, Seq: i, Line: line, CopyOf: -1})
			done[i] = true
			i, j = i+1, j+1
		case k < 0:
			r.add(Finding{Kind: Inserted, Line: line, CopyOf: -1})
			j++
		case k == i+1 && pos[i] == j+1:
			r.add(Finding{Kind: Swapped, Seq: i, Seq2: i + 1, Line: line, Line2: line + 1, CopyOf: -1})
			done[i], done[i+1] = true, true
			i, j = i+2, j+2
		case pos[i] > j || k < i:
			// Record k stands here, away from its place.
			r.add(Finding{Kind: Reordered, Seq: k, Seq2: i, Line: line, CopyOf: -1})
			done[k] = true
			j++
		default: // record i is nowhere
			r.add(Finding{Kind: Deleted, Seq: i, Line: line, CopyOf: -1})
			done[i] = true
			i++
		}
	}
}
