package main

import (
	"encoding/json"
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

// TestAWordThatIsNoVerbIsAUsageError: whatever follows it (--help, a
// verb's flags), a word that names no verb is exit 2 naming it, with the
// nearest verb when there is one, so a script can tell a verb exists.
func TestAWordThatIsNoVerbIsAUsageError(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want string
	}{
		"an unknown verb with --help":             {[]string{"frob", "--help"}, `unknown verb "frob"` + "\n"},
		"an unknown verb with -h":                 {[]string{"frob", "-h"}, `unknown verb "frob"` + "\n"},
		"an unknown two-word verb with --help":    {[]string{"rollout", "report", "--help"}, `unknown verb "rollout report"` + "\n"},
		"an unknown second word with --help":      {[]string{"registry", "frob", "--help"}, `unknown verb "registry frob"` + "\n"},
		"a mistyped verb with --help":             {[]string{"decid", "--help"}, `unknown verb "decid"; did you mean "decide"?`},
		"a mistyped verb with its flags":          {[]string{"decid", "--manifests", "x"}, `unknown verb "decid"; did you mean "decide"?`},
		"a mistyped verb with a single-dash flag": {[]string{"valdate", "-f", "x"}, `unknown verb "valdate"; did you mean "validate"?`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing on stdout and %q", r.code, r.stdout, r.stderr, tc.want)
			}
		})
	}
}

// TestCompletionNeedsAKnownShell: `toolgate completion` without a shell
// or with one it does not write for is exit 2 naming the shells.
func TestCompletionNeedsAKnownShell(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}} {
		r := runCLI("", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "bash, zsh, fish, powershell") || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCLI("", "completion", "tcsh"); !strings.Contains(r.stderr, `unknown shell "tcsh"`) {
		t.Errorf("the unknown shell is not named: %q", r.stderr)
	}
}

// TestVersionWritesEveryOutputFormat: version takes -o text|json|yaml like
// the reporting verbs; json and yaml are one document with the build.
func TestVersionWritesEveryOutputFormat(t *testing.T) {
	t.Parallel()
	text := runCLI("", "version")
	var doc versionReport
	j := runCLI("", "version", "-o", "json")
	if j.code != 0 || json.Unmarshal([]byte(j.stdout), &doc) != nil || doc.Version == "" || doc.GoVersion == "" {
		t.Fatalf("version -o json: exit %d, stdout %q, stderr %q", j.code, j.stdout, j.stderr)
	}
	if !strings.HasPrefix(text.stdout, "toolgate "+doc.Version) || !strings.Contains(text.stdout, doc.GoVersion) {
		t.Errorf("text %q and json %+v disagree", text.stdout, doc)
	}
	if y := runCLI("", "version", "-o", "yaml"); y.code != 0 || !strings.Contains(y.stdout, "goVersion: "+doc.GoVersion) {
		t.Errorf("version -o yaml: exit %d, stdout %q", y.code, y.stdout)
	}
	if x := runCLI("", "version", "-o", "xml"); x.code != 2 || !strings.Contains(x.stderr, "must be one of text, json, yaml") {
		t.Errorf("version -o xml: exit %d, stderr %q", x.code, x.stderr)
	}
}

// TestClosedValueFlagsComplete: a flag of a closed set (-o, --format,
// --consumption-store, --outcome) completes to its values, not to files.
func TestClosedValueFlagsComplete(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args []string
		want []string
	}{
		"-o":                          {[]string{"decide", "-o", ""}, []string{"text", "json", "yaml"}},
		"--output":                    {[]string{"version", "--output", ""}, []string{"text", "json", "yaml"}},
		"--format":                    {[]string{"test", "--format", ""}, []string{"junit", "github"}},
		"serve's --consumption-store": {[]string{"serve", "--consumption-store", ""}, []string{"bolt", "etcd"}},
		"the manager's store":         {[]string{"manager", "--consumption-store", ""}, []string{"apiserver", "etcd"}},
		"--outcome":                   {[]string{"mcp", "outcomes", "--outcome", ""}, []string{"completed", "failed", "uncertain"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runCLI("", append([]string{"__complete"}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if r.code != 0 || len(lines) == 0 || !slices.Equal(lines[:len(lines)-1], tc.want) || lines[len(lines)-1] != ":4" {
				t.Errorf("exit %d, completions %q; want %q and the no-file directive :4", r.code, lines, tc.want)
			}
		})
	}
}

// TestAMissingFileIsNamedWithoutTheSystemCall: a path that does not exist
// is reported as "PATH: no such file or directory", not as the lstat or
// open that found it missing.
func TestAMissingFileIsNamedWithoutTheSystemCall(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "absent")
	for _, args := range [][]string{
		{"validate", "-f", missing},
		{"registry", "validate", missing},
		{"decide", "--manifests", samples(t), "--request", missing},
	} {
		r := runCLI("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, missing+": no such file or directory") ||
			strings.Contains(r.stderr, "lstat") || strings.Contains(r.stderr, "open ") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
