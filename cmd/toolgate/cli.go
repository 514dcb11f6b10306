package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The verbs run on spf13/cobra (issue 20, item 3): cobra routes, parses
// the flags (pflag: --name, -f, flags after positional arguments), prints
// help with every flag and its default, suggests a verb for a typo and
// writes the shell completion scripts. Each verb declares its flags on a
// standard flag.FlagSet in its own xFlags function, which both its run
// function (parsing with parseFlags) and the verb table (verb.flags) call;
// cli.go declares those flags to cobra and hands the verb the values cobra
// parsed as --name=value arguments. So a flag a verb adds is in its help,
// its completion and its parsing with no second list to keep in step.

// exitCodesLine is the exit-code table in one line, for help; docs/cli.md
// has the table and TestExitCodesTableMatchesBehaviour holds them to it.
const exitCodesLine = "exit codes: 0 ok, 1 findings or deny (invalid input, a failed test, a deny), 2 usage (docs/cli.md)"

// shorthands are the one-letter forms of long flags (kubectl's -o).
var shorthands = map[string]string{"output": "o"}

// declaredFlags is v's FlagSet, or nil for a verb without flags.
func declaredFlags(v verb) *flag.FlagSet {
	if v.flags == nil {
		return nil
	}
	return v.flags()
}

// setting is one flag the user set, in command-line order.
type setting struct{ name, value string }

// recorded is a verb's flag as cobra sees it: it checks the value with
// the verb's own flag.Value (so a bad value is a usage error at parse
// time) and records it for the verb's run.
type recorded struct {
	inner     flag.Value
	name, typ string
	log       *[]setting
}

func (r *recorded) String() string { return r.inner.String() }
func (r *recorded) Type() string   { return r.typ }
func (r *recorded) Set(s string) error {
	if err := r.inner.Set(s); err != nil {
		return err
	}
	*r.log = append(*r.log, setting{r.name, s})
	return nil
}

// typeName names a flag.Value's type for help ("string", "duration"...).
func typeName(v flag.Value) string {
	if isBool(v) {
		return "bool"
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return "string"
	}
	switch g.Get().(type) {
	case int, int64:
		return "int"
	case uint, uint64:
		return "uint"
	case float64:
		return "float"
	case time.Duration:
		return "duration"
	}
	return "string"
}

func isBool(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// newRoot builds the command tree from verbs().
func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "toolgate",
		Short:         "the authorization gate for AI-agent tool calls",
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		// SuggestionsFor reads it unset as 0 (only cobra's own unknown-
		// command path defaults it).
		SuggestionsMinimumDistance: 2,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{"name a verb"}
			}
			return unknownVerb(c, args)
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{flagMessage(c, err)} })
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpTemplate(`{{.UsageString}}`)
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if !c.HasParent() {
			fmt.Fprint(c.OutOrStdout(), usage())
			return
		}
		defaultHelp(c, args)
	})
	ex := examples()
	for _, v := range verbs() {
		words := strings.Fields(v.name)
		parent := root
		for _, w := range words[:len(words)-1] {
			parent = group(parent, w)
		}
		parent.AddCommand(leaf(v, words[len(words)-1], ex[v.name]))
	}
	strictHelp(root)
	return root
}

// strictHelp makes `toolgate help WORDS` a usage error, with the "did you
// mean" of an unknown verb, when WORDS name no verb: cobra's help command
// would print the nearest command's help and exit 0, so a typo in a CI
// script would pass unnoticed. It keeps cobra's help command (its
// completion) and replaces only what it runs.
func strictHelp(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Use = "help [VERB]"
			c.Run = nil
			c.RunE = func(c *cobra.Command, args []string) error {
				cmd, rest, err := c.Root().Find(args)
				if err != nil || cmd == nil {
					return unknownVerb(c.Root(), args)
				}
				if len(rest) > 0 {
					return unknownVerb(cmd, rest)
				}
				cmd.InitDefaultHelpFlag() // so that the help lists --help
				return cmd.Help()
			}
		}
	}
}

// group is the command for a verb's first word, created on first use: it
// only names its verbs.
func group(parent *cobra.Command, word string) *cobra.Command {
	for _, c := range parent.Commands() {
		if c.Name() == word {
			return c
		}
	}
	g := &cobra.Command{
		Use:                        word + " VERB",
		Short:                      "the " + word + " verbs",
		Args:                       cobra.ArbitraryArgs,
		DisableFlagParsing:         true, // a group has no flags: all it gets is named in the error
		SuggestionsMinimumDistance: 2,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
				return c.Help()
			}
			if len(args) == 0 {
				return usageError{c.Name() + " needs a verb: " + strings.Join(verbNames(c), ", ")}
			}
			return unknownVerb(c, args)
		},
	}
	parent.AddCommand(g)
	return g
}

func verbNames(c *cobra.Command) []string {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return names
}

// leaf is the command of one verb: cobra parses the flags v declares and
// v's run gets them back as --name=value, then "--" and the positional
// arguments.
func leaf(v verb, word, example string) *cobra.Command {
	var log []setting
	fs := declaredFlags(v)
	c := &cobra.Command{
		Use:     strings.TrimSpace(word + " " + v.args),
		Short:   v.summary,
		Example: example,
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if fs == nil { // a verb without flags gets its arguments as they are
				return v.run(args, c.InOrStdin(), c.OutOrStdout())
			}
			goArgs := make([]string, 0, len(log)+1+len(args))
			for _, s := range log {
				goArgs = append(goArgs, "--"+s.name+"="+s.value)
			}
			goArgs = append(goArgs, "--")
			return v.run(append(goArgs, args...), c.InOrStdin(), c.OutOrStdout())
		},
	}
	if fs == nil {
		return c
	}
	fs.VisitAll(func(f *flag.Flag) {
		pf := &pflag.Flag{
			Name:     f.Name,
			Usage:    f.Usage,
			DefValue: f.DefValue,
			Value:    &recorded{inner: f.Value, name: f.Name, typ: typeName(f.Value), log: &log},
		}
		if len(f.Name) == 1 {
			pf.Shorthand = f.Name
		} else if s, ok := shorthands[f.Name]; ok {
			pf.Shorthand = s
		}
		if isBool(f.Value) {
			pf.NoOptDefVal = "true"
		}
		c.Flags().AddFlag(pf)
	})
	return c
}

const usageTemplate = `usage: {{.UseLine}}

{{.Short}}{{if .HasAvailableSubCommands}}

verbs:{{range .Commands}}{{if .IsAvailableCommand}}
  {{rpad .Name .NamePadding}} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasExample}}

examples:
{{.Example}}{{end}}

` + exitCodesLine + "\n"

// run executes one verb and returns the process exit code (docs/cli.md):
// 0 success (and help), 1 findings, a deny or rejected input, 2 a usage
// error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "--version" {
		args = []string{"version"}
	}
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(longFlags(root, args))
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "toolgate: %s\n", ue.msg)
		switch {
		case cmd == nil || !cmd.HasParent():
			fmt.Fprint(stderr, usage())
		case cmd.HasSubCommands():
			fmt.Fprint(stderr, cmd.UsageString())
		default:
			fmt.Fprintf(stderr, "usage: %s\n(toolgate help %s shows every flag and an example)\n",
				cmd.UseLine(), strings.TrimPrefix(cmd.CommandPath(), "toolgate "))
		}
		return 2
	}
	fmt.Fprintf(stderr, "toolgate: %s\n", userMessage(err))
	return 1
}

// longFlags rewrites a single-dash long flag (-manifests, the standard
// flag package's form, which command lines and manifests written before
// cobra use) to its double-dash form, for the flags the verb declares.
func longFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd.DisableFlagParsing {
		return args
	}
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := cmd.Flags().Lookup(name)
		if len(name) < 2 || f == nil {
			continue
		}
		if !strings.HasPrefix(a, "--") {
			out[i] = "-" + a
		}
		if !hasValue && f.NoOptDefVal == "" {
			i++ // the next argument is this flag's value
		}
	}
	return out
}

// unknownVerb names the verb the user typed (shortened) and suggests the
// nearest ones.
func unknownVerb(c *cobra.Command, args []string) error {
	typed := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "toolgate")), args...)
	msg := "unknown verb " + quoteVerb(typed)
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		prefix := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), "toolgate") + " ")
		for i := range s {
			s[i] = fmt.Sprintf("%q", strings.TrimSpace(prefix+" "+s[i]))
		}
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError{msg}
}

// flagMessage turns pflag's error into one that names the flag but never
// the rejected value, and suggests a flag for a typo.
func flagMessage(c *cobra.Command, err error) string {
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	switch {
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			return fmt.Sprintf("unknown flag -%s", name)
		}
		msg := "unknown flag --" + shorten(name)
		if s := suggestFlags(c, name); len(s) > 0 {
			msg += "; did you mean --" + strings.Join(s, " or --") + "?"
		}
		return msg
	case errors.As(err, &invalid):
		return fmt.Sprintf("invalid value for --%s: %v", invalid.GetFlag().Name, invalid.Unwrap())
	case errors.As(err, &required):
		return fmt.Sprintf("flag --%s needs a value", required.GetFlag().Name)
	}
	return "malformed flag (flags are --name VALUE, --name=VALUE or -x VALUE)"
}

func shorten(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// suggestFlags lists c's flags within two edits of name, or that it
// prefixes, as cobra does for verbs.
func suggestFlags(c *cobra.Command, name string) []string {
	var out []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if len(f.Name) > 1 && (editDistance(name, f.Name) <= 2 || (len(name) > 1 && strings.HasPrefix(f.Name, name))) {
			out = append(out, f.Name)
		}
	})
	return out
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// examples are the Example section of each verb's help.
func examples() map[string]string {
	return map[string]string{
		"decide": `  toolgate decide --manifests config/samples --request examples/requests/payment-allow.yaml
  toolgate decide --manifests config/samples --request examples/requests/payment-deny.yaml --explain
  toolgate decide --manifests config/samples --request examples/requests/payment-allow.yaml -o json`,
		"registry validate": `  toolgate registry validate config/samples
  toolgate registry validate config/samples -o yaml`,
		"registry import": `  toolgate registry import --from-file tools.json --tool-prefix acme --out mcp/`,
		"policy validate": `  toolgate policy validate config/samples
  toolgate policy validate config/samples -o json`,
		"request canonicalize": `  toolgate request canonicalize --manifests config/samples --proposal examples/proposals/payments-submit.json`,
		"intent digest":        `  echo '{"b":1,"a":[1e21,-0]}' | toolgate intent digest`,
		"serve": `  toolgate serve --manifests config/samples --state .state --tokens examples/standalone/tokens.yaml
  toolgate serve --manifests /etc/toolgate --state /var/lib/toolgate --listen :8443 --tls-cert tls.crt --tls-key tls.key`,
		"validate": `  toolgate validate -f config/samples
  toolgate validate -f config/samples --format github
  toolgate validate -f config/samples -o json`,
		"diff": `  git worktree add /tmp/base origin/main
  toolgate diff /tmp/base/config/samples config/samples
  toolgate diff /tmp/base/config/samples config/samples -o json`,
		"test": `  toolgate test examples/tests
  toolgate test examples/tests --format junit > junit.xml
  toolgate test examples/tests -o json`,
		"audit verify": `  toolgate audit verify --log .state/audit --key .state/audit.key.pub
  toolgate audit verify --proof /tmp/proof.txt --key .state/audit.key.pub`,
		"audit prove": `  toolgate audit prove --log .state/audit --index 0 > /tmp/proof.txt
  toolgate audit prove --log .state/audit --from 1 --to 8`,
		"keys rotate": `  toolgate keys rotate payments/payments-host --state .state --manifests config/samples
  toolgate keys rotate payments/payments-host --kubeconfig ~/.kube/config`,
		"keys list":    `  toolgate keys list payments/payments-host --state .state`,
		"keys revoke":  `  toolgate keys revoke payments/payments-host KEY-ID --reason "seed exposed" --state .state`,
		"mcp gateway":  `  toolgate mcp gateway --config config/mcp/gateway.yaml --listen 127.0.0.1:8090 --upstream-command 'bin/mcp-upstream --effects .state/payments.txt'`,
		"mcp outcomes": `  toolgate mcp outcomes --outcome uncertain .state/mcp-outcomes.jsonl`,
		"manager":      `  toolgate manager --leader-elect --metrics-bind-address :8443 --webhook-cert-dir /tmp/k8s-webhook-server/serving-certs`,
		"version":      `  toolgate version`,
	}
}
