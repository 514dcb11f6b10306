package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// keepGC restores the test process's GC settings after a test that tunes them.
func keepGC(t *testing.T) {
	t.Helper()
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	debug.SetMemoryLimit(math.MaxInt64)
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func memoryMax(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "memory.max")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTuneGCRaisesTheTargetAndBoundsItByTheContainer(t *testing.T) {
	const limit = 512 << 20 // the chart's memory limit
	tests := []struct {
		name      string
		env       map[string]string
		memoryMax string // file content; "" for no file
		wantLimit int64  // the soft limit expected in force afterwards; MaxInt64 for none
	}{
		{"a cgroup limit gives a soft limit of nine tenths of it", nil, "536870912\n", limit / 10 * 9},
		{"an unlimited cgroup sets no soft limit", nil, "max\n", math.MaxInt64},
		{"no cgroup file sets no soft limit", nil, "", math.MaxInt64},
		{"an unreadable limit sets none", nil, "512M\n", math.MaxInt64},
		{"a zero limit sets none", nil, "0\n", math.MaxInt64},
		{"a negative limit sets none", nil, "-1\n", math.MaxInt64},
		{"the operator's GOMEMLIMIT wins", map[string]string{"GOMEMLIMIT": "100MiB"}, "536870912\n", math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keepGC(t)
			path := filepath.Join(t.TempDir(), "absent")
			if tt.memoryMax != "" {
				path = memoryMax(t, tt.memoryMax)
			}
			g := tuneGC(env(tt.env), path)
			if got := debug.SetGCPercent(serviceGCPercent); got != serviceGCPercent || g.percent != serviceGCPercent || g.fromEnv {
				t.Errorf("GOGC in force %d, reported %d (from env %v); want %d", got, g.percent, g.fromEnv, serviceGCPercent)
			}
			got := debug.SetMemoryLimit(-1)
			// The limit is computed in floating point: allow a byte of rounding.
			if d := got - tt.wantLimit; d < -1 || d > 1 {
				t.Errorf("memory limit in force %d, want %d", got, tt.wantLimit)
			}
			if tt.wantLimit != math.MaxInt64 && g.memoryLimit != got {
				t.Errorf("reported memory limit %d, in force %d", g.memoryLimit, got)
			}
			if tt.wantLimit == math.MaxInt64 && g.memoryLimit != 0 {
				t.Errorf("reported a memory limit %d, none was set", g.memoryLimit)
			}
		})
	}
}

func TestTuneGCLeavesTheOperatorsGOGC(t *testing.T) {
	keepGC(t)
	debug.SetGCPercent(150) // what the runtime read from GOGC=150 at start
	g := tuneGC(env(map[string]string{"GOGC": "150"}), memoryMax(t, "536870912\n"))
	if got := debug.SetGCPercent(150); got != 150 || g.percent != 150 || !g.fromEnv {
		t.Errorf("GOGC in force %d, reported %d (from env %v); want the operator's 150", got, g.percent, g.fromEnv)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 || g.memoryLimit != 0 {
		t.Errorf("memory limit %d (reported %d) set although the operator chose GOGC", got, g.memoryLimit)
	}
}
