package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/mod/sumdb/note"

	"github.com/toolgate/toolgate/internal/audit"
)

// auditVerifyOptions are audit verify's flags.
type auditVerifyOptions struct {
	dir, proof, key string
	kept            []string // --checkpoints, in order
}

func auditVerifyFlags(fs *pflag.FlagSet) *auditVerifyOptions {
	var o auditVerifyOptions
	fs.StringVar(&o.key, "key", "", "the `VERIFIER` key: the key's .pub file, or its text")
	required(fs, "key")
	auditLogFlag(fs, &o.dir)
	fs.StringVar(&o.proof, "proof", "", "a proof `FILE` written by audit prove")
	oneOf(fs, "log", "proof")
	fs.StringArrayVar(&o.kept, "checkpoints", nil, "a `FILE` of signed checkpoints kept outside the log (a copy of its checkpoints file, a proof); repeatable")
	return &o
}

// auditLogFlag declares --log, the audit log directory of audit verify and
// audit prove.
func auditLogFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "log", "", "the audit log directory (`DIR`)")
}

// auditVerify checks an audit log directory (--log) or a proof file
// (--proof) against the verifier key of its checkpoints. Every finding is a
// line on out; any finding is exit 1.
func auditVerify(o *auditVerifyOptions, rest []string, out io.Writer) error {
	if len(rest) != 0 {
		return usageError{"audit verify takes flags only"}
	}
	v, err := readVerifier(o.key)
	if err != nil {
		return err
	}
	if o.proof != "" {
		return checkProofFile(o.proof, v, out)
	}
	var keptNotes [][]byte
	for _, path := range o.kept {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		keptNotes = append(keptNotes, raw)
	}
	r, err := audit.Verify(o.dir, v, keptNotes...)
	if err != nil {
		return err
	}
	for _, f := range r.Findings {
		fmt.Fprintln(out, f)
	}
	if r.Omitted > 0 {
		fmt.Fprintf(out, "… and %d more findings\n", r.Omitted)
	}
	fmt.Fprintf(out, "%s: %s, %s", o.dir, plural(int(r.Records), "record", "records"), plural(r.Checkpoints, "signed checkpoint", "signed checkpoints"))
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

// auditProveOptions are audit prove's flags.
type auditProveOptions struct {
	dir   string
	index int64
	size  int64
	from  int64
	to    int64
}

func auditProveFlags(fs *pflag.FlagSet) *auditProveOptions {
	var o auditProveOptions
	auditLogFlag(fs, &o.dir)
	required(fs, "log")
	fs.Int64Var(&o.index, "index", -1, "the `SEQ` of the record to prove")
	fs.Int64Var(&o.size, "size", 0, "the checkpoint `SIZE` to prove it in (default: the latest)")
	fs.Int64Var(&o.from, "from", 0, "the `SIZE` of the earlier checkpoint")
	fs.Int64Var(&o.to, "to", 0, "the `SIZE` of the later checkpoint")
	return &o
}

// auditProve writes an inclusion proof of one record (--index) or a
// consistency proof between two checkpoints (--from, --to).
func auditProve(o *auditProveOptions, rest []string, out io.Writer) error {
	switch {
	case len(rest) != 0:
		return usageError{"audit prove takes flags only"}
	case o.index >= 0 && (o.from != 0 || o.to != 0), o.index < 0 && (o.from == 0 || o.to == 0):
		return usageError{"audit prove needs either --index (and optionally --size) or --from and --to"}
	case o.index >= 0:
		return audit.ProveRecord(out, o.dir, o.index, o.size)
	}
	return audit.ProveTree(out, o.dir, o.from, o.to)
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
