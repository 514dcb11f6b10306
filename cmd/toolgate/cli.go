package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/suggest"
)

// The verbs run on spf13/cobra: cobra routes, parses the flags (pflag:
// --name, -f, flags after positional arguments), suggests a verb for a
// typo and writes the shell completion scripts. Each verb declares its
// flags once, on the pflag.FlagSet of its cobra command (verb.flags), and
// gets back the values cobra parsed; the synopsis, the --help flag list,
// the required-flag check and the completion of closed values are all
// made from those definitions, so there is no second list to keep in step
// (TestEveryVerbsHelpListsEveryFlagItDefines).

// verb is one CLI verb: its name (one or two words), the synopsis of its
// positional arguments (the flags' is made from their definitions), what
// it does, its flags with the run bound to them, and an example for help.
type verb struct {
	name, args, summary string
	flags               func(fs *pflag.FlagSet) action
	example             string
}

// action is a verb bound to its parsed flags: it gets the positional
// arguments.
type action func(args []string, stdin io.Reader, stdout io.Writer) error

// verbs lists every verb in the order the usage shows them.
func verbs() []verb {
	return []verb{
		{"decide", "", "decide one authorization request as the Host of a HostAuthority",
			flagged(decideFlags, decide),
			`  toolgate decide --manifests config/samples --request examples/requests/payment-allow.yaml
  toolgate decide --manifests config/samples --request examples/requests/payment-deny.yaml --explain
  toolgate decide --manifests config/samples --request examples/requests/payment-allow.yaml -o json`},
		{"registry validate", "PATH...", "publish every ToolRegistry with the engine's rules and summarize it",
			flagged(outputOnlyFlags, registryValidate),
			`  toolgate registry validate config/samples
  toolgate registry validate config/samples -o yaml`},
		{"registry import", "",
			"draft a ToolRegistry generation and the MCP mapping from an MCP server's tools/list, reporting every narrowing and refusal",
			flagged(registryImportFlags, registryImport),
			`  toolgate registry import --from-file tools.json --tool-prefix acme --out mcp/`},
		{"registry bind", "FILE...", "rebind each ToolRegistry definition's docRef and schema.root to its argument profile, and copy it into a given MCP mapping, in place",
			noFlags(registryBind),
			`  toolgate registry bind mcp/toolregistry.yaml mcp/mcp-gateway.yaml`},
		{"policy validate", "PATH...", "create each HostAuthority's domain and publish its PolicySnapshot generations",
			flagged(outputOnlyFlags, policyValidate),
			`  toolgate policy validate config/samples
  toolgate policy validate config/samples -o json`},
		{"request canonicalize", "", "build the Canonical Request of one Proposal",
			flagged(requestCanonicalizeFlags, requestCanonicalize),
			`  toolgate request canonicalize --manifests config/samples --proposal examples/proposals/payments-submit.json`},
		{"intent digest", "< binding.json", "print the agent-safe.intent/1 canonical JSON and digest of stdin",
			noFlags(intentDigest),
			`  echo '{"b":1,"a":[1e21,-0]}' | toolgate intent digest`},
		{"serve", "", "run the authorization service on manifests from a directory",
			flagged(serveFlags, func(o *serveOptions, args []string, _ io.Writer) error { return serve(*o, args, os.Stderr) }),
			`  toolgate serve --manifests config/samples --state .state --tokens examples/standalone/tokens.yaml
  toolgate serve --manifests /etc/toolgate --state /var/lib/toolgate --listen :8443 --tls-cert tls.crt --tls-key tls.key`},
		{"validate", "", "check every object with the admission webhook's rules, offline; every violation with its file, line and path",
			flagged(validateFlags, validate),
			`  toolgate validate -f config/samples
  toolgate validate -f config/samples --format github
  toolgate validate -f config/samples -o json`},
		{"diff", "OLD NEW", "what each new PolicySnapshot generation in NEW changes relative to OLD, and whether it is a valid successor",
			flagged(diffFlags, diff),
			`  git worktree add /tmp/base origin/main
  toolgate diff /tmp/base/config/samples config/samples
  toolgate diff /tmp/base/config/samples config/samples -o json
  toolgate diff /tmp/base/config/samples config/samples --fail-on rule-removed,scope-widened --format github`},
		{"test", "PATH...", "run the policy tests (*.test.yaml: requests and the Decisions they must get) against their manifests",
			flagged(ciOutputFlags, testPolicies),
			`  toolgate test examples/tests
  toolgate test examples/tests --format junit > junit.xml
  toolgate test examples/tests -o json`},
		{"shadow report", "LOG...", "how the shadow generations in decision logs would have decided: calls seen, changed by direction, the rules behind each change, example Decisions",
			flagged(shadowReportFlags, shadowReportVerb),
			`  toolgate shadow report decisions.jsonl
  toolgate shadow report .state/audit/records -o json
  toolgate shadow report decisions.jsonl --fail-on allow-deny:payments.submit --max-changed 0.5`},
		{"audit verify", "", "check the tamper-evident decision log, naming every modified, deleted, inserted or reordered record; or check a proof",
			flagged(auditVerifyFlags, auditVerify),
			`  toolgate audit verify --log .state/audit --key .state/audit.key.pub
  toolgate audit verify --proof /tmp/proof.txt --key .state/audit.key.pub`},
		{"audit prove", "", "print an inclusion proof of one record, or a consistency proof between two signed checkpoints",
			flagged(auditProveFlags, auditProve),
			`  toolgate audit prove --log .state/audit --index 0 > /tmp/proof.txt
  toolgate audit prove --log .state/audit --from 1 --to 8`},
		{"keys rotate", "NAMESPACE/NAME", "make a fresh key a domain's signing key; earlier keys verify until their artifacts have expired",
			flagged(keysRotateFlags, keysRotate),
			`  toolgate keys rotate payments/payments-host --state .state --manifests config/samples
  toolgate keys rotate payments/payments-host --kubeconfig ~/.kube/config`},
		{"keys list", "NAMESPACE/NAME", "list a domain's keys: identity, state and retire time (never a seed)",
			flagged(keysListFlags, keysList),
			`  toolgate keys list payments/payments-host --state .state`},
		{"keys revoke", "NAMESPACE/NAME KEY-ID", "refuse everything a key signed, at once: a Revocation object in a cluster, the state directory's ledger standalone",
			flagged(keysRevokeFlags, keysRevoke),
			`  toolgate keys revoke payments/payments-host KEY-ID --reason "seed exposed" --state .state`},
		{"confirmations list", "", "list the pending confirmation requests visible to you (toolgate.confirmations/1)",
			flagged(confirmationsFlags("confirmations list"), confirmationsList),
			`  toolgate confirmations list --token-file ~/.toolgate/token
  TOOLGATE_TOKEN=... toolgate confirmations list --server https://toolgate.payments.svc:8443 -o json`},
		{"confirmations show", "ID", "show one confirmation request: tool, subject, requester, the policy's reasons, scope and expiry",
			flagged(confirmationsFlags("confirmations show"), confirmationsShow),
			`  toolgate confirmations show 4dcb9f511397bec6 --token-file ~/.toolgate/token`},
		{"confirmations approve", "ID", "confirm exactly that call, once, as a confirmer of its domain; an answer is final",
			flagged(confirmationsFlags("confirmations approve"), confirmationsAnswer("approve")),
			`  toolgate confirmations approve 4dcb9f511397bec6 --token-file ~/.toolgate/token`},
		{"confirmations deny", "ID", "refuse a confirmation request, as a confirmer of its domain; a no is final",
			flagged(confirmationsFlags("confirmations deny"), confirmationsAnswer("deny")),
			`  toolgate confirmations deny 4dcb9f511397bec6 --token-file ~/.toolgate/token`},
		{"mcp gateway", "", "the MCP gateway in front of one MCP server: every tools/call authorized by toolgate",
			flagged(mcpGatewayFlags, mcpGatewayVerb),
			`  toolgate mcp gateway --config config/mcp/gateway.yaml --listen 127.0.0.1:8090 --upstream-command 'bin/mcp-upstream --effects .state/payments.txt'`},
		{"mcp outcomes", "LOG...", "print the MCP gateway's recorded call outcomes",
			flagged(mcpOutcomesFlags, mcpOutcomes),
			`  toolgate mcp outcomes --outcome uncertain .state/mcp-outcomes.jsonl`},
		{"manager", "", "run the controllers and admission webhooks (in a cluster)",
			flagged(managerFlags, func(o *managerOptions, args []string, _ io.Writer) error { return manager(*o, args) }),
			`  toolgate manager --leader-elect --metrics-bind-address :8443 --webhook-cert-dir /tmp/k8s-webhook-server/serving-certs`},
		{"version", "", "print the build: version, commit and Go version",
			flagged(outputOnlyFlags, version),
			`  toolgate version
  toolgate version -o json`},
	}
}

// flagged binds a verb's flags (declare defines them on fs and returns the
// options they fill) to its run, which gets the options once cobra has
// parsed them.
func flagged[T any](declare func(fs *pflag.FlagSet) *T, run func(o *T, args []string, out io.Writer) error) func(*pflag.FlagSet) action {
	return func(fs *pflag.FlagSet) action {
		o := declare(fs)
		return func(args []string, _ io.Reader, out io.Writer) error { return run(o, args, out) }
	}
}

// noFlags is the binding of a verb without flags.
func noFlags(run action) func(*pflag.FlagSet) action {
	return func(*pflag.FlagSet) action { return run }
}

// exitCodesLine is the exit-code table in one line, for help; docs/cli.md
// has the table and TestExitCodesTableMatchesBehaviour holds them to it.
const exitCodesLine = "exit codes: 0 ok, 1 findings or deny (invalid input, a failed test, a deny), 2 usage (docs/cli.md)"

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
			fmt.Fprint(stderr, helpText(cmd))
		default:
			fmt.Fprintf(stderr, "usage: %s\n(toolgate help %s shows every flag and an example)\n",
				cmd.UseLine(), strings.TrimPrefix(cmd.CommandPath(), "toolgate "))
		}
		return 2
	}
	fmt.Fprintf(stderr, "toolgate: %s\n", userMessage(err))
	return 1
}

// newRoot builds the command tree from verbs().
func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "toolgate",
		Short:         "the authorization gate for AI-agent tool calls",
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		// The root has no flags of its own: whatever follows an unknown
		// word (toolgate frob --help, toolgate decid --manifests x) is
		// the unknown verb's, so the word is what the error names.
		DisableFlagParsing: true,
		// SuggestionsFor reads it unset as 0 (only cobra's own unknown-
		// command path defaults it).
		SuggestionsMinimumDistance: 2,
		RunE:                       groupRun,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{flagMessage(c, err)} })
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { fmt.Fprint(c.OutOrStdout(), helpText(c)) })
	root.SetUsageFunc(func(c *cobra.Command) error { _, err := fmt.Fprint(c.OutOrStderr(), helpText(c)); return err })
	for _, v := range verbs() {
		words := strings.Fields(v.name)
		parent := root
		for _, w := range words[:len(words)-1] {
			parent = group(parent, w)
		}
		parent.AddCommand(leaf(v, words[len(words)-1]))
	}
	strictHelp(root)
	strictCompletion(root)
	return root
}

// groupRun is the run of the root and of a verb's first word: it only
// names its verbs, so any argument is an unknown verb (-h and --help
// excepted, when they come first).
func groupRun(c *cobra.Command, args []string) error {
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help"):
		return c.Help()
	case len(args) > 0:
		return unknownVerb(c, args)
	case !c.HasParent():
		return usageError{"name a verb"}
	}
	return usageError{c.Name() + " needs a verb: " + strings.Join(verbNames(c), ", ")}
}

// group is the command for a verb's first word, created on first use.
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
		RunE:                       groupRun,
	}
	parent.AddCommand(g)
	return g
}

// leaf is the command of one verb: v declares its flags on the command's
// FlagSet (in declaration order, as help lists them); the synopsis, the
// required-flag check and the completion of closed values come from them.
func leaf(v verb, word string) *cobra.Command {
	c := &cobra.Command{
		Short:                 v.summary,
		Example:               v.example,
		DisableFlagsInUseLine: true,
	}
	fs := c.Flags()
	fs.SortFlags = false
	act := v.flags(fs)
	c.Use = strings.Join(slices.DeleteFunc([]string{word, v.args, synopsis(fs)}, func(s string) bool { return s == "" }), " ")
	c.Args = func(c *cobra.Command, _ []string) error { return checkRequired(c) }
	c.RunE = func(c *cobra.Command, args []string) error { return act(args, c.InOrStdin(), c.OutOrStdout()) }
	fs.VisitAll(func(f *pflag.Flag) {
		if values := closedValues(f); values != nil {
			_ = c.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
		}
	})
	return c
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

// completionShells are the shells `toolgate completion` writes for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// strictCompletion makes `toolgate completion` without a shell, or with
// one it does not know, a usage error naming the shells (cobra prints the
// help and exits 0).
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Use = "completion SHELL"
			c.DisableFlagsInUseLine = true
			c.Args = cobra.ArbitraryArgs
			for _, sh := range c.Commands() {
				sh.Use = strings.TrimSpace(sh.Name() + " " + synopsis(sh.Flags()))
				sh.DisableFlagsInUseLine = true
			}
			c.RunE = func(c *cobra.Command, args []string) error {
				msg := "completion needs a shell: " + strings.Join(completionShells, ", ")
				if len(args) > 0 {
					msg = "unknown shell " + quoteVerb(args[:1]) + "; completion knows " + strings.Join(completionShells, ", ")
				}
				return usageError{msg}
			}
		}
	}
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

// Flag annotations beside pflag's own: a flag of a one-of group (exactly
// one of its flags must be given) carries the group's name.
const oneOfAnnotation = "toolgate_one_of"

// required marks flags a verb cannot run without: the synopsis shows them
// bare and checkRequired refuses a command line without them.
func required(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := cobra.MarkFlagRequired(fs, n); err != nil {
			panic(err) // a name the verb did not declare: a programming error
		}
	}
}

// oneOf marks flags of which exactly one must be given.
func oneOf(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, oneOfAnnotation, []string{strings.Join(names, " ")}); err != nil {
			panic(err)
		}
	}
}

func isRequired(f *pflag.Flag) bool {
	return len(f.Annotations[cobra.BashCompOneRequiredFlag]) > 0
}

// checkRequired refuses a command line without a required flag or with
// not exactly one flag of a one-of group, as a usage error that names
// them (before cobra's own check of required flags, which is not a usage
// error).
func checkRequired(c *cobra.Command) error {
	var missing []string
	groups := map[string]int{}
	var order []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if isRequired(f) && !f.Changed {
			missing = append(missing, "--"+f.Name)
		}
		if g := f.Annotations[oneOfAnnotation]; len(g) > 0 {
			if !slices.Contains(order, g[0]) {
				order = append(order, g[0])
			}
			if f.Changed {
				groups[g[0]]++
			}
		}
	})
	for _, g := range order {
		if groups[g] != 1 {
			names := strings.Fields(g)
			last := len(names) - 1
			alts := "--" + strings.Join(names[:last], ", --") + " or --" + names[last]
			missing = append(missing, "one of "+alts)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return usageError{strings.TrimPrefix(c.CommandPath(), "toolgate ") + " needs " + strings.Join(missing, " and ")}
}

// synopsis is the flags' part of a verb's usage line, made from their
// definitions: the required flags, each one-of group, then every other
// flag in brackets ("..." after a repeatable one).
func synopsis(fs *pflag.FlagSet) string {
	var req, groups, opt []string
	done := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		g := f.Annotations[oneOfAnnotation]
		switch {
		case f.Hidden:
		case isRequired(f):
			req = append(req, spelled(f))
		case len(g) > 0:
			if done[g[0]] {
				return
			}
			done[g[0]] = true
			var alts []string
			for _, n := range strings.Fields(g[0]) {
				alts = append(alts, spelled(fs.Lookup(n)))
			}
			groups = append(groups, "("+strings.Join(alts, " | ")+")")
		default:
			opt = append(opt, "["+spelled(f)+"]")
		}
	})
	return strings.Join(slices.Concat(req, groups, opt), " ")
}

// spelled is f as the synopsis shows it: -o FORMAT, --name VALUE, --bool.
func spelled(f *pflag.Flag) string {
	s := "--" + f.Name
	if f.Shorthand != "" {
		s = "-" + f.Shorthand
	}
	if p := placeholder(f); p != "" {
		s += " " + p
	}
	if repeatable(f) {
		s += "..."
	}
	return s
}

func repeatable(f *pflag.Flag) bool { return strings.HasSuffix(f.Value.Type(), "Array") }

// placeholder names f's value: its closed values (text|json|yaml), the
// word its usage quotes in backquotes (pflag's convention), or the flag's
// name in capitals; a bool flag has none.
func placeholder(f *pflag.Flag) string {
	if values := closedValues(f); values != nil {
		return strings.Join(values, "|")
	}
	if f.NoOptDefVal != "" {
		return ""
	}
	if name, _ := pflag.UnquoteUsage(f); strings.Contains(f.Usage, "`") {
		return name
	}
	switch t := f.Value.Type(); t {
	case "string", "stringArray":
		return strings.ToUpper(f.Name)
	default:
		return strings.ToUpper(t)
	}
}

// closedValues are the values a flag of a closed set accepts (they
// complete in the shell), nil for any other flag.
func closedValues(f *pflag.Flag) []string {
	if c, ok := f.Value.(*choice); ok {
		return c.allowed
	}
	return nil
}

// helpText is c's help: the root's verb list, a group's verbs, or a
// verb's synopsis, flags with their defaults and examples.
func helpText(c *cobra.Command) string {
	if !c.HasParent() {
		return usage()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", c.UseLine(), c.Short)
	if c.HasAvailableSubCommands() {
		b.WriteString("\nverbs:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				fmt.Fprintf(tw, "  %s\t%s\n", s.Name(), s.Short)
			}
		}
		_ = tw.Flush()
	}
	if c.HasAvailableLocalFlags() {
		b.WriteString("\nflags:\n")
		b.WriteString(flagUsages(c.LocalFlags()))
	}
	if c.HasExample() {
		fmt.Fprintf(&b, "\nexamples:\n%s\n", c.Example)
	}
	fmt.Fprintf(&b, "\n%s\n", exitCodesLine)
	return b.String()
}

// flagUsages lists fs's flags, one a line: its spellings and value, what
// it is, and its default when not the zero value.
func flagUsages(fs *pflag.FlagSet) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		short := "    "
		if f.Shorthand != "" {
			short = "-" + f.Shorthand + ", "
		}
		name := "--" + f.Name
		if p := placeholder(f); p != "" {
			name += " " + p
		}
		_, text := pflag.UnquoteUsage(f)
		if d := shownDefault(f); d != "" {
			text += " (default " + d + ")"
		}
		fmt.Fprintf(tw, "  %s%s\t%s\n", short, name, text)
	})
	_ = tw.Flush()
	return b.String()
}

// shownDefault is f's default as help shows it, "" for the zero value.
func shownDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return ""
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
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
		return fmt.Sprintf("invalid value for --%s: %v", invalid.GetFlag().Name, invalidReason(invalid))
	case errors.As(err, &required):
		return fmt.Sprintf("flag --%s needs a value", required.GetFlag().Name)
	}
	return "malformed flag (flags are --name VALUE, --name=VALUE or -x VALUE)"
}

// invalidReason is why a flag's value was refused, without the value:
// the closed set's own message, or the flag's type.
func invalidReason(e *pflag.InvalidValueError) string {
	if _, set := e.GetFlag().Value.(closedList); set || closedValues(e.GetFlag()) != nil {
		return e.Unwrap().Error()
	}
	return "not a valid " + e.GetFlag().Value.Type()
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
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if len(f.Name) > 1 {
			names = append(names, f.Name)
		}
	})
	return suggest.Near(name, names)
}
