// Command toolgate is the single toolgate binary: the authorization service
// (`serve`, standalone on a manifest directory or in a cluster), the manager
// (`manager`: controllers and admission webhooks), and the offline verbs a
// policy author and a CI pipeline use (`validate`, `diff`, `test`, `decide`,
// `audit`, `keys`, `version`). `toolgate --help` lists the verbs; the
// verbs run on spf13/cobra (cli.go) and report for pipelines with -o and
// --format (output.go); docs/cli.md has the exit codes and the shapes.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/toolgate/toolgate/internal/buildinfo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usage is the root help: every verb with its summary, the exit codes,
// and the build.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: toolgate VERB [ARGS]   (toolgate help VERB, or toolgate VERB --help, for one verb's flags)\n\nverbs:\n")
	for _, v := range verbs() {
		fmt.Fprintf(&b, "  %-22s %s\n", v.name, v.summary)
	}
	fmt.Fprintf(&b, "  %-22s %s\n", "completion SHELL", "print the shell completion script for bash, zsh, fish or powershell")
	fmt.Fprintf(&b, "  %-22s %s\n", "help VERB", "show one verb's synopsis, flags with their defaults, and examples")
	fmt.Fprintf(&b, "\n%s\n\n%s\n", exitCodesLine, buildinfo.Read())
	return b.String()
}

// quoteVerb names the verb the user typed (the first two words at most,
// each shortened), so a typo is visible without echoing a whole command
// line.
func quoteVerb(args []string) string {
	n := min(len(args), 2)
	words := make([]string, 0, n)
	for _, a := range args[:n] {
		if strings.HasPrefix(a, "-") && len(words) > 0 {
			break
		}
		if len(a) > 32 {
			a = a[:32] + "…"
		}
		words = append(words, a)
	}
	return fmt.Sprintf("%q", strings.Join(words, " "))
}

// userMessage is err's text for a person: the package prefixes that keep
// log lines attributable ("engine: ", "jsonexact: ", "agentsafe: ",
// "audit: ") are dropped, so the one prefix a user sees is "toolgate: ",
// and so is a file error's system call.
func userMessage(err error) string {
	msg := err.Error()
	// "lstat x: no such file or directory" names a system call the user
	// did not make: the path and the cause are what they need.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = strings.Replace(msg, pe.Error(), pe.Path+": "+pe.Err.Error(), 1)
	}
	for _, p := range []string{"engine: ", "jsonexact: ", "agentsafe: ", "audit: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

// needPaths refuses a verb's run without a positional argument, each a
// what ("file or directory").
func needPaths(verb string, paths []string, what string) error {
	if len(paths) == 0 {
		return usageError{verb + " needs at least one " + what}
	}
	return nil
}

// parseFile reads the file at path and parses it; a parse error names what
// the file holds ("request: ...").
func parseFile[T any](path, what string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	raw, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	v, err := parse(raw)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// plural returns "1 policy" or "2 policies" for n and the two forms.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
