package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// proc is a process whose CPU time the bench reports per call.
type proc struct {
	name string
	pid  int
}

func parseProcs(s string) ([]proc, error) {
	if s == "" {
		return nil, nil
	}
	out := []proc{{name: "clients", pid: os.Getpid()}}
	for _, f := range strings.Split(s, ",") {
		name, pid, ok := strings.Cut(f, "=")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || name == "" {
			return nil, fmt.Errorf("-cpu: %q is not name=PID", f)
		}
		out = append(out, proc{name: name, pid: n})
	}
	return out, nil
}

// cpuTime is a process's user + system CPU time so far (Linux; fields 14
// and 15 of /proc/PID/stat, in clock ticks of 1/100 s).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return time.Duration(u+s) * 10 * time.Millisecond, nil
}

// cpuMeter reports, for each mode, every process's CPU time per call.
type cpuMeter struct {
	procs []proc
	last  []time.Duration
	lines []string
}

func (m *cpuMeter) start() {
	m.last = make([]time.Duration, len(m.procs))
	for i, p := range m.procs {
		m.last[i], _ = cpuTime(p.pid)
	}
}

func (m *cpuMeter) stop(mode string, calls int) {
	if len(m.procs) == 0 {
		return
	}
	line := "cpu per call, " + mode + ":"
	var total time.Duration
	for i, p := range m.procs {
		t, err := cpuTime(p.pid)
		if err != nil {
			line += fmt.Sprintf(" %s ?", p.name)
			continue
		}
		d := t - m.last[i]
		m.last[i] = t
		total += d
		line += fmt.Sprintf(" %s %.3f ms", p.name, ms(d)/float64(calls))
	}
	m.lines = append(m.lines, line+fmt.Sprintf(" (total %.3f ms)", ms(total)/float64(calls)))
}
