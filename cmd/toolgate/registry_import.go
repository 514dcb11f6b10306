package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/mcpgate"
	"github.com/toolgate/toolgate/internal/mcpgate/mcpimport"
)

// Files an import writes into --out and reads from --previous.
const (
	importRegistryFile = "toolregistry.yaml"
	importGatewayFile  = "mcp-gateway.yaml"
)

// registryImportOptions are registry import's flags.
type registryImportOptions struct {
	from      string
	command   string
	serverURL string
	outDir    string
	previous  string
	prefix    string
	ns        string
	snap      string
	ha        string
	url       string
	token     string
	outcomes  string
}

func registryImportFlags(fs *pflag.FlagSet) *registryImportOptions {
	var o registryImportOptions
	fs.StringVar(&o.from, "from-file", "", "a saved tools/list answer (`TOOLS_LIST.json`: the JSON-RPC response or its result)")
	fs.StringVar(&o.command, "command", "", "a live MCP server as a command line (`'CMD ARG...'`), split at white space (no shell), spoken to over stdio")
	fs.StringVar(&o.serverURL, "url", "", "a live MCP server's Streamable HTTP endpoint (`URL`)")
	oneOf(fs, "from-file", "command", "url")
	fs.StringVar(&o.prefix, "tool-prefix", "", "the toolID's first segment(s) (`SEG`): SEG.tool-name")
	fs.StringVar(&o.outDir, "out", "", "the directory (`DIR`) to write "+importRegistryFile+" and "+importGatewayFile+" into")
	required(fs, "tool-prefix", "out")
	fs.StringVar(&o.previous, "previous", "", "the directory (`DIR`) of the last import (reviewed): the draft becomes its next generation, with a diff")
	fs.StringVar(&o.ns, "namespace", "default", "the ToolRegistry's namespace (`NS`)")
	fs.StringVar(&o.snap, "snapshot-id", "mcp-tools", "the Registry Snapshot identity (`ID`)")
	fs.StringVar(&o.ha, "host-authority", "default/host", "the mapping's HostAuthority, `NAMESPACE/NAME`")
	fs.StringVar(&o.url, "toolgate-url", "http://127.0.0.1:8080", "the mapping's toolgate service `URL`")
	fs.StringVar(&o.token, "token-file", ".state/mcp-executor.token", "the mapping's executor token `FILE`")
	fs.StringVar(&o.outcomes, "outcome-log", ".state/mcp-outcomes.jsonl", "the mapping's outcome log (`FILE`)")
	return &o
}

// registryImport drafts a ToolRegistry generation and the MCP mapping from
// an MCP server's tools/list (docs/mcp.md, "Importing a server's tools"). It writes
// both files even when some tools are refused, and then exits 1 naming
// every refusal.
func registryImport(o *registryImportOptions, rest []string, out io.Writer) error {
	if len(rest) > 0 {
		return usageError{"registry import takes flags only"}
	}
	haNS, haName, ok := strings.Cut(o.ha, "/")
	if !ok || haNS == "" || haName == "" {
		return usageError{"--host-authority must be NAMESPACE/NAME"}
	}
	tools, err := readTools(o.from, o.command, o.serverURL)
	if err != nil {
		return err
	}
	imp := mcpimport.Options{
		Namespace: o.ns, SnapshotID: o.snap, ToolPrefix: o.prefix,
		Gateway: mcpgate.Config{
			Toolgate:      mcpgate.Endpoint{URL: o.url, TokenFile: o.token},
			HostAuthority: mcpgate.ObjectRef{Namespace: haNS, Name: haName},
			OutcomeLog:    o.outcomes,
		},
	}
	if o.previous != "" {
		if imp.Previous, err = loadPrevious(o.previous); err != nil {
			return err
		}
		imp.Gateway = *imp.Previous.Gateway
	}
	r, err := mcpimport.Import(tools, imp)
	if err != nil {
		return err
	}
	reg, err := r.RegistryYAML()
	if err != nil {
		return err
	}
	gw, err := r.GatewayYAML()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{importRegistryFile: reg, importGatewayFile: gw} {
		if err := os.WriteFile(filepath.Join(o.outDir, name), b, 0o644); err != nil {
			return err
		}
	}
	profiled := 0
	for _, m := range r.Gateway.Tools {
		if r.Profiled(m.Name) {
			profiled++
		}
	}
	fmt.Fprintf(out, "drafted %s generation %s: %s (%d with an argument profile); %s; %s to confirm\n", o.snap, r.Registry.Spec.SnapshotGeneration,
		plural(len(r.Gateway.Tools), "tool", "tools"), profiled, plural(len(r.Refusals), "refusal", "refusals"),
		plural(len(r.Unconfirmed), "choice", "choices"))
	for _, c := range r.Changes {
		fmt.Fprintln(out, "  "+c.String())
	}
	for _, c := range r.ProfileChanges {
		fmt.Fprintln(out, "  "+c.String())
	}
	for _, pp := range r.Profiles {
		if !r.Profiled(pp.Tool) {
			continue
		}
		for _, f := range pp.Reasons {
			fmt.Fprintln(out, "  chose    "+f.String())
		}
	}
	for _, f := range r.ToolIDs {
		fmt.Fprintln(out, "  chose    "+f.String())
	}
	for _, n := range r.Narrowings {
		fmt.Fprintln(out, "  narrowed "+n.String())
	}
	for _, pp := range r.Profiles {
		for _, f := range pp.Refused {
			if !pp.Reviewed() {
				fmt.Fprintln(out, "  no profile "+f.String())
			}
		}
	}
	for _, f := range r.Refusals {
		fmt.Fprintln(out, "  refused  "+f.String())
	}
	if len(r.Refusals) > 0 {
		return fmt.Errorf("%s refused: map them by hand or leave them out", plural(countTools(r.Refusals), "tool", "tools"))
	}
	return nil
}

// readTools reads the tools/list of a saved answer or a live server.
func readTools(from, command, serverURL string) ([]mcpimport.Tool, error) {
	switch {
	case from != "":
		raw, err := os.ReadFile(from)
		if err != nil {
			return nil, err
		}
		return mcpimport.ParseToolsList(raw)
	case command != "":
		argv := strings.Fields(command)
		cmd := exec.Command(argv[0], argv[1:]...) //nolint:gosec // the operator's own server command
		cmd.Stderr = os.Stderr
		return mcpimport.List(context.Background(), &mcp.CommandTransport{Command: cmd})
	default:
		return mcpimport.List(context.Background(), &mcp.StreamableClientTransport{Endpoint: serverURL, MaxRetries: -1})
	}
}

func countTools(fs []mcpimport.Finding) int {
	seen := map[string]bool{}
	for _, f := range fs {
		seen[f.Tool] = true
	}
	return len(seen)
}

func loadPrevious(dir string) (*mcpimport.Previous, error) {
	set, err := manifest.LoadPaths(filepath.Join(dir, importRegistryFile))
	if err != nil {
		return nil, err
	}
	if len(set.ToolRegistries) != 1 {
		return nil, errors.New("previous: " + importRegistryFile + " must hold one ToolRegistry")
	}
	gw, err := mcpgate.LoadConfig(filepath.Join(dir, importGatewayFile))
	if err != nil {
		return nil, fmt.Errorf("previous: %w", err)
	}
	return &mcpimport.Previous{Registry: set.ToolRegistries[0], Gateway: gw}, nil
}
