// Command toolgate is the single toolgate binary. This build offers the CLI
// verbs that exercise the protocol core offline; the manager and the
// standalone service arrive with later work.
//
//	toolgate registry validate PATH...              validate ToolRegistry manifests
//	toolgate policy validate [--publisher ID] PATH...
//	                                                publish HostAuthority and PolicySnapshot manifests
//	toolgate request canonicalize --manifests PATH --proposal FILE
//	                                                build a Canonical Request from a Proposal
//	toolgate intent digest                          agent-safe.intent/1 canonical JSON and digest of stdin
//	toolgate decide --manifests PATH --request FILE [--explain]
//	                                                decide one authorization request as the Host
//	toolgate manager [flags]                        run the controllers and admission webhooks (in a cluster)
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  toolgate registry validate PATH...
  toolgate policy validate [--publisher ID] PATH...
  toolgate request canonicalize --manifests PATH [--registry ID --generation N] --proposal FILE [--assessment-id ID]
  toolgate intent digest < binding.json
  toolgate decide --manifests PATH --request FILE [--explain]
  toolgate manager [--leader-elect] [--webhook-cert-dir DIR] [--metrics-bind-address ADDR] [--metrics-secure]
`

// run executes one verb and returns the process exit code: 0 success,
// 1 rejected input, 2 usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) >= 1 && args[0] == "manager" {
		return exitCode(manager(args[1:], stderr), stderr)
	}
	if len(args) >= 1 && args[0] == "decide" {
		return exitCode(decide(args[1:], stdout), stderr)
	}
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] + " " + args[1] {
	case "registry validate":
		err = registryValidate(args[2:], stdout)
	case "policy validate":
		err = policyValidate(args[2:], stdout)
	case "request canonicalize":
		err = requestCanonicalize(args[2:], stdout)
	case "intent digest":
		err = intentDigest(args[2:], stdin, stdout)
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	return exitCode(err, stderr)
}

// exitCode reports err on stderr and returns the exit code: 0 success, 1
// rejected input, 2 usage error.
func exitCode(err error, stderr io.Writer) int {
	if err != nil {
		if ue, ok := err.(usageError); ok {
			fmt.Fprintf(stderr, "toolgate: %s\n%s", ue.msg, usage)
			return 2
		}
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return 1
	}
	return 0
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
