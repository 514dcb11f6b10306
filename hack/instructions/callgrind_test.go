package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A live test re-executes this test binary as a no-op net/http server.
const serveEnv = "INSTRUCTIONS_TEST_SERVE"

func TestMain(m *testing.M) {
	if addr := os.Getenv(serveEnv); addr != "" {
		_ = http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			_, _ = io.WriteString(w, `{"result":true}`)
		}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestTotalIsTheTotalsLine: a dump's count is its "totals:" line, or its
// "summary:" line when it has no totals, and only of the event Ir; any
// other file is an error, never a zero.
func TestTotalIsTheTotalsLine(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "opa.callgrind"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, in string
		want     uint64
		err      string
	}{
		{"a callgrind dump", string(golden), 30277694, ""},
		{"totals over summary", "events: Ir\nsummary: 5\ntotals: 7\n", 7, ""},
		{"summary without totals", "events: Ir\nsummary: 5\n", 5, ""},
		{"no event line", "summary: 5\ntotals: 7\n", 0, `events ""`},
		{"another event list", "events: Ir Dr Dw\ntotals: 7 2 1\n", 0, "want exactly Ir"},
		{"no count", "events: Ir\n", 0, "no totals or summary"},
		{"not a number", "events: Ir\ntotals: 7x\n", 0, "is not a count"},
		{"negative", "events: Ir\ntotals: -7\n", 0, "is not a count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := total(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("total = %d, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("total = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// TestPerRequestCancelsWhatBothRunsDo: whatever the two runs share (a
// fixed cost f), the difference over n is the per-request cost c exactly.
func TestPerRequestCancelsWhatBothRunsDo(t *testing.T) {
	for _, f := range []uint64{0, 1, 999_983, 12_345_678_901} {
		for _, c := range []uint64{1, 49_270, 387_590, 1_253_969} {
			for _, n := range []int{1, 7, 200, 500} {
				got, err := perRequest(n, f+uint64(n)*c, f+2*uint64(n)*c)
				if err != nil || got != c {
					t.Fatalf("f %d, c %d, n %d: perRequest = %d, %v; want %d", f, c, n, got, err, c)
				}
			}
		}
	}
}

// TestPerRequestRounds to the nearest instruction.
func TestPerRequestRounds(t *testing.T) {
	for _, tc := range []struct {
		n            int
		small, large uint64
		want         uint64
	}{
		{3, 100, 104, 1}, // 4/3
		{3, 100, 105, 2}, // 5/3
		{2, 100, 103, 2}, // 3/2, half up
	} {
		if got, err := perRequest(tc.n, tc.small, tc.large); err != nil || got != tc.want {
			t.Errorf("perRequest(%d, %d, %d) = %d, %v; want %d", tc.n, tc.small, tc.large, got, err, tc.want)
		}
	}
}

// TestPerRequestRejectsWhatCannotBeACost: more requests never cost fewer
// or as many instructions; such a pair is noise or a broken run, and no
// figure is printed for it.
func TestPerRequestRejectsWhatCannotBeACost(t *testing.T) {
	for _, tc := range []struct {
		n            int
		small, large uint64
	}{
		{200, 13_454_567, 30_277_694 - 20_000_000}, // fewer
		{200, 5, 5}, // the same
		{0, 1, 2},   // no requests
		{-1, 1, 2},
	} {
		if got, err := perRequest(tc.n, tc.small, tc.large); err == nil {
			t.Errorf("perRequest(%d, %d, %d) = %d; want an error", tc.n, tc.small, tc.large, got)
		}
	}
}

// TestTableIsFixedWidth: the table's layout is part of its contract (two
// commits' tables diff line by line).
func TestTableIsFixedWidth(t *testing.T) {
	var b bytes.Buffer
	rows := []row{
		{Workload: "go-http-floor", Requests: 200, PerRequest: 49_270, Commit: "c64afc0abcde"},
		{Workload: "consume-cache-miss", Requests: 200, PerRequest: 1_253_969, Commit: "c64afc0abcde"},
	}
	if err := writeTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"workload                     requests  instr/request  commit\n" +
		"go-http-floor                     200         49,270  c64afc0abcde\n" +
		"consume-cache-miss                200      1,253,969  c64afc0abcde\n"
	if b.String() != want {
		t.Fatalf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 62_000: "62,000", 1_350_000: "1,350,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestLiveNoOpServer measures a no-op net/http server (this test binary,
// re-executed) under callgrind. It runs only with valgrind on PATH and
// INSTRUCTIONS_LIVE=1: it takes a minute.
func TestLiveNoOpServer(t *testing.T) {
	if os.Getenv("INSTRUCTIONS_LIVE") != "1" {
		t.Skip("set INSTRUCTIONS_LIVE=1 to run callgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("no valgrind on PATH")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := &bench{o: options{valgrind: "valgrind", control: "callgrind_control", n: 50, procs: 2}, work: t.TempDir(),
		hc: &http.Client{}}
	w := workload{name: "noop",
		start: func(b *bench, _, addr string, wrap bool) (*process, error) {
			t.Setenv(serveEnv, addr) // inherited by the child, not read again by this process
			return b.startProcess("noop", wrap, self)
		},
		request: func(b *bench, addr string, _ any, i int) error {
			return b.post("http://"+addr+"/", []byte(`{"input":{}}`))
		}}
	small, err := b.measure(w, 50)
	if err != nil {
		t.Fatal(err)
	}
	large, err := b.measure(w, 100)
	if err != nil {
		t.Fatal(err)
	}
	per, err := perRequest(50, small, large)
	if err != nil {
		t.Fatal(err)
	}
	// A no-op net/http request costs tens of thousands of instructions.
	if per < 10_000 || per > 1_000_000 {
		t.Fatalf("%d instructions per request (runs: %d, %d); want 10k..1M", per, small, large)
	}
	t.Logf("%d instructions per request (runs: %d, %d)", per, small, large)
}
