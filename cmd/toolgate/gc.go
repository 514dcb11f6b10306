package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// serviceGCPercent is the garbage-collection target of the long-running
// commands (serve, manager, mcp gateway) unless GOGC is set: their live
// heap is small (snapshots, caches) and each request allocates a few tens
// of KB that die at once, so at Go's default of 100 about a sixth of the
// service's CPU was collection (docs/performance.md, "Profiling the service").
const serviceGCPercent = 400

// memoryLimitShare is the share of the container's memory limit given to
// the Go heap as a soft limit (GOMEMLIMIT) when the operator set none: the
// rest is left to goroutine stacks, the bbolt file's pages and the kernel.
const memoryLimitShare = 0.9

// cgroupMemoryMax is the cgroup v2 file holding the container's memory
// limit, as seen from inside the container.
const cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// gcSettings is what tuneGC chose, for the start-up log.
type gcSettings struct {
	percent     int   // the GOGC in force
	memoryLimit int64 // the soft limit set here in bytes; 0 when none was set here
	fromEnv     bool  // GOGC came from the environment
}

func (g gcSettings) String() string {
	src := "default of the service"
	if g.fromEnv {
		src = "from GOGC"
	}
	s := fmt.Sprintf("GOGC %d (%s)", g.percent, src)
	if g.memoryLimit > 0 {
		s += fmt.Sprintf(", memory limit %d MiB (%.0f %% of the cgroup's)", g.memoryLimit>>20, memoryLimitShare*100)
	}
	return s
}

// tuneGC raises the process's GC target to serviceGCPercent unless the
// environment sets GOGC, and, when it does so and GOMEMLIMIT is unset,
// sets a soft memory limit of memoryLimitShare of the cgroup limit read
// from memoryMax (none when the file is absent, says "max", or holds
// anything but a positive decimal): the higher target may then never
// grow the heap into the container's limit, because the runtime collects
// harder as the heap nears the soft limit. The operator's GOGC and
// GOMEMLIMIT always win.
func tuneGC(getenv func(string) string, memoryMax string) gcSettings {
	if getenv("GOGC") != "" {
		// The runtime read it at start; SetGCPercent only reports it by
		// replacing it, so put it back.
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return gcSettings{percent: p, fromEnv: true}
	}
	debug.SetGCPercent(serviceGCPercent)
	g := gcSettings{percent: serviceGCPercent}
	if getenv("GOMEMLIMIT") != "" {
		return g
	}
	if limit, ok := cgroupLimit(memoryMax); ok {
		g.memoryLimit = int64(float64(limit) * memoryLimitShare)
		debug.SetMemoryLimit(g.memoryLimit)
	}
	return g
}

// cgroupLimit reads a cgroup v2 memory.max file: a positive decimal number
// of bytes, or "max" for none.
func cgroupLimit(path string) (int64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil || v <= 0 || v == math.MaxInt64 {
		return 0, false
	}
	return v, true
}
