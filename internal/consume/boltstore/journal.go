package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The journal is the store's write-ahead log (issue 18, item 2). A group
// commit appends one entry per write it makes durable and answers its
// writes after one fdatasync of that append; the entries reach the bbolt
// file, which still fsyncs every transaction of its own, at the next
// checkpoint. bbolt's commit costs two fsyncs plus scattered page writes;
// an append costs one, which is what lets concurrent Consumes reach the
// issue's rate.
//
// The journal is a sequence of segment files, "consumptions.journal.<seq>"
// with seq in 16 decimal digits. One is appended to; a checkpoint freezes
// it, opens the next, copies the frozen entries into the bbolt file in one
// synced transaction and only then deletes the frozen segment. Open
// replays every segment into the file before the store answers anything.
//
// An entry is
//
//	length   4 octets, big-endian: the payload's length
//	checksum 4 octets, big-endian: CRC-32C of the payload
//	payload  kind (1 octet: 'r' record, 'c' claimed identity),
//	         expiry (8 octets, big-endian Unix seconds, the expiry index's),
//	         key length (2 octets, big-endian), key, value
//
// A crash can tear only the tail of the newest segment (older segments
// were synced before the next one was opened, and a failed append stops
// the store), so replay stops at the first entry of the newest segment that
// does not check: it was never answered. An entry that does not check in
// an older segment is corruption, and Open fails closed.

const (
	journalPrefix = "consumptions.journal."
	entryHeader   = 8
	payloadFixed  = 1 + 8 + 2
	// maxPayload bounds one entry; keys and values are small (a claim is
	// under 1 KiB), so anything larger is corruption.
	maxPayload = 1 << 16
)

const (
	kindRecord byte = 'r'
	kindClaim  byte = 'c'
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

var (
	errCorruptJournal = errors.New("corrupt journal segment")
	errJournalFailed  = errors.New("journal append failed; the store refuses writes until it is reopened")
)

// entry is one durable write: a key of a bucket (records or claims), its
// value and its expiry seconds, from which the expiry index is derived.
type entry struct {
	kind  byte
	exp   uint64
	key   []byte
	value []byte
}

// bucket is the data bucket of kind, and index its expiry index.
func (e entry) buckets() (data, index []byte) {
	if e.kind == kindClaim {
		return bucketClaims, bucketClaimExpiry
	}
	return bucketRecords, bucketExpiry
}

// appendEntry appends e's encoding to b.
func appendEntry(b []byte, e entry) []byte {
	n := payloadFixed + len(e.key) + len(e.value)
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = append(b, 0, 0, 0, 0) // checksum, below
	b = append(b, e.kind)
	b = binary.BigEndian.AppendUint64(b, e.exp)
	b = binary.BigEndian.AppendUint16(b, uint16(len(e.key)))
	b = append(b, e.key...)
	b = append(b, e.value...)
	binary.BigEndian.PutUint32(b[start+4:], crc32.Checksum(b[start+entryHeader:], crc32c))
	return b
}

// decodeEntries returns the entries of a segment's bytes up to the first
// one that does not check, and whether the whole of b checked.
func decodeEntries(b []byte) ([]entry, bool) {
	var out []entry
	for len(b) > 0 {
		if len(b) < entryHeader {
			return out, false
		}
		n := int(binary.BigEndian.Uint32(b))
		if n < payloadFixed || n > maxPayload || len(b)-entryHeader < n {
			return out, false
		}
		p := b[entryHeader : entryHeader+n]
		if crc32.Checksum(p, crc32c) != binary.BigEndian.Uint32(b[4:]) {
			return out, false
		}
		kind, klen := p[0], int(binary.BigEndian.Uint16(p[9:]))
		if (kind != kindRecord && kind != kindClaim) || payloadFixed+klen > n {
			return out, false
		}
		out = append(out, entry{
			kind:  kind,
			exp:   binary.BigEndian.Uint64(p[1:]),
			key:   p[payloadFixed : payloadFixed+klen],
			value: p[payloadFixed+klen:],
		})
		b = b[entryHeader+n:]
	}
	return out, true
}

// segment is one open journal file being appended to.
type segment struct {
	seq  uint64
	f    *os.File
	size int64
}

func segmentPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%016d", journalPrefix, seq))
}

// segments lists the journal segments in dir, oldest first.
func segments(dir string) ([]uint64, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var seqs []uint64
	for _, de := range des {
		s, ok := strings.CutPrefix(de.Name(), journalPrefix)
		if !ok {
			continue
		}
		seq, err := strconv.ParseUint(s, 10, 64)
		if err != nil || len(s) != 16 {
			return nil, errCorruptJournal // a name the store never writes
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	return seqs, nil
}

// readSegments returns every durable entry of the segments seqs, oldest
// first: all of every segment but the newest, whose torn tail (if any) is
// dropped.
func readSegments(dir string, seqs []uint64) ([]entry, error) {
	var all []entry
	for i, seq := range seqs {
		b, err := os.ReadFile(segmentPath(dir, seq))
		if err != nil {
			return nil, err
		}
		es, whole := decodeEntries(b)
		if !whole && i < len(seqs)-1 {
			return nil, errCorruptJournal
		}
		all = append(all, es...)
	}
	return all, nil
}

// createSegment creates segment seq, empty, and syncs dir so that the
// file's existence survives a crash before its first append is answered.
func createSegment(dir string, seq uint64) (*segment, error) {
	f, err := os.OpenFile(segmentPath(dir, seq), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		_ = f.Close()
		return nil, err
	}
	return &segment{seq: seq, f: f}, nil
}

// append writes b at the segment's end and returns once it is durable.
func (sg *segment) append(b []byte) error {
	n, err := sg.f.Write(b)
	sg.size += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return err
	}
	return fdatasync(sg.f)
}

// removeSegments deletes the segments seqs and syncs dir.
func removeSegments(dir string, seqs []uint64) error {
	for _, seq := range seqs {
		if err := os.Remove(segmentPath(dir, seq)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
