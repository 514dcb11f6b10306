package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/mcpgate"
	"github.com/toolgate/toolgate/internal/mcpgate/mcpimport"
)

// serverReport is one capture imported: which tools the importer drafted
// and which it refused, and why.
type serverReport struct {
	Info     CaptureInfo
	Tools    []toolReport
	Imported int
	Refused  int
	// SideEffecting counts the tools that may change something, by the
	// server's readOnlyHint where it gives one (ByHint), else by a verb in
	// the name (ByName): a label for the reader, never an input to the
	// import, which reads no annotation.
	SideEffecting, ByHint, ByName int
	// Profiled counts the tools with an accepted argument profile
	// (docs/arguments.md), and ProfiledSE the side-effecting ones.
	Profiled, ProfiledSE int
}

type toolReport struct {
	Name       string
	Imported   bool
	Narrowings int
	Refusals   []mcpimport.Finding
	// Profile is true when the proposed argument profile is accepted;
	// ProfileRefusals is why not.
	Profile         bool
	ProfileRefusals []mcpimport.Finding
}

// readCapture reads one committed capture and its tools, as
// `toolgate registry import --from-file` reads it.
func readCapture(path string) (CaptureInfo, []mcpimport.Tool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return CaptureInfo{}, nil, err
	}
	var c Capture
	if err := json.Unmarshal(raw, &c); err != nil {
		return CaptureInfo{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	i := c.Capture
	if i.Server == "" || i.Package == "" || i.Version == "" || i.Date == "" || i.Command == "" || i.Pages < 1 {
		return CaptureInfo{}, nil, fmt.Errorf("%s: capture: server, package, version, date, command and pages are required", path)
	}
	if filepath.Base(path) != i.Server+".json" {
		return CaptureInfo{}, nil, fmt.Errorf("%s: capture.server is %q", path, i.Server)
	}
	tools, err := mcpimport.ParseToolsList(raw)
	if err != nil {
		return CaptureInfo{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return i, tools, nil
}

// importCapture imports one capture's tools with the tool prefix of its
// server's name.
func importCapture(info CaptureInfo, tools []mcpimport.Tool) (serverReport, error) {
	r, err := mcpimport.Import(tools, mcpimport.Options{
		Namespace: "corpus", SnapshotID: info.Server + "-mcp", ToolPrefix: info.Server,
		Gateway: mcpgate.Config{
			Toolgate:      mcpgate.Endpoint{URL: "http://127.0.0.1:8080", TokenFile: ".state/mcp-executor.token"},
			HostAuthority: mcpgate.ObjectRef{Namespace: "corpus", Name: info.Server + "-host"},
			OutcomeLog:    ".state/mcp-outcomes.jsonl",
		},
	})
	if err != nil {
		return serverReport{}, fmt.Errorf("%s: %w", info.Server, err)
	}
	imported := map[string]bool{}
	for _, m := range r.Gateway.Tools {
		imported[m.Name] = true
	}
	refusals := map[string][]mcpimport.Finding{}
	for _, f := range r.Refusals {
		refusals[f.Tool] = append(refusals[f.Tool], f)
	}
	narrowings := map[string]int{}
	for _, f := range r.Narrowings {
		narrowings[f.Tool]++
	}
	profiles := map[string]mcpimport.ProfileProposal{}
	for _, pp := range r.Profiles {
		profiles[pp.Tool] = pp
	}
	rep := serverReport{Info: info}
	seen := map[string]bool{}
	var errs []error
	for _, t := range tools {
		tr := toolReport{Name: t.Name, Imported: imported[t.Name], Narrowings: narrowings[t.Name], Refusals: refusals[t.Name],
			ProfileRefusals: profiles[t.Name].Refused}
		_, tr.Profile = profiles[t.Name].Accepted()
		switch {
		case seen[t.Name]:
			// A repeated name is refused once, its first listing imported.
			continue
		case tr.Imported == (len(tr.Refusals) > 0):
			errs = append(errs, fmt.Errorf("%s: tool %s is imported %t with %d refusals: each tool is imported or refused", info.Server, t.Name, tr.Imported, len(tr.Refusals)))
		}
		seen[t.Name] = true
		for _, f := range append(slices.Clone(tr.Refusals), tr.ProfileRefusals...) {
			if f.Reason == "" || (f.Pointer != "" && !strings.HasPrefix(f.Pointer, "/")) {
				errs = append(errs, fmt.Errorf("%s: tool %s: a refusal without a JSON pointer or reason: %q", info.Server, t.Name, f.String()))
			}
		}
		if !tr.Profile && len(tr.ProfileRefusals) == 0 {
			errs = append(errs, fmt.Errorf("%s: tool %s: no argument profile, and no refusal saying why", info.Server, t.Name))
		}
		if tr.Imported {
			rep.Imported++
		} else {
			rep.Refused++
		}
		se, hinted := sideEffecting(t)
		if tr.Profile {
			rep.Profiled++
			if se {
				rep.ProfiledSE++
			}
		}
		switch {
		case se && hinted:
			rep.SideEffecting++
			rep.ByHint++
		case se:
			rep.SideEffecting++
			rep.ByName++
		}
		rep.Tools = append(rep.Tools, tr)
	}
	return rep, errors.Join(errs...)
}

// writeVerbs are the name segments read as "changes something" when a
// tool gives no readOnlyHint.
var writeVerbs = []string{
	"add", "apply", "assign", "cancel", "click", "close", "create", "delete", "deploy", "drop", "edit",
	"execute", "fill", "finalize", "fork", "insert", "merge", "move", "patch", "pause", "post", "push",
	"put", "remove", "rename", "reset", "restore", "run", "send", "set", "type", "update", "upload", "write",
}

// sideEffecting reads the tool's readOnlyHint (hinted) or, without one,
// its name.
func sideEffecting(t mcpimport.Tool) (se, hinted bool) {
	var a struct {
		ReadOnlyHint *bool `json:"readOnlyHint"`
	}
	if len(t.Annotations) > 0 && json.Unmarshal(t.Annotations, &a) == nil && a.ReadOnlyHint != nil {
		return !*a.ReadOnlyHint, true
	}
	for seg := range strings.FieldsFuncSeq(strings.ToLower(t.Name), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if slices.Contains(writeVerbs, seg) {
			return true, false
		}
	}
	return false, false
}

// reasonCount is one refusal reason, how many tools it refuses, and how
// many it alone refuses (they would import without it).
type reasonCount struct {
	Reason      string
	Tools, Only int
}

// reasons are the server's refusal reasons, most tools first; a tool
// counts once per distinct reason.
func (s serverReport) reasons() []reasonCount {
	n, only := map[string]int{}, map[string]int{}
	for _, t := range s.Tools {
		seen := map[string]bool{}
		for _, f := range t.Refusals {
			if !seen[f.Reason] {
				seen[f.Reason] = true
				n[f.Reason]++
			}
		}
		if len(seen) == 1 {
			only[t.Refusals[0].Reason]++
		}
	}
	var out []reasonCount
	for r, c := range n {
		out = append(out, reasonCount{r, c, only[r]})
	}
	slices.SortFunc(out, func(a, b reasonCount) int {
		if a.Tools != b.Tools {
			return b.Tools - a.Tools
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return out
}

// report imports every capture in dir: the servers' list order, then any
// other capture.
func report(dir string, servers []server) ([]serverReport, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, errors.New(dir + ": no captures")
	}
	rank := func(p string) int {
		if i := slices.IndexFunc(servers, func(s server) bool { return s.name+".json" == filepath.Base(p) }); i >= 0 {
			return i
		}
		return len(servers)
	}
	slices.SortStableFunc(paths, func(a, b string) int { return rank(a) - rank(b) })
	var out []serverReport
	var errs []error
	for _, p := range paths {
		info, tools, err := readCapture(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rep, err := importCapture(info, tools)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, rep)
	}
	return out, errors.Join(errs...)
}

// golden renders the reports as corpus-report.golden: per server its
// counts, then each tool imported (with its narrowings' count) or refused
// (with every refusal); the totals last. No capture date: re-capturing an
// unchanged server changes nothing here.
func golden(reps []serverReport, dir string) []byte {
	var b strings.Builder
	b.WriteString("# Every capture in " + dir + " imported by `toolgate registry import`'s importer\n")
	b.WriteString("# (internal/mcpgate/mcpimport). Regenerate: go test ./hack/mcpcorpus -run TestCorpus -update\n")
	var tools, imported, refused, profiled, profiledSE int
	var all []toolReport
	for _, s := range reps {
		all = append(all, s.Tools...)
		fmt.Fprintf(&b, "\n%s %s@%s: %d tools, %d imported, %d refused; %d side-effecting (%d by hint, %d by name); %d with an argument profile (%d side-effecting)\n",
			s.Info.Server, s.Info.Package, s.Info.Version, len(s.Tools), s.Imported, s.Refused, s.SideEffecting, s.ByHint, s.ByName, s.Profiled, s.ProfiledSE)
		for _, t := range s.Tools {
			profile := "profile"
			if !t.Profile {
				profile = fmt.Sprintf("no profile: %d refusals", len(t.ProfileRefusals))
			}
			if t.Imported {
				fmt.Fprintf(&b, "  imported %s (%d narrowings; %s)\n", t.Name, t.Narrowings, profile)
			} else {
				fmt.Fprintf(&b, "  refused  %s (%s)\n", t.Name, profile)
			}
			for _, f := range t.Refusals {
				fmt.Fprintf(&b, "           %s: %s\n", pointerOf(f), f.Reason)
			}
			for _, f := range t.ProfileRefusals {
				fmt.Fprintf(&b, "           profile %s: %s\n", pointerOf(f), f.Reason)
			}
		}
		tools, imported, refused = tools+len(s.Tools), imported+s.Imported, refused+s.Refused
		profiled, profiledSE = profiled+s.Profiled, profiledSE+s.ProfiledSE
	}
	fmt.Fprintf(&b, "\ntotal: %d servers, %d tools, %d imported, %d refused; %d with an argument profile (%d side-effecting)\n",
		len(reps), tools, imported, refused, profiled, profiledSE)
	b.WriteString("\nrefusal reasons over the " + path.Base(dir) + ": tools refused for each (a tool may have several), and by it alone\n" +
		"(every refusal of a tool, inside a member or a tool it refuses by name too):\n")
	for _, r := range (serverReport{Tools: all}).reasons() {
		fmt.Fprintf(&b, "  %4d %4d alone  %s\n", r.Tools, r.Only, r.Reason)
	}
	return []byte(b.String())
}

func pointerOf(f mcpimport.Finding) string {
	if f.Pointer == "" {
		return "(root)"
	}
	return f.Pointer
}

// table renders the README's per-server table (Markdown).
func table(reps []serverReport) string {
	var b strings.Builder
	b.WriteString("| Server | Version | Tools | Side-effecting | Imported | Refused | Argument profile (side-effecting) | Main refusal reasons (tools) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---|\n")
	var tools, imported, refused, se, profiled, profiledSE int
	for _, s := range reps {
		label := strconv.Itoa(s.SideEffecting)
		if s.ByName > 0 {
			label = fmt.Sprintf("%d (%d by name)", s.SideEffecting, s.ByName)
		}
		var rs []string
		for i, r := range s.reasons() {
			if i == 3 {
				break
			}
			rs = append(rs, fmt.Sprintf("%s (%d)", shortReason(r.Reason), r.Tools))
		}
		if len(rs) == 0 {
			rs = []string{"—"}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %d | %d | %d (%d) | %s |\n", s.Info.Package, s.Info.Version, len(s.Tools), label,
			s.Imported, s.Refused, s.Profiled, s.ProfiledSE, strings.Join(rs, "; "))
		tools, imported, refused, se = tools+len(s.Tools), imported+s.Imported, refused+s.Refused, se+s.SideEffecting
		profiled, profiledSE = profiled+s.Profiled, profiledSE+s.ProfiledSE
	}
	fmt.Fprintf(&b, "| **total** (%d servers) | | %d | %d | %d | %d | %d (%d) | |\n", len(reps), tools, se, imported, refused, profiled, profiledSE)
	return b.String()
}

// shortReason is a refusal reason up to its first ';' or parenthesis
// (the rest says why it refuses rather than drops, or spells out a
// protocol token), with Markdown's '|' escaped.
func shortReason(r string) string {
	if i := strings.IndexAny(r, ";("); i > 0 {
		r = strings.TrimSpace(r[:i])
	}
	return strings.ReplaceAll(r, "|", `\|`)
}
