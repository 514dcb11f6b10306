package main

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// parseWith parses args with the flags declare defines on a command of
// its own, as cobra parses a verb's (and checks the required ones): for
// the tests of one verb's checks without running it.
func parseWith[T any](declare func(*pflag.FlagSet) *T, args []string) (*T, []string, error) {
	c := &cobra.Command{Use: "verb"}
	o := declare(c.Flags())
	if err := c.ParseFlags(args); err != nil {
		return nil, nil, usageError{err.Error()}
	}
	if err := checkRequired(c); err != nil {
		return nil, nil, err
	}
	return o, c.Flags().Args(), nil
}

// parseServe is serve's flags parsed and checked.
func parseServe(args []string) (serveOptions, error) {
	o, rest, err := parseWith(serveFlags, args)
	if err != nil {
		return serveOptions{}, err
	}
	return o.checked(rest)
}

// parseManager is the manager's flags parsed and checked.
func parseManager(args []string) (managerOptions, error) {
	o, rest, err := parseWith(managerFlags, args)
	if err != nil {
		return managerOptions{}, err
	}
	return o.checked(rest)
}

// serveContext is serve until ctx is done, in process.
func serveContext(ctx context.Context, args []string, stderr io.Writer) error {
	o, err := parseServe(args)
	if err != nil {
		return err
	}
	return runServe(ctx, o, stderr)
}

// verbCommands are the commands of the tree that run something (every
// verb, help and the completion scripts), by their path.
func verbCommands(t *testing.T) map[string]*cobra.Command {
	t.Helper()
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if !s.IsAvailableCommand() {
				continue
			}
			if s.HasSubCommands() {
				walk(s)
				continue
			}
			out[strings.TrimPrefix(s.CommandPath(), "toolgate ")] = s
		}
	}
	walk(newRoot(nil, io.Discard, io.Discard))
	if len(out) < len(verbs()) {
		t.Fatalf("the tree has %d commands, fewer than the %d verbs", len(out), len(verbs()))
	}
	return out
}

// TestEveryVerbsHelpListsEveryFlagItDefines walks the command tree: for
// every command, each flag its FlagSet defines is in `toolgate PATH
// --help` as a line of its own (its spellings, what it is and its default
// when not the zero value) and in the synopsis; `toolgate help PATH`
// prints the same; a verb's help has an example of it.
func TestEveryVerbsHelpListsEveryFlagItDefines(t *testing.T) {
	t.Parallel()
	for path, c := range verbCommands(t) {
		// Not parallel: the commands share one tree, and InitDefaultHelpFlag
		// writes the parents' flag sets.
		t.Run(path, func(t *testing.T) {
			r := runCLI("", append(strings.Fields(path), "--help")...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			synopsis, _, _ := strings.Cut(r.stdout, "\n")
			if !strings.HasPrefix(synopsis, "usage: toolgate "+path) {
				t.Errorf("no synopsis of the verb:\n%s", r.stdout)
			}
			if h := runCLI("", append([]string{"help"}, strings.Fields(path)...)...); h.code != 0 || h.stdout != r.stdout {
				t.Errorf("toolgate help %s differs from --help: exit %d\n%s", path, h.code, h.stdout)
			}
			if _, examples, _ := strings.Cut(r.stdout, "\nexamples:\n"); c.Example != "" && !strings.Contains(examples, "toolgate "+path) {
				t.Errorf("no example of the verb:\n%s", r.stdout)
			}
			c.InitDefaultHelpFlag()
			c.Flags().VisitAll(func(f *pflag.Flag) {
				line := strings.TrimSpace(helpLine(r.stdout, "--"+f.Name))
				_, usage := pflag.UnquoteUsage(f)
				switch {
				case line == "":
					t.Errorf("--%s is not in the help:\n%s", f.Name, r.stdout)
				case !strings.Contains(line, usage):
					t.Errorf("--%s: the line does not say what it is: %q", f.Name, line)
				case shownDefault(f) != "" && !strings.HasSuffix(line, "(default "+shownDefault(f)+")"):
					t.Errorf("--%s does not show its default %s: %q", f.Name, f.DefValue, line)
				}
				spelled := "--" + f.Name
				if f.Shorthand != "" {
					spelled = "-" + f.Shorthand
				}
				if f.Name != "help" && !strings.Contains(synopsis+" ", spelled+" ") && !strings.Contains(synopsis, spelled+"]") && !strings.Contains(synopsis, spelled+")") {
					t.Errorf("%s is not in the synopsis %q", spelled, synopsis)
				}
			})
		})
	}
}

// helpLine is the line of help that declares the flag (its first column,
// after the shorthand; the synopsis is not one).
func helpLine(help, flagName string) string {
	for l := range strings.Lines(help) {
		f := strings.TrimSpace(l)
		if !strings.HasPrefix(f, "-") || strings.HasPrefix(l, "usage:") {
			continue
		}
		if _, rest, ok := strings.Cut(f, ", "); ok && len(f) > 2 && f[2] == ',' {
			f = rest
		}
		if f == flagName || strings.HasPrefix(f, flagName+" ") {
			return l
		}
	}
	return ""
}

// TestNoFlagIsDefinedTwice reads cmd/toolgate's source: every flag a
// FlagSet defines is one call, and a flag name two calls define must mean
// two things (their help differs); the same flag in two verbs is one
// function both call (manifestsFlag, pprofFlag, etcdFlags.register...).
func TestNoFlagIsDefinedTwice(t *testing.T) {
	t.Parallel()
	definers := map[string]int{ // pflag's definers and the index of the name argument
		"String": 0, "StringVar": 1, "StringVarP": 1, "Bool": 0, "BoolVar": 1, "BoolVarP": 1,
		"Int": 0, "IntVar": 1, "Int64": 0, "Int64Var": 1, "Duration": 0, "DurationVar": 1,
		"StringArray": 0, "StringArrayVar": 1, "StringArrayVarP": 1, "StringSlice": 0, "StringSliceVar": 1,
		"Var": 1, "VarP": 1,
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	type definition struct{ at, usage string }
	byName := map[string][]definition{}
	n := 0
	for _, f := range files {
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			i, isDefiner := definers[sel2name(sel, ok)]
			if !isDefiner || len(call.Args) < i+2 {
				return true
			}
			lit, ok := call.Args[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			usage := call.Args[len(call.Args)-1]
			text := types.ExprString(usage)
			n++
			byName[name] = append(byName[name], definition{at: filepath.Base(fset.Position(call.Pos()).String()), usage: text})
			return true
		})
	}
	if n < 50 {
		t.Fatalf("found %d flag definitions; the scan is broken", n)
	}
	for name, defs := range byName {
		seen := map[string]string{}
		for _, d := range defs {
			if at, dup := seen[d.usage]; dup {
				t.Errorf("--%s is defined twice, at %s and %s: define it once and call that", name, at, d.at)
			}
			seen[d.usage] = d.at
		}
	}
}

func sel2name(sel *ast.SelectorExpr, ok bool) string {
	if !ok {
		return ""
	}
	return sel.Sel.Name
}
