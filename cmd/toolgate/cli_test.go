package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testutil"
)

// TestCLIConventions: help is not an error, an unknown verb is named,
// flags may follow positional arguments, and the version comes from the
// build information.
func TestCLIConventions(t *testing.T) {
	t.Parallel()
	req := filepath.Join(testutil.RepoRoot(t), "examples", "requests", "payment-allow.yaml")
	tests := map[string]struct {
		args           []string
		code           int
		stdout, stderr string // substrings; an empty stderr must be empty
	}{
		"--help lists every verb":            {args: []string{"--help"}, stdout: "decide"},
		"-h lists every verb":                {args: []string{"-h"}, stdout: "intent digest"},
		"a verb's --help shows its synopsis": {args: []string{"decide", "--help"}, stdout: "usage: toolgate decide --manifests PATH --request FILE"},
		"a two-word verb's -h":               {args: []string{"registry", "validate", "-h"}, stdout: "usage: toolgate registry validate PATH..."},
		"an unknown verb is named":           {args: []string{"regsitry", "validate"}, code: 2, stderr: `unknown verb "regsitry validate"`},
		"an unknown second word is named":    {args: []string{"policy", "delete"}, code: 2, stderr: `unknown verb "policy delete"`},
		"a flag after the positional path is parsed": {
			args: []string{"registry", "validate", samplesDir(t), "--bogus"}, code: 2, stderr: "unknown flag --bogus",
		},
		"after --, everything is positional": {
			args: []string{"registry", "validate", "--", "--bogus"}, code: 1, stderr: "--bogus",
		},
		"flags after other flags and values": {
			args: []string{"decide", "--request", req, "--explain", "--manifests", samplesDir(t)}, stdout: "rules:",
		},
		"version":              {args: []string{"version"}, stdout: "toolgate "},
		"help of a verb group": {args: []string{"help", "registry"}, stdout: "usage: toolgate registry VERB"},
		"help of an unknown verb is a usage error": {args: []string{"help", "nosuchverb"}, code: 2, stderr: `unknown verb "nosuchverb"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.stdout) || (tc.stderr == "" && r.stderr != "") || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stdout %q, stderr %q; want stdout containing %q and stderr containing %q", r.stdout, r.stderr, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestCLIErrorsHaveOnePrefix: a user-facing error starts with "toolgate: "
// and carries no package prefix.
func TestCLIErrorsHaveOnePrefix(t *testing.T) {
	t.Parallel()
	for _, r := range []result{
		runCLI(`{"a":1,"a":2}`, "intent", "digest"),
		runCLI("", "audit", "verify", "--log", t.TempDir(), "--key", "name+00000000+AQ=="),
	} {
		if r.code != 1 || !strings.HasPrefix(r.stderr, "toolgate: ") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		for _, p := range []string{"engine:", "jsonexact:", "agentsafe:", "audit:"} {
			if strings.Contains(r.stderr, p) {
				t.Errorf("stderr %q carries the package prefix %q", r.stderr, p)
			}
		}
	}
}

func samplesDir(t *testing.T) string { return samples(t) }

// TestEveryVerbsHelpShowsEveryFlagWithItsDefault: for every verb, the
// flags its run function declares (read from the verb itself, not from a
// list kept here) each appear in `toolgate VERB --help` as --name, with
// the default when it is not the zero value; the help has an example of
// the verb; `toolgate help VERB` prints the same.
func TestEveryVerbsHelpShowsEveryFlagWithItsDefault(t *testing.T) {
	t.Parallel()
	for _, v := range verbs() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			words := strings.Fields(v.name)
			r := runCLI("", append(words, "--help")...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			_, examples, _ := strings.Cut(r.stdout, "\nexamples:\n")
			if !strings.HasPrefix(r.stdout, "usage: toolgate "+v.name) || !strings.Contains(examples, "toolgate "+v.name) {
				t.Errorf("no synopsis or no example of the verb:\n%s", r.stdout)
			}
			if h := runCLI("", append([]string{"help"}, words...)...); h.code != 0 || h.stdout != r.stdout {
				t.Errorf("toolgate help %s differs from --help: exit %d\n%s", v.name, h.code, h.stdout)
			}
			fs := declaredFlags(v)
			if fs == nil {
				return
			}
			n := 0
			fs.VisitAll(func(f *flag.Flag) {
				n++
				line := helpLine(r.stdout, "--"+f.Name+" ")
				if line == "" {
					t.Errorf("--%s is not in the help:\n%s", f.Name, r.stdout)
					return
				}
				line = strings.TrimSpace(line)
				switch f.DefValue {
				case "", "false", "0":
					if !strings.HasSuffix(line, f.Usage) {
						t.Errorf("--%s: the line does not end with its usage (a zero default is not shown): %q", f.Name, line)
					}
				default:
					if !strings.Contains(line, f.Usage+" (default ") || !strings.HasSuffix(strings.Trim(line, `")`), f.DefValue) {
						t.Errorf("--%s does not show its default %q: %q", f.Name, f.DefValue, line)
					}
				}
			})
			if n == 0 {
				t.Errorf("the verb declares an empty flag set")
			}
		})
	}
}

// helpLine is the line of help that declares the flag (the first column
// of a flag line; the usage synopsis is skipped).
func helpLine(help, flagName string) string {
	for l := range strings.Lines(help) {
		if f := strings.TrimSpace(l); strings.HasPrefix(f, flagName) || strings.Contains(f, ", "+flagName) && strings.HasPrefix(f, "-") {
			return l
		}
	}
	return ""
}

// TestDidYouMean: a mistyped verb or flag is a usage error that suggests
// the nearest one.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"a transposed verb":                 {[]string{"tset", "examples"}, `did you mean "test"?`},
		"a verb's first word":               {[]string{"regsitry", "validate"}, `did you mean "registry"?`},
		"a two-word verb's second":          {[]string{"keys", "rotat", "a/b"}, `did you mean "keys rotate"?`},
		"a flag missing its s":              {[]string{"decide", "--manifest", "x"}, "did you mean --manifests?"},
		"a flag missing a letter":           {[]string{"decide", "--requst", "x"}, "did you mean --request?"},
		"a flag's prefix":                   {[]string{"serve", "--tls", "x"}, "did you mean --tls-cert or --tls-key?"},
		"nothing near: no guessing":         {[]string{"policy", "delete"}, `unknown verb "policy delete"` + "\n"},
		"help of a transposed verb":         {[]string{"help", "tset"}, `unknown verb "tset"; did you mean "test"?`},
		"help of a mistyped second word":    {[]string{"help", "registry", "validat"}, `unknown verb "registry validat"; did you mean "registry validate"?`},
		"help of a word after a whole verb": {[]string{"help", "decide", "bogus"}, `unknown verb "decide bogus"` + "\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

// TestExitCodesTableMatchesBehaviour runs every example command of the
// exit-code table in docs/cli.md from the repository root and checks it
// exits with its row's code; the table has exactly the codes 0, 1 and 2,
// as the help's one-line summary says.
func TestExitCodesTableMatchesBehaviour(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(raw), "| Code | Meaning | Example |")
	if !ok {
		t.Fatal("docs/cli.md has no exit-code table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	command := regexp.MustCompile("`(toolgate[^`]*)`")
	var codes []int
	for row := range strings.Lines(table) {
		cells := strings.Split(row, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "-") {
			continue
		}
		code, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		codes = append(codes, code)
		examples := command.FindAllStringSubmatch(cells[3], -1)
		if len(examples) == 0 {
			t.Errorf("code %d has no example", code)
		}
		for _, ex := range examples {
			args := strings.Fields(ex[1])[1:]
			for i, a := range args {
				if _, err := os.Stat(filepath.Join(root, a)); err == nil && strings.Contains(a, "/") {
					args[i] = filepath.Join(root, a)
				}
			}
			if r := runCLI("", args...); r.code != code {
				t.Errorf("%s: exit %d, the table says %d (stderr %q)", ex[1], r.code, code, r.stderr)
			}
		}
	}
	if !slices.Equal(codes, []int{0, 1, 2}) {
		t.Errorf("the table has codes %v, want 0, 1, 2", codes)
	}
	if !strings.Contains(exitCodesLine, "0 ok, 1 findings or deny") || !strings.Contains(exitCodesLine, "2 usage") {
		t.Errorf("the help's summary %q disagrees with the table", exitCodesLine)
	}
}

// TestSingleDashLongFlagsStillWork: command lines written for the standard
// flag package (-manifests X, -name=value) keep working, and a value that
// looks like a flag name is not rewritten.
func TestSingleDashLongFlagsStillWork(t *testing.T) {
	t.Parallel()
	req := filepath.Join(testutil.RepoRoot(t), "examples", "requests", "payment-allow.yaml")
	r := runCLI("", "decide", "-manifests", samples(t), "-request="+req, "-explain")
	if r.code != 0 || !strings.Contains(r.stdout, "rules:") {
		t.Errorf("decide -manifests: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI("", "validate", "-f", samples(t)); r.code != 0 {
		t.Errorf("validate -f: exit %d, stderr %q", r.code, r.stderr)
	}
	// The value of --reason is "-state": it stays a value, so --state is
	// missing and revoke says what it needs.
	r = runCLI("", "keys", "revoke", "a/b", "k", "--reason", "-state")
	if r.code == 0 || strings.Contains(r.stderr, "--state needs") {
		t.Errorf("keys revoke --reason -state: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestShellCompletion: the completion scripts are written for each shell
// and complete the verbs and a verb's flags.
func TestShellCompletion(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if r := runCLI("", "completion", sh); r.code != 0 || !strings.Contains(r.stdout, "toolgate") {
			t.Errorf("completion %s: exit %d, stderr %q", sh, r.code, r.stderr)
		}
	}
	r := runCLI("", "__complete", "reg")
	if r.code != 0 || !strings.Contains(r.stdout, "registry") {
		t.Errorf("verbs: exit %d, stdout %q", r.code, r.stdout)
	}
	r = runCLI("", "__complete", "test", "--fo")
	if r.code != 0 || !strings.Contains(r.stdout, "--format") {
		t.Errorf("flags: exit %d, stdout %q", r.code, r.stdout)
	}
}
