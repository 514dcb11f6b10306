package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// total reads the instruction count of one callgrind output file (the
// format of callgrind's manual, "Callgrind Format Specification"): the
// "totals:" line, or "summary:" when a writer gives only that. The event
// list must be exactly "Ir" (callgrind's default: instructions executed),
// so that the first number is the instruction count and nothing else.
func total(r io.Reader) (uint64, error) {
	var summary, totals string
	events := ""
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 16<<20)
	for s.Scan() {
		line := s.Text()
		switch {
		case strings.HasPrefix(line, "events:"):
			events = strings.TrimSpace(strings.TrimPrefix(line, "events:"))
		case strings.HasPrefix(line, "summary:"):
			summary = strings.TrimSpace(strings.TrimPrefix(line, "summary:"))
		case strings.HasPrefix(line, "totals:"):
			totals = strings.TrimSpace(strings.TrimPrefix(line, "totals:"))
		}
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	if events != "Ir" {
		return 0, fmt.Errorf("events %q, want exactly Ir", events)
	}
	v := totals
	if v == "" {
		v = summary
	}
	if v == "" {
		return 0, errors.New("no totals or summary line")
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("totals %q is not a count", v)
	}
	return n, nil
}

// perRequest is the instructions one request costs: a process that served
// n requests executed small instructions, one that served 2n large, and
// everything else both did (start-up, set-up requests, shutdown) cancels in
// the difference. The result is rounded to the nearest instruction.
func perRequest(n int, small, large uint64) (uint64, error) {
	if n < 1 {
		return 0, errors.New("the request count must be at least 1")
	}
	if large <= small {
		return 0, fmt.Errorf("%d requests executed %d instructions, %d requests %d: more requests must cost more", 2*n, large, n, small)
	}
	d := large - small
	return (d + uint64(n)/2) / uint64(n), nil
}

// row is one workload's measurement.
type row struct {
	Workload string `json:"workload"`
	// Requests is n, the measured requests: the difference between the
	// runs with 2n and n.
	Requests int `json:"requests"`
	// PerRequest is instructions per request.
	PerRequest uint64 `json:"instructionsPerRequest"`
	// Small and Large are the two runs' whole-process totals.
	Small  uint64 `json:"instructionsN"`
	Large  uint64 `json:"instructions2N"`
	Commit string `json:"commit"`
}

// writeTable writes rows as a fixed-width table: one row per workload,
// the same columns on every commit, so that two runs diff line by line.
func writeTable(w io.Writer, rows []row) error {
	if _, err := fmt.Fprintf(w, "%-28s %8s %14s  %s\n", "workload", "requests", "instr/request", "commit"); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-28s %8d %14s  %s\n", r.Workload, r.Requests, thousands(r.PerRequest), r.Commit); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(w io.Writer, rows []row) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// thousands writes n with a comma every three digits.
func thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
