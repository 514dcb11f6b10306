package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/toolgate/toolgate/internal/audit"
)

// auditVerify checks an audit log directory (--log) or a proof file
// (--proof) against the verifier key of its checkpoints. Every finding is a
// line on out; any finding is exit 1.
func auditVerify(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	dir := fs.String("log", "", "the audit log directory")
	proof := fs.String("proof", "", "a proof file written by audit prove")
	key := fs.String("key", "", "the verifier key: the key's .pub file, or its text")
	var kept []string
	fs.Func("checkpoints", "a file of signed checkpoints kept outside the log (a copy of its checkpoints file, a proof); repeatable", func(s string) error {
		kept = append(kept, s)
		return nil
	})
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) != 0 || *key == "" || (*dir == "") == (*proof == "") {
		return usageError{"audit verify needs --key and one of --log or --proof"}
	}
	v, err := readVerifier(*key)
	if err != nil {
		return err
	}
	if *proof != "" {
		return checkProofFile(*proof, v, out)
	}
	var keptNotes [][]byte
	for _, path := range kept {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		keptNotes = append(keptNotes, raw)
	}
	r, err := audit.Verify(*dir, v, keptNotes...)
	if err != nil {
		return err
	}
	for _, f := range r.Findings {
		fmt.Fprintln(out, f)
	}
	if r.Omitted > 0 {
		fmt.Fprintf(out, "… and %d more findings\n", r.Omitted)
	}
	fmt.Fprintf(out, "%s: %s, %s", *dir, plural(int(r.Records), "record", "records"), plural(r.Checkpoints, "signed checkpoint", "signed checkpoints"))
	if r.Checkpoints > 0 {
		fmt.Fprintf(out, " (the last of size %d)", r.Signed)
	}
	if !r.OK() {
		fmt.Fprintln(out)
		return fmt.Errorf("the audit log does not verify: %s", plural(len(r.Findings)+r.Omitted, "finding", "findings"))
	}
	fmt.Fprintln(out, ": intact")
	if r.Records > r.Signed {
		fmt.Fprintf(out, "%s after the last checkpoint are not signed yet\n", plural(int(r.Records-r.Signed), "record", "records"))
	}
	return nil
}

// checkProofFile checks a proof written by audit prove.
func checkProofFile(path string, v note.Verifier, out io.Writer) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	p, err := audit.CheckProof(raw, v)
	if err != nil {
		return err
	}
	if p.Inclusion {
		fmt.Fprintf(out, "verified: record seq %d is in the log %s signed at size %d:\n%s\n", p.Seq, p.Origin, p.Size, p.Record)
		return nil
	}
	fmt.Fprintf(out, "verified: the log %s signed at size %d extends its checkpoint of size %d\n", p.Origin, p.Size, p.From)
	return nil
}

// auditProve writes an inclusion proof of one record (--index) or a
// consistency proof between two checkpoints (--from, --to).
func auditProve(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("audit prove", flag.ContinueOnError)
	dir := fs.String("log", "", "the audit log directory")
	index := fs.Int64("index", -1, "the seq of the record to prove")
	size := fs.Int64("size", 0, "the checkpoint size to prove it in (default: the latest)")
	from := fs.Int64("from", 0, "the size of the earlier checkpoint")
	to := fs.Int64("to", 0, "the size of the later checkpoint")
	rest, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return err
	case len(rest) != 0 || *dir == "":
		return usageError{"audit prove needs --log"}
	case *index >= 0 && (*from != 0 || *to != 0), *index < 0 && (*from == 0 || *to == 0):
		return usageError{"audit prove needs either --index (and optionally --size) or --from and --to"}
	case *index >= 0:
		return audit.ProveRecord(out, *dir, *index, *size)
	}
	return audit.ProveTree(out, *dir, *from, *to)
}

// readVerifier reads a verifier key from the file named s, or takes s as
// the key's text (which always holds a "+").
func readVerifier(s string) (note.Verifier, error) {
	raw, err := os.ReadFile(s)
	switch {
	case err == nil:
		s = string(raw)
	case !errors.Is(err, os.ErrNotExist) || !strings.Contains(s, "+"):
		return nil, fmt.Errorf("--key: %w", err)
	}
	return audit.ParseVerifierKey(s)
}
