package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/hack/procstat"
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

// cpuMeter reports, for each mode, every process's CPU time per call.
type cpuMeter struct {
	procs []proc
	last  []time.Duration
	lines []string
}

func (m *cpuMeter) start() {
	m.last = make([]time.Duration, len(m.procs))
	for i, p := range m.procs {
		m.last[i], _ = procstat.CPUTime(p.pid)
	}
}

func (m *cpuMeter) stop(mode string, calls int) {
	if len(m.procs) == 0 {
		return
	}
	line := "cpu per call, " + mode + ":"
	var total time.Duration
	for i, p := range m.procs {
		t, err := procstat.CPUTime(p.pid)
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
