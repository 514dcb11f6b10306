package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// requestCanonicalizeOptions are request canonicalize's flags.
type requestCanonicalizeOptions struct {
	manifests    string
	regID        string
	regGen       string
	proposalFile string
	assessmentID string
}

func requestCanonicalizeFlags(fs *pflag.FlagSet) *requestCanonicalizeOptions {
	var o requestCanonicalizeOptions
	fs.StringVar(&o.manifests, "manifests", "", "file or directory (`PATH`) with ToolRegistry manifests")
	fs.StringVar(&o.proposalFile, "proposal", "", "proposal JSON `FILE`: {proposalID, toolID, version, arguments}")
	required(fs, "manifests", "proposal")
	fs.StringVar(&o.regID, "registry", "", "registry snapshot identity (`ID`; required when several are loaded)")
	fs.StringVar(&o.regGen, "generation", "", "registry snapshot generation (`N`; with --registry)")
	fs.StringVar(&o.assessmentID, "assessment-id", "cli-assessment", "Host assessment identity (`ID`)")
	return &o
}

// requestCanonicalize plays the Host for one Proposal: it selects the exact
// registry snapshot, publishes it into a fresh in-process Host domain and
// prints the Canonical Request that Host builds (Host.Canonicalize: the
// Proposal Assessment is made inside the Host's own boundary, as Authorize
// makes it).
func requestCanonicalize(o *requestCanonicalizeOptions, rest []string, out io.Writer) error {
	if len(rest) != 0 {
		return usageError{"request canonicalize takes flags only"}
	}
	snaps, drafts, err := loadRegistries(o.manifests)
	if err != nil {
		return err
	}
	i, err := selectSnapshot(snaps, o.regID, o.regGen)
	if err != nil {
		return err
	}
	p, err := parseFile(o.proposalFile, "proposal", parseProposal)
	if err != nil {
		return err
	}
	h, err := cliHost()
	if err != nil {
		return err
	}
	if _, err := h.PublishRegistry(drafts[i]); err != nil {
		return err
	}
	sel := host.RegistrySelection{SnapshotID: snaps[i].ID().String(), Generation: snaps[i].Generation().String()}
	r, err := h.Canonicalize(host.Caller{Name: cliCaller}, sel, p, o.assessmentID)
	if err != nil {
		return err
	}
	printRequest(out, r)
	return nil
}

// cliCaller names the CLI itself, as the caller of its own Host.
const cliCaller = "toolgate-cli"

// cliHost is the fresh in-process Host domain request canonicalize plays:
// the CLI holds only intentCaptureAuthority, the role that supplies a
// Proposal Assessment, and no policy is ever published, so it issues
// nothing; it holds the one selected registry snapshot and canonicalizes
// in its own boundary.
func cliHost() (*host.Host, error) {
	return host.New(host.Config{
		Description: "toolgate-cli", AuthorityID: "toolgate-cli",
		Capabilities: []string{"data.read"}, MaxLifetime: 1,
		Roles: []host.RoleBinding{{Role: "intentCaptureAuthority", Subjects: []host.Subject{{Kind: host.KindUser, Name: cliCaller}}}},
	})
}

// selectSnapshot returns the index of the snapshot with exactly identity
// id and generation gen, or of the only one loaded when neither is given.
func selectSnapshot(snaps []*host.RegistrySnapshot, id, gen string) (int, error) {
	if id == "" && gen == "" {
		if len(snaps) != 1 {
			return 0, errors.New("several registry snapshots loaded: select one with --registry and --generation")
		}
		return 0, nil
	}
	found := -1
	for i, s := range snaps {
		if s.ID().String() != id || s.Generation().String() != gen {
			continue
		}
		// Two objects claiming one generation with different content make
		// the selection ambiguous; fail closed instead of taking the first.
		if found >= 0 && !snaps[found].Equal(s) {
			return 0, errors.New("several loaded registry snapshots have that identity and generation with different content")
		}
		found = i
	}
	if found < 0 {
		return 0, errors.New("no loaded registry snapshot has exactly that identity and generation")
	}
	return found, nil
}

// parseProposal reads the proposal envelope with the same occurrence-
// preserving decoder as the arguments, so a duplicated "arguments" or
// "toolID" key cannot smuggle a second meaning past the Host.
func parseProposal(raw []byte) (host.Proposal, error) {
	var p host.Proposal
	v, err := jsonexact.Decode(raw, jsonexact.Limits{MaxBytes: host.DefaultMaxArgumentBytes})
	if err != nil {
		return p, err
	}
	if v.Kind() != jsonexact.Object {
		return p, errors.New("a proposal is a JSON object {proposalID, toolID, version, arguments}")
	}
	seen := 0
	for _, m := range v.Members() {
		switch m.Name {
		case "proposalID", "toolID", "version":
			if m.Value.Kind() != jsonexact.String {
				return p, errors.New("proposalID, toolID and version are JSON strings")
			}
			switch m.Name {
			case "proposalID":
				p.ProposalID = m.Value.Text()
			case "toolID":
				p.ToolID = m.Value.Text()
			default:
				p.Version = m.Value.Text()
			}
		case "arguments":
			p.Arguments = m.Value.AppendJSON(nil)
		default:
			return p, errors.New("a proposal has only the keys proposalID, toolID, version and arguments")
		}
		seen++
	}
	if seen != 4 {
		return p, errors.New("a proposal needs all of proposalID, toolID, version and arguments")
	}
	return p, nil
}

func printRequest(out io.Writer, r *host.CanonicalRequest) {
	d := r.Definition()
	res := r.Resources()
	names := make([]string, len(res))
	for i, x := range res {
		names[i] = x.String()
	}
	resources := strings.Join(names, ", ")
	if resources == "" {
		resources = "(none: no resource authority)"
	}
	b := r.Bytes()
	fmt.Fprintf(out, "canonical request: valid\n")
	fmt.Fprintf(out, "  registry         %s generation %s (%s)\n", r.Snapshot().ID(), r.Snapshot().Generation(), r.Snapshot().Digest())
	fmt.Fprintf(out, "  tool             %s version %s, definition %s (%s)\n", d.ToolID(), d.Version(), d.ID(), d.Digest())
	fmt.Fprintf(out, "  schema           %s %s (%s)\n", r.Schema().ID(), r.Schema().Version(), r.Schema().Digest())
	fmt.Fprintf(out, "  assessment       %s for proposal %s\n", r.Assessment().ID(), r.Assessment().ProposalID())
	fmt.Fprintf(out, "  resources        %s\n", resources)
	fmt.Fprintf(out, "  canonicalization %s, %d octets\n", r.CanonicalizationVersion(), len(b))
	fmt.Fprintf(out, "  request digest   %s\n", r.Digest())
	for i := 0; i < len(b); i += 32 {
		end := min(i+32, len(b))
		fmt.Fprintf(out, "  %04x  %s\n", i, spacedHex(b[i:end]))
	}
}

func spacedHex(b []byte) string {
	h := hex.EncodeToString(b)
	var sb strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(h[i : i+2])
	}
	return strings.ToUpper(sb.String())
}
