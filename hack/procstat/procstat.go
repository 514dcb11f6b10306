// Package procstat reads a Linux process's CPU time from /proc/PID/stat,
// for the repository's load generators and benchmarks (hack/loadgen,
// hack/mcpbench, bench's httppeers), which report a server process's CPU
// per request: a figure a shared, noisy host disturbs far less than
// latency.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// tick is Linux's USER_HZ, the unit of the stat file's times: 1/100 s on
// every architecture Go supports.
const tick = time.Second / 100

// CPUTime is the user plus system CPU time process pid has spent so far,
// all its threads together, at the resolution of one tick (10 ms).
func CPUTime(pid int) (time.Duration, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	d, err := parse(raw)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return d, nil
}

// parse reads utime and stime, fields 14 and 15 of a stat line. The
// command name, field 2, is parenthesized and may hold spaces and
// parentheses itself, so the fields are counted from its last ')'.
func parse(raw []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name")
	}
	f := strings.Fields(string(raw[i+1:])) // from field 3
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 63)
	stime, err2 := strconv.ParseUint(f[12], 10, 63)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("utime or stime is not a tick count")
	}
	return time.Duration(utime+stime) * tick, nil
}
