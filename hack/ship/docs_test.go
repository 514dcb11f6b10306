package ship_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/testutil"
)

// docPage is a page whose every command block a test executes.
type docPage struct {
	path string
	// clone runs the page in a git clone of the repository's HEAD whose
	// origin/main is that same commit (the pull request's base of a page
	// about reviewing changes), instead of links to the working tree.
	clone bool
	// noneRun admits a page whose every block is marked not run (it is
	// still checked for blocks the test would miss and for shell syntax).
	noneRun bool
}

var docPages = []docPage{
	{path: "README.md"},
	{path: "docs/quickstart.md"},
	{path: "docs/gitops.md", clone: true},
	{path: "docs/policy-arguments.md"},
	{path: "docs/arguments.md"},
	{path: "CONTRIBUTING.md", noneRun: true},
	{path: "docs/profiles/README.md", noneRun: true},
}

// TestDocCommandBlocks executes every ```sh block of the pages of docPages,
// in order, in a temporary directory that holds the repository's files (or a
// clone of it), bin/toolgate (also on PATH as toolgate) and a scratch
// directory for /tmp/, and compares the output each block prints with the
// output it shows (docs/decisions.md, "A daemonless image and docs that
// run"). The page's HTML comment directly before a block says how it runs:
//
//   - none: the block runs on its own; a block showing no output must exit 0
//     with every command (set -e -o pipefail).
//   - <!-- run: with make run -->: `make run` is serving (started once per
//     page, on a free port substituted for 8080).
//   - <!-- run: after make run -->: `make run` has been stopped (Ctrl-C), so
//     its state directory holds its last signed checkpoint.
//   - <!-- not run: REASON -->: the block needs what a test cannot have here
//     (a cluster, a Docker engine, the network); it is only syntax-checked.
//
// In a block, "# " lines (or a bare "#") that directly follow a command or
// another such line are the output the page shows; a "# " line at the
// block's start or after a blank line is a comment. In shown output "…"
// stands for text that differs between runs (times, signatures).
func TestDocCommandBlocks(t *testing.T) {
	root := testutil.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "toolgate")
	if b, err := exec.Command("go", "build", "-o", bin, filepath.Join(root, "cmd", "toolgate")).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	for _, p := range docPages {
		page := p.path
		t.Run(page, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, page))
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := parseBlocks(string(raw))
			if err != nil {
				t.Fatalf("%s: %v", page, err)
			}
			// curl and jq are the walkthrough's; a developer machine without
			// them skips the page, CI must have them.
			for _, tool := range []string{"curl", "jq"} {
				for _, b := range blocks {
					script, _ := split(b)
					if b.directive != notRun && regexp.MustCompile(`(^|[\s|(<])`+tool+`\s`).MatchString(strings.Join(script, "\n")) {
						if _, err := exec.LookPath(tool); err != nil {
							testutil.SkipOrFailInCI(t, page+" runs "+tool+", which is not on PATH")
						}
					}
				}
			}
			d := newDocRun(t, root, bin, p.clone)
			ran := 0
			for _, b := range blocks {
				where := fmt.Sprintf("%s:%d", page, b.line)
				switch b.directive {
				case notRun:
					if out, err := exec.Command("bash", "-n", "-c", strings.Join(b.lines, "\n")).CombinedOutput(); err != nil {
						t.Errorf("%s: the block (not run) is not valid shell: %s", where, out)
					}
					continue
				case withServer:
					d.startServer(t)
				case afterServer:
					if d.server == nil {
						t.Fatalf("%s: run: after make run, but no block before it ran with make run", where)
					}
					d.stopServer(t)
				}
				ran++
				d.runBlock(t, where, b)
			}
			if ran == 0 && !p.noneRun {
				t.Errorf("%s: no command block ran", page)
			}
			d.stopServer(t)
		})
	}
}

type directive int

const (
	plain directive = iota
	withServer
	afterServer
	notRun
)

// block is one fenced command block of a page.
type block struct {
	line      int // of the opening fence, 1-based
	lines     []string
	directive directive
}

var (
	directiveRE = regexp.MustCompile(`^<!--\s*(not run|run):\s*(.*?)\s*-->$`)
	// An untagged or differently tagged block that starts like one of these
	// is a command block the test would miss.
	commandLike = regexp.MustCompile(`^(\$ )?(make|go|bin/toolgate|toolgate|kubectl|helm|docker|podman|crane|curl|git|jq)( |$)`)
)

// parseBlocks returns a page's ```sh blocks with their directives. A
// directive before anything but a ```sh block, an unknown directive, a
// shell block tagged other than sh, and an untagged block that starts with
// a command are errors: each would be a block the test silently skips.
func parseBlocks(md string) ([]block, error) {
	var out []block
	var errs []error
	lines := strings.Split(md, "\n")
	pending, pendingLine := plain, 0
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if m := directiveRE.FindStringSubmatch(l); m != nil {
			switch {
			case m[1] == "not run" && m[2] != "":
				pending = notRun
			case m[1] == "run" && m[2] == "with make run":
				pending = withServer
			case m[1] == "run" && m[2] == "after make run":
				pending = afterServer
			default:
				errs = append(errs, fmt.Errorf("line %d: unknown directive %q (want <!-- not run: REASON -->, <!-- run: with make run --> or <!-- run: after make run -->)", i+1, l))
			}
			pendingLine = i + 1
			continue
		}
		if !strings.HasPrefix(l, "```") {
			if l != "" && pending != plain {
				errs = append(errs, fmt.Errorf("line %d: the directive is not directly before a ```sh block", pendingLine))
				pending = plain
			}
			continue
		}
		tag := strings.TrimPrefix(l, "```")
		start := i
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		switch {
		case tag == "sh":
			out = append(out, block{line: start + 1, lines: body, directive: pending})
		case tag == "bash" || tag == "shell" || tag == "console" || tag == "zsh":
			errs = append(errs, fmt.Errorf("line %d: a ```%s block: tag it ```sh so the doc test runs it", start+1, tag))
		case pending != plain:
			errs = append(errs, fmt.Errorf("line %d: the directive is not directly before a ```sh block", pendingLine))
		case len(body) > 0 && (tag == "" || tag == "text") && commandLike.MatchString(strings.TrimSpace(body[0])):
			errs = append(errs, fmt.Errorf("line %d: an untagged block that starts with a command: tag it ```sh (run by the doc test) or mark it <!-- not run: REASON -->", start+1))
		}
		pending = plain
	}
	return out, errors.Join(errs...)
}

// split separates a block's script from the output it shows.
func split(b block) (script, shown []string) {
	prevCommand := false
	for _, l := range b.lines {
		isShown := l == "#" || strings.HasPrefix(l, "# ")
		switch {
		case isShown && prevCommand:
			shown = append(shown, strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
		case isShown:
			script = append(script, l) // a comment
		default:
			script = append(script, l)
			prevCommand = strings.TrimSpace(l) != ""
		}
	}
	return script, shown
}

// docRun is one page's run: its working directory, scratch directory and
// make run's server.
type docRun struct {
	root, work, scratch, port string
	env                       []string
	server                    *exec.Cmd
	serverDone                chan error
	stopped                   bool
}

func newDocRun(t *testing.T, root, bin string, clone bool) *docRun {
	t.Helper()
	tmp := t.TempDir()
	d := &docRun{root: root, work: filepath.Join(tmp, "work"), scratch: filepath.Join(tmp, "tmp")}
	if clone {
		cloneHead(t, root, d.work)
	} else {
		linkTopLevel(t, root, d.work)
	}
	for _, dir := range []string{filepath.Join(d.work, "bin"), d.scratch} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.work, "bin", "toolgate"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	d.env = append(os.Environ(), "PATH="+filepath.Join(d.work, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	return d
}

// linkTopLevel fills work with links to the repository's top-level
// entries, read-only by convention; bin/ and the state directory are the
// run's own.
func linkTopLevel(t *testing.T, root, work string) {
	t.Helper()
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "bin", ".state", "dist", ".git":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// cloneHead clones the repository's HEAD into work (sharing its objects)
// and points origin/main at that commit: a page's `git worktree add
// /tmp/base origin/main` then checks out the same tree, whatever branch
// the test runs on.
func cloneHead(t *testing.T, root, work string) {
	t.Helper()
	for _, args := range [][]string{
		{"clone", "--quiet", "--shared", root, work},
		{"-C", work, "update-ref", "refs/remotes/origin/main", "HEAD"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// substitute maps the page's fixed paths and address to the run's.
func (d *docRun) substitute(s string) string {
	s = strings.ReplaceAll(s, "/tmp/", d.scratch+"/")
	// The same package bin/toolgate is built from, without a second build.
	s = strings.ReplaceAll(s, "go run ./cmd/toolgate", "bin/toolgate")
	if d.port != "" {
		s = strings.ReplaceAll(s, "localhost:8080", "localhost:"+d.port)
		s = strings.ReplaceAll(s, "127.0.0.1:8080", "127.0.0.1:"+d.port)
	}
	return s
}

// unsubstitute maps the run's paths and address in output back to the page's.
func (d *docRun) unsubstitute(s string) string {
	s = strings.ReplaceAll(s, d.scratch+"/", "/tmp/")
	s = strings.ReplaceAll(s, d.work+"/", "")
	if d.port != "" {
		s = strings.ReplaceAll(s, ":"+d.port, ":8080")
	}
	return s
}

func (d *docRun) runBlock(t *testing.T, where string, b block) {
	t.Helper()
	script, shown := split(b)
	src := d.substitute(strings.Join(script, "\n"))
	if len(shown) == 0 {
		src = "set -e -o pipefail\n" + src
	}
	// A block that hangs (a server started by mistake) fails here, not at
	// the test binary's timeout; the bound is a deadline, not a measurement.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", src)
	cmd.Dir, cmd.Env = d.work, d.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	got := strings.Split(strings.TrimRight(d.unsubstitute(string(out)), "\n"), "\n")
	if len(shown) == 0 {
		if err != nil {
			t.Errorf("%s: the block shows no output, so every command must succeed: %v\n%s", where, err, out)
		}
		return
	}
	// The blocks that show a failure exit non-zero on purpose: the output
	// is what is compared.
	if !matchShown(shown, got) {
		t.Errorf("%s: the output differs from what the page shows (-shown +got; … in shown output matches any text):\n%s", where, cmp.Diff(shown, got))
	}
}

// matchShown reports whether every output line matches its shown line, "…"
// matching any text within a line.
func matchShown(shown, got []string) bool {
	if len(shown) != len(got) {
		return false
	}
	for i, s := range shown {
		parts := strings.Split(s, "…")
		for j, p := range parts {
			parts[j] = regexp.QuoteMeta(p)
		}
		if !regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`).MatchString(got[i]) {
			return false
		}
	}
	return true
}

// startServer runs `make run` (BIN and STATE in the run's directory, LISTEN
// on a free port) and waits until it answers /healthz.
func (d *docRun) startServer(t *testing.T) {
	t.Helper()
	if d.stopped {
		t.Fatal("run: with make run after a block that stopped it: one server per page")
	}
	if d.server != nil {
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(d.scratch, "make-run.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = logf.Close() })
	cmd := exec.Command("make", "--no-print-directory", "-C", d.root, "run",
		"BIN="+filepath.Join(d.work, "bin"), "STATE="+filepath.Join(d.work, ".state"), "LISTEN=127.0.0.1:"+d.port)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Ctrl-C reaches make and toolgate serve
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.server, d.serverDone = cmd, make(chan error, 1)
	go func() { d.serverDone <- cmd.Wait() }()
	t.Cleanup(func() { d.stopServer(t) })
	// Building bin/toolgate comes first; the bound is a failure deadline,
	// not a measurement.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case err := <-d.serverDone:
			d.stopped = true
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("make run exited before serving: %v\n%s", err, log)
		default:
		}
		resp, err := http.Get("http://127.0.0.1:" + d.port + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("make run does not answer /healthz on 127.0.0.1:%s:\n%s", d.port, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stopServer stops make run as Ctrl-C does and waits for it to exit.
func (d *docRun) stopServer(t *testing.T) {
	t.Helper()
	if d.server == nil || d.stopped {
		return
	}
	d.stopped = true
	if err := syscall.Kill(-d.server.Process.Pid, syscall.SIGINT); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("stop make run: %v", err)
	}
	// make exits non-zero on an interrupt; whether serve shut down cleanly
	// shows in the audit block (its last checkpoint is signed on the way out).
	if err := <-d.serverDone; err != nil {
		t.Logf("make run: %v", err)
	}
}
