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

// The journal is the store's write-ahead log (docs/decisions.md, "Group
// commit in boltstore"). A group commit writes one entry per write it makes
// durable and answers its writes after one fdatasync of that write; the
// entries reach the bbolt file, which still fsyncs every transaction of its
// own, at the next checkpoint. bbolt's commit costs two fsyncs plus
// scattered page writes; the journal costs one fdatasync of a few sequential
// octets.
//
// The journal is a sequence of segment files, "consumptions.journal.<seq>"
// with seq in 16 decimal digits. One is written to; a checkpoint seals it
// (a seal entry, synced), opens the next, copies the sealed entries into the
// bbolt file in one synced transaction and only then retires the sealed
// segment. Open replays every segment into the file before the store
// answers anything.
//
// Segments are preallocated (segmentSize octets, written and synced once)
// and recycled: a retired segment becomes a spare,
// "consumptions.journal-spare.<seq>", that the next segment reuses. Writing
// inside a file's allocated size needs no metadata update, so its
// fdatasync flushes data only: half the time of an append on ext4 here.
//
// An entry is
//
//	length   4 octets, big-endian: the payload's length
//	checksum 4 octets, big-endian: CRC-32C of the segment's seq (8 octets,
//	         big-endian) followed by the payload
//	payload  kind (1 octet: 'r' record, 'c' claimed identity, 's' seal),
//	         expiry (8 octets, big-endian Unix seconds, the expiry index's),
//	         key length (2 octets, big-endian), key, value
//
// The seq in the checksum makes what a recycled file held before, and the
// preallocated zeros, end the entries like a torn write does. A crash can
// tear only the newest segment's last entry (older segments were sealed
// and synced before the next one was used, and a failed write stops the
// store), so replay stops at the first entry of the newest segment that
// does not check: it was never answered. An older segment whose entries do
// not end with its seal is corrupt, and Open fails closed.

const (
	journalPrefix = "consumptions.journal."
	sparePrefix   = "consumptions.journal-spare."
	entryHeader   = 8
	payloadFixed  = 1 + 8 + 2
	// maxPayload bounds one entry; keys and values are small (a claim is
	// under 1 KiB), so anything larger ends the entries.
	maxPayload = 1 << 16
	// segmentSize is each segment's preallocation: above the checkpoint's
	// 4 MiB, so a segment is frozen before it outgrows it (a larger one
	// still works: its writes extend the file).
	segmentSize = 8 << 20
	// maxSpares bounds the retired segments kept for reuse.
	maxSpares = 2
)

const (
	kindRecord byte = 'r'
	kindClaim  byte = 'c'
	kindSeal   byte = 's'
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

var (
	errCorruptJournal = errors.New("corrupt journal segment")
	errJournalFailed  = errors.New("journal write failed; the store refuses writes until it is reopened")
)

// entry is one durable write: a key of a bucket (records or claims), its
// value and its expiry seconds, from which the expiry index is derived.
type entry struct {
	kind  byte
	exp   uint64
	key   []byte
	value []byte
}

// buckets are e's data bucket and its expiry index.
func (e entry) buckets() (data, index []byte) {
	if e.kind == kindClaim {
		return bucketClaims, bucketClaimExpiry
	}
	return bucketRecords, bucketExpiry
}

func checksum(seq uint64, payload []byte) uint32 {
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], seq)
	return crc32.Update(crc32.Checksum(s[:], crc32c), crc32c, payload)
}

// appendEntry appends e's encoding in segment seq to b.
func appendEntry(b []byte, seq uint64, e entry) []byte {
	n := payloadFixed + len(e.key) + len(e.value)
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = append(b, 0, 0, 0, 0) // checksum, below
	b = append(b, e.kind)
	b = binary.BigEndian.AppendUint64(b, e.exp)
	b = binary.BigEndian.AppendUint16(b, uint16(len(e.key)))
	b = append(b, e.key...)
	b = append(b, e.value...)
	binary.BigEndian.PutUint32(b[start+4:], checksum(seq, b[start+entryHeader:]))
	return b
}

// decodeEntries returns the entries of segment seq's bytes up to the first
// one that does not check, and how many octets they take.
func decodeEntries(b []byte, seq uint64) ([]entry, int) {
	var out []entry
	off := 0
	for len(b)-off >= entryHeader {
		n := int(binary.BigEndian.Uint32(b[off:]))
		if n < payloadFixed || n > maxPayload || len(b)-off-entryHeader < n {
			break
		}
		p := b[off+entryHeader : off+entryHeader+n]
		if checksum(seq, p) != binary.BigEndian.Uint32(b[off+4:]) {
			break
		}
		kind, klen := p[0], int(binary.BigEndian.Uint16(p[9:]))
		if (kind != kindRecord && kind != kindClaim && kind != kindSeal) || payloadFixed+klen > n {
			break
		}
		out = append(out, entry{
			kind:  kind,
			exp:   binary.BigEndian.Uint64(p[1:]),
			key:   p[payloadFixed : payloadFixed+klen],
			value: p[payloadFixed+klen:],
		})
		off += entryHeader + n
	}
	return out, off
}

// segment is one open journal file being written to.
type segment struct {
	seq  uint64
	f    *os.File
	size int64 // octets of entries written
}

func segmentPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%016d", journalPrefix, seq))
}

func sparePath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%016d", sparePrefix, seq))
}

// journalFiles lists the segments and the spares in dir, each oldest
// first. A name with either prefix the store never writes is an error.
func journalFiles(dir string) (segs, spares []uint64, err error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, de := range des {
		for _, k := range []struct {
			prefix string
			into   *[]uint64
		}{{journalPrefix, &segs}, {sparePrefix, &spares}} {
			s, ok := strings.CutPrefix(de.Name(), k.prefix)
			if !ok {
				continue
			}
			seq, err := strconv.ParseUint(s, 10, 64)
			if err != nil || len(s) != 16 {
				return nil, nil, errCorruptJournal
			}
			*k.into = append(*k.into, seq)
		}
	}
	slices.Sort(segs)
	slices.Sort(spares)
	return segs, spares, nil
}

// readSegments returns every durable entry of the segments seqs, oldest
// first, without the seals: all of every older segment, which must end
// with its seal, and the newest segment's entries up to the first that
// does not check.
func readSegments(dir string, seqs []uint64) ([]entry, error) {
	var all []entry
	for i, seq := range seqs {
		b, err := os.ReadFile(segmentPath(dir, seq))
		if err != nil {
			return nil, err
		}
		es, _ := decodeEntries(b, seq)
		if i < len(seqs)-1 && (len(es) == 0 || es[len(es)-1].kind != kindSeal) {
			return nil, errCorruptJournal
		}
		for _, e := range es {
			if e.kind != kindSeal {
				all = append(all, e)
			}
		}
	}
	return all, nil
}

// openSegment makes segment seq from the oldest spare, or from a new
// preallocated file, and syncs dir so that the segment's name survives a
// crash before its first write is answered.
func openSegment(dir string, seq uint64, spares *[]uint64) (*segment, error) {
	path := segmentPath(dir, seq)
	if len(*spares) > 0 {
		if err := os.Rename(sparePath(dir, (*spares)[0]), path); err != nil {
			return nil, err
		}
		*spares = (*spares)[1:]
	} else if err := preallocate(path); err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	return &segment{seq: seq, f: f}, nil
}

// preallocate writes a new file of segmentSize zero octets and syncs it.
func preallocate(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(make([]byte, segmentSize))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// write puts b after the segment's entries and returns once it is durable.
func (sg *segment) write(b []byte) error {
	n, err := sg.f.WriteAt(b, sg.size)
	sg.size += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return err
	}
	return fdatasync(sg.f)
}

// seal writes the segment's seal entry, durably: replay then knows the
// segment ends there.
func (sg *segment) seal() error {
	return sg.write(appendEntry(nil, sg.seq, entry{kind: kindSeal}))
}

// retire turns the segments seqs into spares (the newest first, up to
// maxSpares held) or deletes them, and syncs dir.
func retire(dir string, seqs []uint64, spares *[]uint64) error {
	for i := len(seqs) - 1; i >= 0; i-- {
		seq := seqs[i]
		if len(*spares) < maxSpares {
			if err := os.Rename(segmentPath(dir, seq), sparePath(dir, seq)); err != nil {
				return err
			}
			*spares = append(*spares, seq)
			continue
		}
		if err := os.Remove(segmentPath(dir, seq)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	slices.Sort(*spares)
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
