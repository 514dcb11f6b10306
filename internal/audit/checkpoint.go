package audit

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// checkpoint is the body of one signed note: the log's origin, its size
// and the RFC 6962 root of its first size records.
type checkpoint struct {
	origin string
	size   int64
	root   tlog.Hash
}

// text is the checkpoint's note text, in the transparency-log checkpoint
// form: "origin\nsize\nbase64(root)\n".
func (c checkpoint) text() string {
	return fmt.Sprintf("%s\n%d\n%s\n", c.origin, c.size, c.root)
}

// sign returns the signed note of c.
func (c checkpoint) sign(s note.Signer) ([]byte, error) {
	return note.Sign(&note.Note{Text: c.text()}, s)
}

// openCheckpoint verifies the signed note msg with v and parses its text.
func openCheckpoint(msg []byte, v note.Verifier) (checkpoint, error) {
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return checkpoint{}, errors.New("its signature does not verify with the verifier key")
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return checkpoint{}, errors.New("its text is not origin, size and root hash")
	}
	c := checkpoint{origin: lines[0]}
	if c.origin != v.Name() {
		return checkpoint{}, fmt.Errorf("its origin is not %s", v.Name())
	}
	if c.size, err = strconv.ParseInt(lines[1], 10, 64); err != nil || c.size < 0 {
		return checkpoint{}, errors.New("its size is not a number of records")
	}
	if c.root, err = tlog.ParseHash(lines[2]); err != nil {
		return checkpoint{}, errors.New("its root is not a base64 SHA-256 hash")
	}
	return c, nil
}

// splitNotes splits concatenated signed notes: each is text lines, an
// empty line and "— " signature lines. rest is what follows the last
// complete note (a note torn by a crash).
func splitNotes(data []byte) (notes [][]byte, rest []byte) {
	const sigPrefix = "— "
	start, inSigs := 0, false
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			break
		}
		line := data[off : off+end]
		switch {
		case inSigs && !bytes.HasPrefix(line, []byte(sigPrefix)):
			notes = append(notes, data[start:off])
			start, inSigs = off, false
			continue // reread this line as the next note's first
		case !inSigs && len(line) == 0 && off > start:
			inSigs = true
		}
		off += end + 1
	}
	// The last note ends with the data if it has a signature line.
	tail := data[start:]
	if inSigs && bytes.HasSuffix(tail, []byte("\n")) && bytes.Contains(tail, []byte("\n\n"+sigPrefix)) {
		return append(notes, tail), nil
	}
	return notes, tail
}
