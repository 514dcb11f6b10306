package procstat

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseCountsFieldsFromTheCommandNamesLastParenthesis(t *testing.T) {
	// Fields 3–15 as the kernel writes them, utime 250 and stime 75 ticks.
	rest := " S 1 2 3 0 -1 4194304 100 0 0 0 250 75 0 0 20 0 4 0 99 0 0"
	for _, tc := range []struct {
		name, line string
		want       time.Duration
		wantErr    bool
	}{
		{"a plain command name", "42 (toolgate)" + rest, 3250 * time.Millisecond, false},
		{"a command name with spaces and parentheses", "42 (my (odd) name)" + rest, 3250 * time.Millisecond, false},
		{"no command name", "42 toolgate" + rest, 0, true},
		{"a line cut short", "42 (toolgate) S 1 2 3", 0, true},
		{"a time that is not a number", "42 (toolgate)" + strings.Replace(rest, " 250 ", " x ", 1), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse([]byte(tc.line))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("parse = %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestCPUTimeGrowsWithWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	before, err := CPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the process's CPU time has moved by a few ticks.
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for {
		for i := range 1_000_000 {
			x += i
		}
		after, err := CPUTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after >= before+3*tick {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU time stayed at %v after spinning (from %v)", after, before)
		}
	}
	_ = x
	if _, err := CPUTime(-1); err == nil {
		t.Error("no error for a process that cannot exist")
	}
}
