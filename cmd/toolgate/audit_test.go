package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/audit"
)

// newAuditLog writes an audit log of n decision lines, a checkpoint every
// 10, and returns its directory and the path of its verifier key.
func newAuditLog(t *testing.T, n int) (dir, vkey string) {
	t.Helper()
	state := t.TempDir()
	dir = filepath.Join(state, "audit")
	l, vk, err := openAudit(dir, auditKeyPath(dir, ""))
	if err != nil {
		t.Fatal(err)
	}
	_ = l.Close()
	key, err := audit.LoadOrCreateKey(dir + ".key")
	if err != nil || key.VerifierKey() != vk {
		t.Fatalf("key %v: the verifier key changed", err)
	}
	l, err = audit.Open(dir, key, audit.Options{CheckpointEvery: 10, CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := fmt.Fprintf(l, `{"time":%d,"verb":"consume","result":"consumed"}`+"\n", i); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, dir + ".key.pub"
}

// TestAuditVerbs: audit verify is 0 on an intact log and 1 naming the
// record on a tampered one; audit prove writes proofs that audit verify
// --proof checks (0) and rejects once changed (1); wrong usage is 2.
func TestAuditVerbs(t *testing.T) {
	t.Parallel()
	dir, vkey := newAuditLog(t, 40)
	tampered, _ := newAuditLog(t, 40)
	records := filepath.Join(tampered, audit.RecordsFile)
	raw, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(records, bytes.Replace(raw, []byte(`"time":25,`), []byte(`"time":26,`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	otherKey := filepath.Join(t.TempDir(), "other.key")
	if _, err := audit.LoadOrCreateKey(otherKey); err != nil {
		t.Fatal(err)
	}
	vkeyText, _ := os.ReadFile(vkey)

	prove := func(args ...string) string {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"audit", "prove", "--log", dir}, args...), nil, &out, &errOut); code != 0 {
			t.Fatalf("audit prove %v: exit %d: %s", args, code, errOut.String())
		}
		path := filepath.Join(t.TempDir(), "proof")
		if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	inclusion, consistency := prove("--index", "7", "--size", "20"), prove("--from", "10", "--to", "40")
	edited := filepath.Join(t.TempDir(), "edited")
	raw, _ = os.ReadFile(inclusion)
	if err := os.WriteFile(edited, bytes.Replace(raw, []byte("inclusion 7 20"), []byte("inclusion 8 20"), 1), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := map[string]struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		"an intact log verifies":         {args: []string{"verify", "--log", dir, "--key", vkey}, stdout: "40 records, 4 signed checkpoints (the last of size 40): intact"},
		"kept checkpoints the log gives": {args: []string{"verify", "--log", dir, "--key", vkey, "--checkpoints", filepath.Join(dir, audit.CheckpointsFile), "--checkpoints", inclusion}, stdout: "intact"},
		"the key may be given as text":   {args: []string{"verify", "--log", dir, "--key", strings.TrimSpace(string(vkeyText))}, stdout: "intact"},
		"a tampered record is named": {args: []string{"verify", "--log", tampered, "--key", tampered + ".key.pub"}, code: 1,
			stdout: "record seq 25 (line 26): modified\ncheckpoint 3 (size 30): the records no longer give its signed root: the first alteration is among records seq 20 to 29\n",
			stderr: "the audit log does not verify: 2 findings"},
		"another key verifies nothing":  {args: []string{"verify", "--log", dir, "--key", otherKey + ".pub"}, code: 1, stdout: "checkpoint 1: its signature does not verify"},
		"an inclusion proof checks":     {args: []string{"verify", "--proof", inclusion, "--key", vkey}, stdout: "verified: record seq 7 is in the log toolgate-audit signed at size 20:\n{\"seq\":7,\"time\":7,"},
		"a consistency proof checks":    {args: []string{"verify", "--proof", consistency, "--key", vkey}, stdout: "verified: the log toolgate-audit signed at size 40 extends its checkpoint of size 10"},
		"an edited proof fails":         {args: []string{"verify", "--proof", edited, "--key", vkey}, code: 1, stderr: "the record is not record 8 of the signed tree of size 20"},
		"a proof and another key fail":  {args: []string{"verify", "--proof", inclusion, "--key", otherKey + ".pub"}, code: 1, stderr: "does not verify"},
		"a checkpoint size not signed":  {args: []string{"prove", "--log", dir, "--index", "3", "--size", "15"}, code: 1, stderr: "no checkpoint of size 15"},
		"verify without a key":          {args: []string{"verify", "--log", dir}, code: 2, stderr: "needs --key"},
		"verify with a log and a proof": {args: []string{"verify", "--log", dir, "--proof", inclusion, "--key", vkey}, code: 2, stderr: "one of --log or --proof"},
		"prove with both kinds":         {args: []string{"prove", "--log", dir, "--index", "1", "--from", "10", "--to", "20"}, code: 2, stderr: "either --index"},
		"a key that is not one":         {args: []string{"verify", "--log", dir, "--key", "nonsense+1"}, code: 1, stderr: "not a note verifier key"},
		"a key file that is not there":  {args: []string{"verify", "--log", dir, "--key", "missing.pub"}, code: 1, stderr: "--key: missing.pub: no such file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := run(append([]string{"audit"}, tc.args...), nil, &out, &errOut)
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errOut.String(), tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s\nwant stdout containing %q, stderr %q", code, tc.code, out.String(), errOut.String(), tc.stdout, tc.stderr)
			}
		})
	}
}
