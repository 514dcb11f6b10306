package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/server"
)

// maxShadowExamples bounds the Decision identities a report names per
// change.
const maxShadowExamples = 5

// shadowReport is `shadow report`'s document: per shadow generation, the
// calls evaluated beside it and how its outcomes differ (docs/shadow.md).
type shadowReport struct {
	Shadows []shadowSummary `json:"shadows"`
}

// shadowSummary is one shadow generation of one policy snapshot in one
// domain.
type shadowSummary struct {
	HostAuthority string `json:"hostAuthority"` // namespace/name
	Snapshot      string `json:"snapshot"`      // policy snapshot identity
	Generation    string `json:"generation"`    // the shadow's
	// Seen counts the authorizes evaluated beside it; Changed those it
	// decided otherwise; Unevaluable those it could not be evaluated for.
	Seen        int               `json:"seen"`
	Changed     int               `json:"changed"`
	Unevaluable int               `json:"unevaluable"`
	Changes     []shadowDirection `json:"changes"`
}

// shadowDirection is the changed calls of one outcome pair (allow→deny,
// or allow→allow when only the rules, reasons or scope differ).
type shadowDirection struct {
	Live     string       `json:"live"`
	Shadow   string       `json:"shadow"`
	Calls    int          `json:"calls"`
	Tools    []shadowTool `json:"tools"`
	Rules    []shadowRule `json:"rules"`
	Examples []string     `json:"examples"` // Decision identities
}

// shadowTool counts the changed calls of a direction to one tool.
type shadowTool struct {
	Tool  string `json:"tool"`
	Calls int    `json:"calls"`
}

// shadowRule is one rule behind the changes of a direction: added when
// only the shadow matched it, removed when only the live Decision did.
type shadowRule struct {
	Rule   string `json:"rule"`
	Change string `json:"change"`
	Calls  int    `json:"calls"`
}

// shadowReportOptions are shadow report's flags: -o and the promotion
// check's thresholds.
type shadowReportOptions struct {
	out        *outputFlags
	failOn     *directionList
	maxChanged float64
}

func shadowReportFlags(fs *pflag.FlagSet) *shadowReportOptions {
	o := &shadowReportOptions{out: outputOnlyFlags(fs), failOn: &directionList{}}
	fs.Var(o.failOn, "fail-on", "exit 1 when a call changes in one of these directions (`LIVE-SHADOW[:TOOL],...`, e.g. allow-deny or allow-deny:payments.submit; outcomes "+strings.Join(shadowOutcomes, ", ")+")")
	fs.Float64Var(&o.maxChanged, "max-changed", 100, "exit 1 when more than this percentage of a shadow's calls change")
	return o
}

// shadowOutcomes are the outcomes a direction names.
var shadowOutcomes = []string{"allow", "deny", "requireConfirmation"}

// directionList is --fail-on: directions, each optionally for one tool.
// Its error names the form, never the rejected value.
type directionList struct{ ds []failDirection }

type failDirection struct{ live, shadow, tool string }

func (l *directionList) String() string {
	var out []string
	for _, d := range l.ds {
		s := d.live + "-" + d.shadow
		if d.tool != "" {
			s += ":" + d.tool
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

func (l *directionList) Type() string { return "directions" }

func (l *directionList) Set(v string) error {
	for _, x := range strings.Split(v, ",") {
		dir, tool, _ := strings.Cut(x, ":")
		live, shadow, ok := strings.Cut(dir, "-")
		if !ok || !slices.Contains(shadowOutcomes, live) || !slices.Contains(shadowOutcomes, shadow) || strings.Contains(x, " ") {
			return fmt.Errorf("must be directions LIVE-SHADOW[:TOOL] separated by commas, outcomes of %s", strings.Join(shadowOutcomes, ", "))
		}
		l.ds = append(l.ds, failDirection{live, shadow, tool})
	}
	return nil
}

// violations are the promotion check's findings over r.
func (o *shadowReportOptions) violations(r shadowReport) []string {
	var out []string
	for _, s := range r.Shadows {
		name := s.HostAuthority + " " + s.Snapshot + "@" + s.Generation
		if s.Seen > 0 && 100*float64(s.Changed)/float64(s.Seen) > o.maxChanged {
			out = append(out, fmt.Sprintf("%s changes %d of %d calls, more than %g %%", name, s.Changed, s.Seen, o.maxChanged))
		}
		for _, d := range s.Changes {
			for _, f := range o.failOn.ds {
				if f.live != d.Live || f.shadow != d.Shadow {
					continue
				}
				n := d.Calls
				if f.tool != "" {
					n = 0
					for _, t := range d.Tools {
						if t.Tool == f.tool {
							n = t.Calls
						}
					}
				}
				if n > 0 {
					out = append(out, fmt.Sprintf("%s changes %d calls %s -> %s (--fail-on %s)", name, n, d.Live, d.Shadow, (&directionList{[]failDirection{f}}).String()))
				}
			}
		}
	}
	return out
}

// shadowReportVerb reads decision logs (or audit records, whose lines are
// the same with a seq) and reports every shadow generation in them; with
// --fail-on or --max-changed it is a promotion check that exits 1 when a
// threshold is exceeded.
func shadowReportVerb(o *shadowReportOptions, logs []string, out io.Writer) error {
	if err := needPaths("shadow report", logs, "decision log"); err != nil {
		return err
	}
	mode, _ := o.out.mode()
	var entries []server.Entry
	for _, path := range logs {
		es, err := readDecisionLog(path)
		if err != nil {
			return err
		}
		entries = append(entries, es...)
	}
	r := summarizeShadows(entries)
	if mode != formatText {
		if err := emit(out, mode, r); err != nil {
			return err
		}
	} else {
		writeShadowText(out, r)
	}
	if v := o.violations(r); len(v) > 0 {
		return fmt.Errorf("promotion check: %s", strings.Join(v, "; "))
	}
	return nil
}

// readDecisionLog reads the authorize entries of one decision log; a line
// that is not an entry rejects with its line number, never its content.
func readDecisionLog(path string) ([]server.Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []server.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var e server.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: not a decision-log line", path, line)
		}
		if e.Verb == "authorize" {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// summarizeShadows groups the entries with a shadow record by domain,
// snapshot and shadow generation, in that order.
func summarizeShadows(entries []server.Entry) shadowReport {
	type key struct{ ha, snap, gen string }
	byKey := map[key]*shadowSummary{}
	for _, e := range entries {
		sh := e.Shadow
		if sh == nil {
			continue
		}
		k := key{e.Namespace + "/" + e.HostAuthority, selectedSnapshot(e.Selection), sh.Generation}
		s := byKey[k]
		if s == nil {
			s = &shadowSummary{HostAuthority: k.ha, Snapshot: k.snap, Generation: k.gen, Changes: []shadowDirection{}}
			byKey[k] = s
		}
		s.Seen++
		switch {
		case sh.Code != "":
			s.Unevaluable++
			continue
		case !sh.Changed:
			continue
		}
		s.Changed++
		i := slices.IndexFunc(s.Changes, func(d shadowDirection) bool { return d.Live == e.Outcome && d.Shadow == sh.Outcome })
		if i < 0 {
			s.Changes = append(s.Changes, shadowDirection{Live: e.Outcome, Shadow: sh.Outcome, Tools: []shadowTool{}, Rules: []shadowRule{}, Examples: []string{}})
			i = len(s.Changes) - 1
		}
		d := &s.Changes[i]
		d.Calls++
		if t := slices.IndexFunc(d.Tools, func(t shadowTool) bool { return t.Tool == sh.Tool }); t >= 0 {
			d.Tools[t].Calls++
		} else {
			d.Tools = append(d.Tools, shadowTool{Tool: sh.Tool, Calls: 1})
		}
		if len(d.Examples) < maxShadowExamples && e.DecisionID != "" {
			d.Examples = append(d.Examples, e.DecisionID)
		}
		for _, c := range []struct {
			change string
			rules  []string
		}{{"added", sh.RulesAdded}, {"removed", sh.RulesRemoved}} {
			for _, rule := range c.rules {
				j := slices.IndexFunc(d.Rules, func(r shadowRule) bool { return r.Rule == rule && r.Change == c.change })
				if j < 0 {
					d.Rules = append(d.Rules, shadowRule{Rule: rule, Change: c.change})
					j = len(d.Rules) - 1
				}
				d.Rules[j].Calls++
			}
		}
	}
	r := shadowReport{Shadows: []shadowSummary{}}
	for _, s := range byKey {
		slices.SortFunc(s.Changes, func(a, b shadowDirection) int {
			return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Live, b.Live), cmp.Compare(a.Shadow, b.Shadow))
		})
		for i := range s.Changes {
			slices.SortFunc(s.Changes[i].Tools, func(a, b shadowTool) int {
				return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Tool, b.Tool))
			})
			slices.SortFunc(s.Changes[i].Rules, func(a, b shadowRule) int {
				return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Change, b.Change))
			})
		}
		r.Shadows = append(r.Shadows, *s)
	}
	slices.SortFunc(r.Shadows, func(a, b shadowSummary) int {
		return cmp.Or(cmp.Compare(a.HostAuthority, b.HostAuthority), cmp.Compare(a.Snapshot, b.Snapshot), cmp.Compare(a.Generation, b.Generation))
	})
	return r
}

// selectedSnapshot is the policy snapshot identity of a log selection
// ("REGISTRY@GEN POLICY-SNAPSHOT@GEN POLICY@GEN").
func selectedSnapshot(sel string) string {
	f := strings.Fields(sel)
	if len(f) < 2 {
		return ""
	}
	id, _, _ := strings.Cut(f[1], "@")
	return id
}

func writeShadowText(out io.Writer, r shadowReport) {
	if len(r.Shadows) == 0 {
		fmt.Fprintln(out, "no shadow evaluations in the log")
		return
	}
	for _, s := range r.Shadows {
		pct := 0.0
		if s.Seen > 0 {
			pct = 100 * float64(s.Changed) / float64(s.Seen)
		}
		fmt.Fprintf(out, "%s %s@%s (shadow): %d calls seen, %d changed (%.1f %%), %d not evaluable\n",
			s.HostAuthority, s.Snapshot, s.Generation, s.Seen, s.Changed, pct, s.Unevaluable)
		for _, d := range s.Changes {
			tools := make([]string, len(d.Tools))
			for i, t := range d.Tools {
				tools[i] = fmt.Sprintf("%s %d", t.Tool, t.Calls)
			}
			fmt.Fprintf(out, "  %s -> %s: %d (%s)\n", d.Live, d.Shadow, d.Calls, strings.Join(tools, ", "))
			for _, rule := range d.Rules {
				fmt.Fprintf(out, "    %s %s: %d\n", rule.Change, rule.Rule, rule.Calls)
			}
			if len(d.Examples) > 0 {
				fmt.Fprintf(out, "    e.g. %s\n", strings.Join(d.Examples, ", "))
			}
		}
	}
}
