package audit

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// A proof file is a header, an empty line and the signed checkpoint notes
// it is checked against:
//
//	toolgate audit proof
//	inclusion SEQ SIZE            or   consistency SIZE1 SIZE2
//	record BASE64(record line)    (inclusion only)
//	hash BASE64                   (one line per proof hash)
//
//	<signed checkpoint of SIZE, or of SIZE1 then SIZE2>
//
// It is self-contained: the record, the hashes and the signed checkpoints;
// CheckProof needs nothing else but the verifier key.
const proofHeader = "toolgate audit proof"

// ErrProof: a proof that does not parse or does not prove what it says.
var ErrProof = errors.New("audit: the proof does not verify")

// ProveRecord writes to w the inclusion proof of record seq in the tree of
// the checkpoint of size (the latest checkpoint when size is 0).
func ProveRecord(w io.Writer, dir string, seq, size int64) error {
	c, msg, err := findCheckpoint(dir, size, seq+1)
	if err != nil {
		return err
	}
	if seq < 0 || seq >= c.size {
		return fmt.Errorf("audit: record %d is not in the checkpoint of size %d", seq, c.size)
	}
	record, err := readRecord(dir, seq)
	if err != nil {
		return err
	}
	hashes, err := os.Open(filepath.Join(dir, HashesFile))
	if err != nil {
		return err
	}
	defer func() { _ = hashes.Close() }()
	p, err := tlog.ProveRecord(c.size, seq, fileReader(hashes))
	if err != nil {
		return err
	}
	if err := tlog.CheckRecord(p, c.size, c.root, seq, tlog.RecordHash(record)); err != nil {
		return fmt.Errorf("audit: record %d or the hashes do not match checkpoint %d: run toolgate audit verify", seq, c.size)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\ninclusion %d %d\nrecord %s\n", proofHeader, seq, c.size, base64.StdEncoding.EncodeToString(record))
	writeHashes(&b, p)
	b.WriteString("\n")
	b.Write(msg)
	_, err = w.Write(b.Bytes())
	return err
}

// ProveTree writes to w the consistency proof between the checkpoints of
// sizes from and to.
func ProveTree(w io.Writer, dir string, from, to int64) error {
	if from <= 0 || from > to {
		return fmt.Errorf("audit: a consistency proof needs 0 < from <= to")
	}
	c1, msg1, err := findCheckpoint(dir, from, 0)
	if err != nil {
		return err
	}
	c2, msg2, err := findCheckpoint(dir, to, 0)
	if err != nil {
		return err
	}
	hashes, err := os.Open(filepath.Join(dir, HashesFile))
	if err != nil {
		return err
	}
	defer func() { _ = hashes.Close() }()
	p, err := tlog.ProveTree(c2.size, c1.size, fileReader(hashes))
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(p, c2.size, c2.root, c1.size, c1.root); err != nil {
		return fmt.Errorf("audit: the hashes do not prove checkpoint %d consistent with checkpoint %d: run toolgate audit verify", to, from)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nconsistency %d %d\n", proofHeader, from, to)
	writeHashes(&b, p)
	b.WriteString("\n")
	b.Write(msg1)
	b.Write(msg2)
	_, err = w.Write(b.Bytes())
	return err
}

func writeHashes(b *bytes.Buffer, hs []tlog.Hash) {
	for _, h := range hs {
		fmt.Fprintf(b, "hash %s\n", h)
	}
}

// Proved is what a proof established.
type Proved struct {
	// Inclusion: Record (the record line) is record Seq of the log whose
	// checkpoint of size Size is signed. Consistency: the checkpoint of
	// size Size extends the one of size From.
	Inclusion bool
	Seq, From int64
	Size      int64
	Record    []byte
	Origin    string
}

// CheckProof checks a proof file with the verifier key alone.
func CheckProof(proof []byte, v note.Verifier) (*Proved, error) {
	header, notes, ok := bytes.Cut(proof, []byte("\n\n"))
	if !ok {
		return nil, fmt.Errorf("%w: no signed checkpoint follows the header", ErrProof)
	}
	lines := strings.Split(string(header), "\n")
	if len(lines) < 2 || lines[0] != proofHeader {
		return nil, fmt.Errorf("%w: it does not begin %q", ErrProof, proofHeader)
	}
	msgs, rest := splitNotes(notes)
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: a signed checkpoint is torn", ErrProof)
	}
	var cps []checkpoint
	for _, msg := range msgs {
		c, err := openCheckpoint(msg, v)
		if err != nil {
			return nil, fmt.Errorf("%w: a checkpoint: %v", ErrProof, err)
		}
		cps = append(cps, c)
	}
	kind, a, b, err := parseClaim(lines[1])
	if err != nil {
		return nil, err
	}
	var hashes []tlog.Hash
	var record []byte
	for _, line := range lines[2:] {
		key, val, _ := strings.Cut(line, " ")
		switch {
		case key == "record" && kind == "inclusion" && record == nil:
			if record, err = base64.StdEncoding.DecodeString(val); err != nil {
				return nil, fmt.Errorf("%w: the record is not base64", ErrProof)
			}
		case key == "hash":
			h, err := tlog.ParseHash(val)
			if err != nil {
				return nil, fmt.Errorf("%w: a hash is not base64 SHA-256", ErrProof)
			}
			hashes = append(hashes, h)
		default:
			return nil, fmt.Errorf("%w: unexpected header line %q", ErrProof, key)
		}
	}
	switch kind {
	case "inclusion":
		if len(cps) != 1 || cps[0].size != b || record == nil {
			return nil, fmt.Errorf("%w: an inclusion proof carries the record and one checkpoint of its size", ErrProof)
		}
		if err := tlog.CheckRecord(hashes, b, cps[0].root, a, tlog.RecordHash(record)); err != nil {
			return nil, fmt.Errorf("%w: the record is not record %d of the signed tree of size %d", ErrProof, a, b)
		}
		return &Proved{Inclusion: true, Seq: a, Size: b, Record: record, Origin: cps[0].origin}, nil
	default:
		if len(cps) != 2 || cps[0].size != a || cps[1].size != b {
			return nil, fmt.Errorf("%w: a consistency proof carries the two checkpoints of its sizes", ErrProof)
		}
		if err := tlog.CheckTree(hashes, b, cps[1].root, a, cps[0].root); err != nil {
			return nil, fmt.Errorf("%w: the signed tree of size %d does not extend the one of size %d", ErrProof, b, a)
		}
		return &Proved{From: a, Size: b, Origin: cps[0].origin}, nil
	}
}

// parseClaim parses "inclusion SEQ SIZE" or "consistency FROM TO".
func parseClaim(line string) (kind string, a, b int64, err error) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "inclusion" && f[0] != "consistency" {
		return "", 0, 0, fmt.Errorf("%w: the second line is not \"inclusion SEQ SIZE\" or \"consistency FROM TO\"", ErrProof)
	}
	a, errA := strconv.ParseInt(f[1], 10, 64)
	b, errB := strconv.ParseInt(f[2], 10, 64)
	if errA != nil || errB != nil || a < 0 || b < 0 {
		return "", 0, 0, fmt.Errorf("%w: the sizes are not numbers", ErrProof)
	}
	return f[0], a, b, nil
}

// findCheckpoint returns the checkpoint of size (the latest, which must
// cover at least least records, when size is 0) and its signed note. The
// signature is not checked here: the proof's checker does that.
func findCheckpoint(dir string, size, least int64) (checkpoint, []byte, error) {
	raw, err := os.ReadFile(filepath.Join(dir, CheckpointsFile))
	if err != nil {
		return checkpoint{}, nil, err
	}
	notes, _ := splitNotes(raw)
	for i := len(notes) - 1; i >= 0; i-- {
		c, err := parseUnverified(notes[i])
		if err != nil {
			continue
		}
		if size == 0 && c.size >= least || c.size == size {
			return c, notes[i], nil
		}
	}
	if size == 0 {
		return checkpoint{}, nil, fmt.Errorf("audit: no checkpoint covers record %d yet", least-1)
	}
	return checkpoint{}, nil, fmt.Errorf("audit: no checkpoint of size %d", size)
}

// parseUnverified parses a signed note's checkpoint text without checking
// its signature.
func parseUnverified(msg []byte) (checkpoint, error) {
	text, _, ok := bytes.Cut(msg, []byte("\n\n"))
	lines := strings.Split(string(text), "\n")
	if !ok || len(lines) != 3 {
		return checkpoint{}, errors.New("not a checkpoint")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return checkpoint{}, err
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		return checkpoint{}, err
	}
	return checkpoint{origin: lines[0], size: size, root: root}, nil
}

// readRecord returns record seq's line, without its line end.
func readRecord(dir string, seq int64) ([]byte, error) {
	f, err := os.Open(filepath.Join(dir, RecordsFile))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	r := bufio.NewReaderSize(f, 1<<16)
	for i := int64(0); ; i++ {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("audit: the records file holds no record %d", seq)
		}
		if i == seq {
			return line[:len(line)-1], nil
		}
	}
}

// fileReader reads stored hashes from a hashes file.
func fileReader(f *os.File) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if _, err := f.ReadAt(out[i][:], x*tlog.HashSize); err != nil {
				return nil, fmt.Errorf("audit: reading stored hash %d: %w", x, err)
			}
		}
		return out, nil
	})
}
