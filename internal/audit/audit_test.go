package audit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/sumdb/tlog"
)

func newKey(t testing.TB) *Key {
	t.Helper()
	k, err := LoadOrCreateKey(filepath.Join(t.TempDir(), "audit.key"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// decisionLines returns the decision-log lines of records from..to-1.
func decisionLines(from, to int) []byte {
	var b []byte
	for i := from; i < to; i++ {
		b = fmt.Appendf(b, `{"time":%d,"verb":"authorize","caller":"agent-%d","result":"issued"}`+"\n", 1700000000+i, i%7)
	}
	return b
}

// writeLog writes n records to a new log in dir in batches of batch lines,
// signing every every records, and closes it.
func writeLog(t testing.TB, dir string, k *Key, n, batch int, every int64) {
	t.Helper()
	l, err := Open(dir, k, Options{CheckpointEvery: every, CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += batch {
		if _, err := l.Write(decisionLines(i, min(i+batch, n))); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func verify(t testing.TB, dir string, k *Key) *Report {
	t.Helper()
	r, err := Verify(dir, k.verifier)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readLines(t testing.TB, dir string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(raw, []byte("\n"))[:bytes.Count(raw, []byte("\n"))]
}

func writeLines(t testing.TB, dir string, lines [][]byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, RecordsFile), bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRecordsCarryTheirSeqAcrossARestart: records appended before and
// after a restart carry seq 0, 1, 2, … and their decision-log members; the
// log verifies, and every Close signed a checkpoint of all records.
func TestRecordsCarryTheirSeqAcrossARestart(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	writeLog(t, dir, k, 10, 3, 1000)
	l, err := Open(dir, k, Options{CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n, signed := l.Size(); n != 10 || signed != 10 {
		t.Fatalf("reopened: %d records, signed %d; want 10, 10", n, signed)
	}
	if _, err := l.Write(decisionLines(10, 15)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for i, line := range readLines(t, dir) {
		var rec struct {
			Seq    int64  `json:"seq"`
			Time   int64  `json:"time"`
			Verb   string `json:"verb"`
			Result string `json:"result"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if rec.Seq != int64(i) || rec.Time != int64(1700000000+i) || rec.Verb != "authorize" || rec.Result != "issued" {
			t.Errorf("line %d = %s: want seq %d and its decision", i+1, line, i)
		}
	}
	r := verify(t, dir, k)
	if !r.OK() || r.Records != 15 || r.Signed != 15 || r.Checkpoints != 2 {
		t.Fatalf("report %+v, want 15 records, 2 checkpoints, signed 15, no findings", r)
	}
}

// TestWriteTakesOnlyWholeObjectLines: a partial line, a line that is no
// JSON object, or an empty write is refused and appends nothing.
func TestWriteTakesOnlyWholeObjectLines(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	l, err := Open(dir, k, Options{CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", `{"a":1}`, "{\"a\":1}\nnot json\n", "[1]\n", "\n"} {
		if _, err := l.Write([]byte(p)); !errors.Is(err, ErrNotLines) {
			t.Errorf("Write(%q) = %v, want ErrNotLines", p, err)
		}
	}
	if _, err := l.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readLines(t, dir); len(got) != 1 || string(got[0]) != "{\"seq\":0}\n" {
		t.Fatalf("records %q, want only {\"seq\":0}", got)
	}
	if r := verify(t, dir, k); !r.OK() {
		t.Fatalf("findings %v", r.Findings)
	}
}

// tampering is one edit of the records file and the findings it must get
// (the checkpoint finding aside, which every tampering also gets).
type tampering struct {
	name string
	edit func(lines [][]byte) [][]byte
	want []string
}

// tamperings edits records of a log of n ≥ 2000 records.
func tamperings() []tampering {
	return []tampering{
		{"a one-byte edit is a modified record", func(ls [][]byte) [][]byte {
			ls[700] = bytes.Replace(ls[700], []byte("issued"), []byte("issueD"), 1)
			return ls
		}, []string{"record seq 700 (line 701): modified"}},
		{"an edited seq is a modified record", func(ls [][]byte) [][]byte {
			ls[701] = bytes.Replace(ls[701], []byte(`"seq":701`), []byte(`"seq":702`), 1)
			return ls
		}, []string{"record seq 701 (line 702): modified"}},
		{"a removed line is a deleted record", func(ls [][]byte) [][]byte {
			return append(ls[:300:300], ls[301:]...)
		}, []string{"record seq 300: deleted (it belongs before line 301)"}},
		{"two removed lines are two deleted records", func(ls [][]byte) [][]byte {
			return append(ls[:300:300], ls[302:]...)
		}, []string{"record seq 300: deleted (it belongs before line 301)", "record seq 301: deleted (it belongs before line 301)"}},
		{"a made-up line is an inserted record", func(ls [][]byte) [][]byte {
			forged := []byte(`{"seq":500,"time":1,"verb":"consume","result":"consumed"}` + "\n")
			return append(ls[:500:500], append([][]byte{forged}, ls[500:]...)...)
		}, []string{"line 501: inserted (no record of the log)"}},
		{"a repeated line is an inserted copy", func(ls [][]byte) [][]byte {
			return append(ls[:1000:1000], append([][]byte{ls[10]}, ls[1000:]...)...)
		}, []string{"line 1001: inserted (a second copy of record seq 10)"}},
		{"two adjacent lines exchanged are a swapped pair", func(ls [][]byte) [][]byte {
			ls[1200], ls[1201] = ls[1201], ls[1200]
			return ls
		}, []string{"records seq 1200 and 1201 (lines 1201 and 1202): swapped"}},
		{"a line moved back is a reordered record", func(ls [][]byte) [][]byte {
			moved := ls[1500]
			rest := append(ls[:1500:1500], ls[1501:]...)
			return append(rest[:1400:1400], append([][]byte{moved}, rest[1400:]...)...)
		}, []string{"record seq 1500 (line 1401): out of order (the line of record seq 1400)"}},
		{"cut-off lines are deleted records", func(ls [][]byte) [][]byte {
			return ls[:len(ls)-2]
		}, []string{"record seq 1998: deleted (it belongs at the end)", "record seq 1999: deleted (it belongs at the end)"}},
		{"a line appended at the end is inserted", func(ls [][]byte) [][]byte {
			return append(ls, []byte(`{"seq":2000,"time":1,"verb":"authorize","result":"issued"}`+"\n"))
		}, []string{"line 2001: inserted (no record of the log)"}},
	}
}

// TestEveryTamperingIsNamed: verify names each modified, deleted, inserted,
// swapped and reordered record by its seq and line, and the signed
// checkpoint that no longer matches the records; the untouched log has no
// finding.
func TestEveryTamperingIsNamed(t *testing.T) {
	t.Parallel()
	const n = 2000
	src, k := t.TempDir(), newKey(t)
	writeLog(t, src, k, n, 64, 100)
	if r := verify(t, src, k); !r.OK() || r.Records != n || r.Signed != n {
		t.Fatalf("untouched log: %+v", r)
	}
	for _, tc := range tamperings() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyLog(t, src)
			writeLines(t, dir, tc.edit(readLines(t, dir)))
			r := verify(t, dir, k)
			var named []string
			checkpointFound := false
			for _, f := range r.Findings {
				if f.Kind == CheckpointMismatch {
					checkpointFound = true
					continue
				}
				named = append(named, f.String())
			}
			if diff := cmp.Diff(tc.want, named); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if !checkpointFound && !strings.Contains(tc.name, "appended at the end") {
				t.Errorf("no checkpoint mismatch among %v", r.Findings)
			}
		})
	}
}

// TestTheFirstCheckpointNotMatchingBoundsTheDamage: when the records and
// the hashes were rewritten consistently, the signed checkpoints still
// catch it and name the records between the last checkpoint that matches
// and the first that does not.
func TestTheFirstCheckpointNotMatchingBoundsTheDamage(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	writeLog(t, dir, k, 1000, 50, 100)
	lines := readLines(t, dir)
	lines[750] = bytes.Replace(lines[750], []byte("issued"), []byte("denied"), 1)
	writeLines(t, dir, lines)
	// The attacker's hashes, computed with tlog directly.
	var stored []tlog.Hash
	for i, line := range lines {
		hs, err := tlog.StoredHashes(int64(i), bytes.TrimSuffix(line, []byte("\n")), sliceReader(&stored))
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, hs...)
	}
	var raw []byte
	for _, h := range stored {
		raw = append(raw, h[:]...)
	}
	if err := os.WriteFile(filepath.Join(dir, HashesFile), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range verify(t, dir, k).Findings {
		got = append(got, f.String())
	}
	want := []string{
		"checkpoint 8 (size 800): the hashes file no longer gives its signed root: the first rewritten hash is among records seq 700 to 799",
		"checkpoint 8 (size 800): the records no longer give its signed root: the first alteration is among records seq 700 to 799",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestCheckpointsVerifyOnlyWithTheirKey: a changed signature octet, a
// changed size, and another key's verifier each fail a checkpoint.
func TestCheckpointsVerifyOnlyWithTheirKey(t *testing.T) {
	t.Parallel()
	src, k := t.TempDir(), newKey(t)
	writeLog(t, src, k, 300, 10, 100)
	edit := func(t *testing.T, dir string, old, new string) {
		t.Helper()
		path := filepath.Join(dir, CheckpointsFile)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(raw, []byte(old))
		if i < 0 {
			t.Fatalf("%q not in the checkpoints", old)
		}
		raw = append(raw[:i:i], append([]byte(new), raw[i+len(old):]...)...)
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a changed size", func(t *testing.T) {
		dir := copyLog(t, src)
		edit(t, dir, "\n200\n", "\n201\n")
		got := verify(t, dir, k).Findings
		if len(got) != 1 || got[0].String() != "checkpoint 2: its signature does not verify with the verifier key" {
			t.Fatalf("findings %v", got)
		}
	})
	t.Run("a changed signature", func(t *testing.T) {
		dir := copyLog(t, src)
		path := filepath.Join(dir, CheckpointsFile)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The 20th base64 character of the first signature: past the key
		// hash, inside the Ed25519 signature.
		at := bytes.Index(raw, []byte("— "+DefaultKeyName+" ")) + len("— "+DefaultKeyName+" ") + 20
		if raw[at] == 'A' {
			raw[at] = 'B'
		} else {
			raw[at] = 'A'
		}
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		got := verify(t, dir, k).Findings
		if len(got) != 1 || got[0].String() != "checkpoint 1: its signature does not verify with the verifier key" {
			t.Fatalf("findings %v", got)
		}
	})
	t.Run("another key", func(t *testing.T) {
		r := verify(t, src, newKey(t))
		if r.Checkpoints != 0 || len(r.Findings) != 3 {
			t.Fatalf("report %+v: want the 3 checkpoints failing", r)
		}
	})
}

// TestACrashBetweenHashesAndRecordsIsARecordedTruncation: hashes stored
// for a record whose line was torn off by a crash make Open record the
// loss as a truncated record naming the missing range, never as a drop (an
// overload); the log then verifies but for that one named finding.
func TestACrashBetweenHashesAndRecordsIsARecordedTruncation(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	writeLog(t, dir, k, 10, 10, 100)
	// Record 10's hashes reached the disk, its line only in part.
	lines := readLines(t, dir)
	stored := make([]tlog.Hash, 0)
	for i, line := range lines {
		hs, _ := tlog.StoredHashes(int64(i), bytes.TrimSuffix(line, []byte("\n")), sliceReader(&stored))
		stored = append(stored, hs...)
	}
	hs, err := tlog.StoredHashes(10, []byte(`{"seq":10,"time":1,"verb":"authorize","result":"issued"}`), sliceReader(&stored))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, HashesFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		_, _ = f.Write(h[:])
	}
	_ = f.Close()
	writeLines(t, dir, append(lines, []byte(`{"seq":10,"ti`)))

	l, err := Open(dir, k, Options{CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := readLines(t, dir)
	if len(got) != 11 || !bytes.HasPrefix(got[10], []byte(`{"seq":10,"time":`)) || !bytes.HasSuffix(got[10], []byte(`,"verb":"truncated","from":10,"missing":1,"result":"truncated"}`+"\n")) {
		t.Fatalf("records after recovery end %q, want a truncated record of seq 10 as seq 10", got[len(got)-1])
	}
	r := verify(t, dir, k)
	if r.Signed != 11 || len(r.Findings) != 1 || r.Findings[0].Kind != Truncated {
		t.Fatalf("report %+v", r)
	}
}

// TestACutUnsignedTailIsNamedNotDropped: records after the last checkpoint
// cut off while the service was down are recorded at the next Open as a
// truncated record (from where, how many), not as a drop, and Verify names
// the range.
func TestACutUnsignedTailIsNamedNotDropped(t *testing.T) {
	t.Parallel()
	live, k := t.TempDir(), newKey(t)
	l, err := Open(live, k, Options{CheckpointEvery: 5, CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{decisionLines(0, 5), decisionLines(5, 8)} { // 0–4 signed, 5–7 not
		if _, err := l.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if n, signed := l.Size(); n != 8 || signed != 5 {
		t.Fatalf("log of %d records, %d signed; want 8, 5", n, signed)
	}
	dir := copyLog(t, live) // the state a stop without Close leaves
	_ = l.Close()
	lines := readLines(t, dir)
	writeLines(t, dir, lines[:5]) // cut the unsigned tail: records 5, 6, 7

	l, err = Open(dir, k, Options{CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := readLines(t, dir)
	if len(got) != 6 || bytes.Contains(got[5], []byte(`"dropped"`)) ||
		!bytes.HasSuffix(got[5], []byte(`,"verb":"truncated","from":5,"missing":3,"result":"truncated"}`+"\n")) {
		t.Fatalf("records after the cut end %q; want seq 5 a truncated record of 3 from seq 5", got[len(got)-1])
	}
	r := verify(t, dir, k)
	if len(r.Findings) != 1 || r.Findings[0].Kind != Truncated {
		t.Fatalf("report %+v; want one truncated finding", r)
	}
	want := "records seq 5 to 7: missing when the log was opened, recorded by record seq 5 (line 6)"
	if s := r.Findings[0].String(); !strings.HasPrefix(s, want) {
		t.Errorf("finding %q; want it to begin %q", s, want)
	}
}

// TestOpenRefusesALogChangedOutsideIt: a record appended to the file while
// the service was down, or a last checkpoint the hashes do not give, stops
// Open (the service does not sign over it).
func TestOpenRefusesALogChangedOutsideIt(t *testing.T) {
	t.Parallel()
	src, k := t.TempDir(), newKey(t)
	writeLog(t, src, k, 20, 5, 100)
	t.Run("a record appended", func(t *testing.T) {
		dir := copyLog(t, src)
		writeLines(t, dir, append(readLines(t, dir), []byte(`{"seq":20,"verb":"authorize","result":"issued"}`+"\n")))
		if _, err := Open(dir, k, Options{CheckpointInterval: -1}); err == nil || !strings.Contains(err.Error(), "audit verify") {
			t.Fatalf("Open = %v, want a refusal that says to run audit verify", err)
		}
	})
	t.Run("a partial line appended", func(t *testing.T) {
		dir := copyLog(t, src)
		writeLines(t, dir, append(readLines(t, dir), []byte(`{"seq":20,"verb":"auth`)))
		if _, err := Open(dir, k, Options{CheckpointInterval: -1}); err == nil || !strings.Contains(err.Error(), "audit verify") {
			t.Fatalf("Open = %v, want a refusal that says to run audit verify", err)
		}
	})
	t.Run("hashes rewritten", func(t *testing.T) {
		dir := copyLog(t, src)
		path := filepath.Join(dir, HashesFile)
		raw, _ := os.ReadFile(path)
		raw[len(raw)-1] ^= 1
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, k, Options{CheckpointInterval: -1}); err == nil || !strings.Contains(err.Error(), "audit verify") {
			t.Fatalf("Open = %v, want a refusal that says to run audit verify", err)
		}
	})
}

// TestProofsCheckWithTheVerifierKeyAlone: inclusion proofs of records and
// consistency proofs between checkpoints verify with only the verifier
// key; a changed record, hash, claim or key fails them.
func TestProofsCheckWithTheVerifierKeyAlone(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	writeLog(t, dir, k, 1000, 32, 128)
	lines := readLines(t, dir)
	for _, tc := range []struct{ seq, size int64 }{{0, 0}, {999, 0}, {500, 512}, {127, 128}, {383, 640}} {
		var b bytes.Buffer
		if err := ProveRecord(&b, dir, tc.seq, tc.size); err != nil {
			t.Fatalf("ProveRecord(%d, %d): %v", tc.seq, tc.size, err)
		}
		p, err := CheckProof(b.Bytes(), k.verifier)
		if err != nil {
			t.Fatalf("CheckProof(record %d): %v\n%s", tc.seq, err, b.Bytes())
		}
		wantSize := tc.size
		if wantSize == 0 {
			wantSize = 1000
		}
		if !p.Inclusion || p.Seq != tc.seq || p.Size != wantSize || string(p.Record)+"\n" != string(lines[tc.seq]) {
			t.Errorf("proved %+v, want record %d in size %d", p, tc.seq, wantSize)
		}
	}
	var incl, cons bytes.Buffer
	if err := ProveRecord(&incl, dir, 42, 256); err != nil {
		t.Fatal(err)
	}
	if err := ProveTree(&cons, dir, 256, 896); err != nil {
		t.Fatal(err)
	}
	if p, err := CheckProof(cons.Bytes(), k.verifier); err != nil || p.Inclusion || p.From != 256 || p.Size != 896 {
		t.Fatalf("consistency: %+v, %v", p, err)
	}
	otherRecord := "record " + b64(lines[43])
	for _, tc := range []struct {
		name, proof string
	}{
		{"another record", replaceLine(incl.String(), "record ", otherRecord)},
		{"another seq", strings.Replace(incl.String(), "inclusion 42 256", "inclusion 43 256", 1)},
		{"a changed proof hash", replaceLine(incl.String(), "hash ", "hash "+tlog.RecordHash([]byte("x")).String())},
		{"a dropped proof hash", replaceLine(incl.String(), "hash ", "")},
		{"a changed consistency hash", replaceLine(cons.String(), "hash ", "hash "+tlog.RecordHash([]byte("x")).String())},
		{"another size claimed", strings.Replace(cons.String(), "consistency 256 896", "consistency 256 768", 1)},
		{"no checkpoint", strings.SplitN(incl.String(), "\n\n", 2)[0] + "\n"},
	} {
		if _, err := CheckProof([]byte(tc.proof), k.verifier); !errors.Is(err, ErrProof) {
			t.Errorf("%s: CheckProof = %v, want ErrProof", tc.name, err)
		}
	}
	if _, err := CheckProof(incl.Bytes(), newKey(t).verifier); !errors.Is(err, ErrProof) {
		t.Errorf("another key: CheckProof = %v, want ErrProof", err)
	}
}

// TestLoadOrCreateKeyKeepsTheKey: the key is created 0600 once and read
// again after; its .pub file holds the verifier that checks its notes.
func TestLoadOrCreateKeyKeepsTheKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.key")
	k1, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v; want 0600", st.Mode(), err)
	}
	k2, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if k1.VerifierKey() != k2.VerifierKey() || strings.TrimSpace(string(pub)) != k1.VerifierKey() {
		t.Fatalf("verifier keys %q, %q, .pub %q: want one key", k1.VerifierKey(), k2.VerifierKey(), pub)
	}
	v, err := ParseVerifierKey(string(pub))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := checkpoint{origin: DefaultKeyName, size: 1, root: tlog.RecordHash(nil)}.sign(k2.signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openCheckpoint(msg, v); err != nil {
		t.Fatalf("the .pub verifier does not check the key's notes: %v", err)
	}
	if err := os.WriteFile(path, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateKey(path); err == nil {
		t.Fatal("a file that holds no key was accepted")
	}
}

func copyLog(t testing.TB, src string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{RecordsFile, HashesFile, CheckpointsFile} {
		raw, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// replaceLine replaces the first line of s starting with prefix by repl
// (removes it when repl is empty).
func replaceLine(s, prefix, repl string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			if repl == "" {
				return strings.Join(append(lines[:i:i], lines[i+1:]...), "\n")
			}
			lines[i] = repl
			return strings.Join(lines, "\n")
		}
	}
	return s
}

func b64(line []byte) string {
	return base64.StdEncoding.EncodeToString(bytes.TrimSuffix(line, []byte("\n")))
}

// TestACutBackLogIsCaughtOnlyByAKeptCheckpoint: a log cut back to an
// earlier checkpoint, its later checkpoints removed, verifies on its own
// (nothing in it is left to disagree); a copy of its checkpoints kept
// outside it names the checkpoint it no longer gives.
func TestACutBackLogIsCaughtOnlyByAKeptCheckpoint(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	writeLog(t, dir, k, 300, 50, 100)
	kept, err := os.ReadFile(filepath.Join(dir, CheckpointsFile))
	if err != nil {
		t.Fatal(err)
	}
	var proof bytes.Buffer
	if err := ProveRecord(&proof, dir, 250, 0); err != nil {
		t.Fatal(err)
	}
	if r, err := Verify(dir, k.verifier, kept, proof.Bytes()); err != nil || !r.OK() {
		t.Fatalf("the whole log against its own kept checkpoints: %+v, %v", r, err)
	}
	writeLines(t, dir, readLines(t, dir)[:200])
	if err := os.Truncate(filepath.Join(dir, HashesFile), tlog.StoredHashCount(200)*tlog.HashSize); err != nil {
		t.Fatal(err)
	}
	notes, _ := splitNotes(kept)
	if err := os.WriteFile(filepath.Join(dir, CheckpointsFile), bytes.Join(notes[:2], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := verify(t, dir, k); !r.OK() || r.Signed != 200 {
		t.Fatalf("the cut-back log alone: %+v", r)
	}
	r, err := Verify(dir, k.verifier, kept, proof.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.String())
	}
	want := []string{
		"kept checkpoint 3 (size 300): the records no longer give its signed root (it covers 300 records, there are 200): the log was cut back or rewritten, its checkpoints with it",
		"kept checkpoint 4 (size 300): the records no longer give its signed root (it covers 300 records, there are 200): the log was cut back or rewritten, its checkpoints with it",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestUnsignedRecordsAreSignedOnTime: records below CheckpointEvery are
// signed by the interval's checkpoint, before Close.
func TestUnsignedRecordsAreSignedOnTime(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	l, err := Open(dir, k, Options{CheckpointInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	if _, err := l.Write(decisionLines(0, 3)); err != nil {
		t.Fatal(err)
	}
	for {
		if _, signed := l.Size(); signed == 3 {
			break
		}
		time.Sleep(time.Millisecond) // the test's own timeout bounds the wait
	}
	if r := verify(t, dir, k); !r.OK() || r.Signed != 3 {
		t.Fatalf("report %+v", r)
	}
}
