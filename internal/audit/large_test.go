package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/sumdb/tlog"
)

// tamperLarge makes the four tamperings of the bar in a log of
// 100,000 records (10,000 with -short): a one-byte edit, a deleted record,
// an inserted record and a swapped pair, and returns the findings they must
// get, written from the edits.
func tamperLarge(t testing.TB, dir string, n int) []string {
	t.Helper()
	q := n / 10
	ls := readLines(t, dir)
	ls[q][len(ls[q])-5] ^= 0x20 // "issued" → "issuEd": one byte
	ls = append(ls[:3*q:3*q], ls[3*q+1:]...)
	forged := []byte(`{"seq":5000,"time":1700000000,"verb":"consume","result":"consumed"}` + "\n")
	ls = append(ls[:5*q-1:5*q-1], append([][]byte{forged}, ls[5*q-1:]...)...)
	ls[7*q], ls[7*q+1] = ls[7*q+1], ls[7*q]
	writeLines(t, dir, ls)
	return []string{
		fmt.Sprintf("record seq %d (line %d): modified", q, q+1),
		fmt.Sprintf("record seq %d: deleted (it belongs before line %d)", 3*q, 3*q+1),
		fmt.Sprintf("line %d: inserted (no record of the log)", 5*q),
		fmt.Sprintf("records seq %d and %d (lines %d and %d): swapped", 7*q, 7*q+1, 7*q+1, 7*q+2),
		fmt.Sprintf("checkpoint %d (size %d): the records no longer give its signed root: the first alteration is among records seq %d to %d", q/1000+1, q+1000, q, q+999),
	}
}

// TestAHundredThousandRecords: verify names a one-byte edit, a deleted
// record, an inserted record and a swapped pair among 100,000 records
// (10,000 with -short), and the first checkpoint they break.
func TestAHundredThousandRecords(t *testing.T) {
	t.Parallel()
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	dir, k := t.TempDir(), newKey(t)
	writeLog(t, dir, k, n, 1000, 1000)
	want := tamperLarge(t, dir, n)
	var got []string
	for _, f := range verify(t, dir, k).Findings {
		got = append(got, f.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestAnEditedInteriorHashIsNamed: an interior hash of the hashes file
// that no longer matches its children is named (proofs through it would
// fail); the records themselves still verify.
func TestAnEditedInteriorHashIsNamed(t *testing.T) {
	t.Parallel()
	dir, k := t.TempDir(), newKey(t)
	writeLog(t, dir, k, 64, 8, 1000)
	path := filepath.Join(dir, HashesFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[tlog.StoredHashIndex(1, 5)*tlog.HashSize] ^= 1
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range verify(t, dir, k).Findings {
		got = append(got, f.String())
	}
	want := []string{"hashes file: the interior hash at level 1, index 5 does not match the records below it: edited (inclusion proofs through it fail)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// BenchmarkVerify100k: the time audit verify takes over 100,000 records
// with the four tamperings (docs/performance.md).
func BenchmarkVerify100k(b *testing.B) {
	const n = 100_000
	dir, k := b.TempDir(), newKey(b)
	writeLog(b, dir, k, n, 1000, 1000)
	want := len(tamperLarge(b, dir, n))
	st, _ := os.Stat(filepath.Join(dir, RecordsFile))
	b.SetBytes(st.Size())
	for b.Loop() {
		r, err := Verify(dir, k.verifier)
		if err != nil || len(r.Findings) != want {
			b.Fatalf("%v, %v", r, err)
		}
	}
}

// BenchmarkAppend: the cost of appending records in batches of 64, as the
// decision log's writer goroutine does under load, with a signed
// checkpoint (three fsyncs and an Ed25519 signature) every 1,000 records
// and without checkpoints.
func BenchmarkAppend(b *testing.B) {
	for _, every := range []int64{DefaultCheckpointEvery, 1 << 62} {
		name := fmt.Sprintf("checkpoint every %d", every)
		if every == 1<<62 {
			name = "no checkpoints"
		}
		b.Run(name, func(b *testing.B) {
			dir, k := b.TempDir(), newKey(b)
			l, err := Open(dir, k, Options{CheckpointEvery: every, CheckpointInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			batch := decisionLines(0, 64)
			b.SetBytes(int64(len(batch)))
			for b.Loop() {
				if _, err := l.Write(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/record")
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
