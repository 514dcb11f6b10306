// Command toolgate is the single toolgate binary: the authorization service
// (`serve`, standalone on a manifest directory or in a cluster), the manager
// (`manager`: controllers and admission webhooks), and the offline verbs a
// policy author and a CI pipeline use (`validate`, `diff`, `test`, `decide`,
// `audit`, `keys`, `version`). `toolgate --help` lists the verbs; the
// verbs run on spf13/cobra (cli.go) and report for pipelines with -o and
// --format (output.go); docs/cli.md has the exit codes and the shapes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolgate/toolgate/internal/buildinfo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// verb is one CLI verb: its name (one or two words), its argument synopsis,
// what it does, its flags and its implementation. flags declares the flags
// on a fresh FlagSet, the one run parses its arguments with (each verb's
// xFlags function serves both), so cli.go hands them to cobra without a
// second list; nil for a verb without flags. Examples are in examples().
type verb struct {
	name, args, summary string
	flags               func() *flag.FlagSet
	run                 func(args []string, stdin io.Reader, stdout io.Writer) error
}

// flagSet adapts a verb's xFlags function to verb.flags.
func flagSet[T any](declare func() (*flag.FlagSet, T)) func() *flag.FlagSet {
	return func() *flag.FlagSet {
		fs, _ := declare()
		return fs
	}
}

// verbs lists every verb in the order the usage shows them.
func verbs() []verb {
	return []verb{
		{"decide", "--manifests PATH --request FILE [--explain]",
			"decide one authorization request as the Host of a HostAuthority",
			flagSet(decideFlags), writes(decide)},
		{"registry validate", "PATH...",
			"publish every ToolRegistry with the engine's rules and summarize it",
			flagSet(registryValidateFlags), writes(registryValidate)},
		{"registry import", registryImportArgs,
			"draft a ToolRegistry generation and the MCP mapping from an MCP server's tools/list, reporting every narrowing and refusal",
			flagSet(registryImportFlags), writes(registryImport)},
		{"policy validate", "PATH...",
			"create each HostAuthority's domain and publish its PolicySnapshot generations",
			flagSet(policyValidateFlags), writes(policyValidate)},
		{"request canonicalize", "--manifests PATH [--registry ID --generation N] --proposal FILE [--assessment-id ID]",
			"build the Canonical Request of one Proposal",
			flagSet(requestCanonicalizeFlags), writes(requestCanonicalize)},
		{"intent digest", "< binding.json",
			"print the agent-safe.intent/1 canonical JSON and digest of stdin",
			nil, intentDigest},
		{"serve", "--manifests PATH --state DIR [--listen ADDR] [--tokens FILE] [--tls-cert F --tls-key F] [--audit-log DIR|off] [--pprof-listen ADDR] [--consumption-store bolt|etcd --etcd-endpoints URL,... [--etcd-ca F --etcd-cert F --etcd-key F] [--etcd-prefix P]]",
			"run the authorization service on manifests from a directory",
			flagSet(serveFlags), func(a []string, _ io.Reader, _ io.Writer) error { return serve(a, os.Stderr) }},
		{"validate", "-f PATH...",
			"check every object with the admission webhook's rules, offline; every violation with its file, line and path",
			flagSet(validateFlags), writes(validate)},
		{"diff", "OLD NEW",
			"what each new PolicySnapshot generation in NEW changes relative to OLD, and whether it is a valid successor",
			flagSet(diffFlags), writes(diff)},
		{"test", "PATH...",
			"run the policy tests (*.test.yaml: requests and the Decisions they must get) against their manifests",
			flagSet(testFlags), writes(testPolicies)},
		{"audit verify", "--key VERIFIER (--log DIR [--checkpoints KEPT]... | --proof FILE)",
			"check the tamper-evident decision log, naming every modified, deleted, inserted or reordered record; or check a proof",
			flagSet(auditVerifyFlags), writes(auditVerify)},
		{"audit prove", "--log DIR (--index SEQ [--size N] | --from N --to M)",
			"print an inclusion proof of one record, or a consistency proof between two signed checkpoints",
			flagSet(auditProveFlags), writes(auditProve)},
		{"keys rotate", "NAMESPACE/NAME (--state DIR --manifests PATH | [--kubeconfig F])",
			"make a fresh key a domain's signing key; earlier keys verify until their artifacts have expired",
			flagSet(keysRotateFlags), writes(keysRotate)},
		{"keys list", "NAMESPACE/NAME (--state DIR | [--kubeconfig F] [--key-namespace NS])",
			"list a domain's keys: identity, state and retire time (never a seed)",
			flagSet(keysListFlags), writes(keysList)},
		{"keys revoke", "NAMESPACE/NAME KEY-ID --reason TEXT (--state DIR | [--kubeconfig F])",
			"refuse everything a key signed, at once: a Revocation object in a cluster, the state directory's ledger standalone",
			flagSet(keysRevokeFlags), writes(keysRevoke)},
		{"mcp gateway", mcpGatewayArgs,
			"the MCP gateway in front of one MCP server: every tools/call authorized by toolgate",
			flagSet(mcpGatewayFlags), func(a []string, in io.Reader, out io.Writer) error {
				return mcpVerb(append([]string{"gateway"}, a...), in, out)
			}},
		{"mcp outcomes", mcpOutcomesArgs,
			"print the MCP gateway's recorded call outcomes",
			flagSet(mcpOutcomesFlags), func(a []string, in io.Reader, out io.Writer) error {
				return mcpVerb(append([]string{"outcomes"}, a...), in, out)
			}},
		{"manager", "[--leader-elect] [--webhook-cert-dir DIR] [--metrics-bind-address ADDR] [--metrics-secure] [--pprof-listen ADDR] [--consumption-store apiserver|etcd --etcd-endpoints URL,... [--etcd-ca F --etcd-cert F --etcd-key F] [--etcd-prefix P]]",
			"run the controllers and admission webhooks (in a cluster)",
			flagSet(managerFlags), func(a []string, _ io.Reader, _ io.Writer) error { return manager(a) }},
		{"version", "", "print the build: version, commit and Go version",
			nil, writes(version)},
	}
}

// writes adapts a verb that reads no input and writes its result to out.
func writes(run func(args []string, out io.Writer) error) func([]string, io.Reader, io.Writer) error {
	return func(a []string, _ io.Reader, out io.Writer) error { return run(a, out) }
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
// "audit: ") are dropped, so the one prefix a user sees is "toolgate: ".
func userMessage(err error) string {
	msg := err.Error()
	for _, p := range []string{"engine: ", "jsonexact: ", "agentsafe: ", "audit: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

// parseFlags parses args with fs, allowing flags after positional
// arguments (`toolgate registry validate DIR --flag`), and returns the
// positional arguments. "--" ends flag parsing.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// pathArgs parses the arguments of a verb that takes paths with fs and
// requires at least one, each a what ("file or directory").
func pathArgs(fs *flag.FlagSet, args []string, what string) ([]string, error) {
	paths, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, usageError{fs.Name() + " needs at least one " + what}
	}
	return paths, nil
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
