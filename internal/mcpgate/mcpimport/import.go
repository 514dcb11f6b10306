package mcpimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/argprofile"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/mcpgate"
	"github.com/toolgate/toolgate/internal/publication"
)

// UnconfirmedAnnotation marks a ToolRegistry draft whose human judgments
// (capabilities, risk, side effect, reversibility, resource-identifier
// fields) are still suggestions; `toolgate validate -f` refuses it until the
// reviewer removes it.
const UnconfirmedAnnotation = manifest.UnconfirmedImportAnnotation

// ConfirmMarker ends every suggested line of a draft.
const ConfirmMarker = manifest.ImportConfirmMarker

// Suggestions for what needs human judgment: the most restrictive values,
// never read from the server's annotations (untrusted hints).
var (
	suggestedRisk          = v1alpha1.Risk("critical")
	suggestedSideEffect    = v1alpha1.SideEffect("irreversibleMutation")
	suggestedReversibility = v1alpha1.Reversibility("irreversible")
	suggestedCapabilities  = []v1alpha1.Capability{"communication.external", "data.read", "data.write", "financial.transfer", "resource.delete"}
)

// Tool is one tool of a tools/list result, its definition kept raw.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// ParseToolsList reads a saved tools/list answer: the JSON-RPC response or
// its result ({"tools": [...]}).
func ParseToolsList(raw []byte) ([]Tool, error) {
	var doc struct {
		Result *struct {
			Tools []Tool `json:"tools"`
		} `json:"result"`
		Tools []Tool `json:"tools"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, errors.New("tools/list: not a JSON tools/list result or response")
	}
	tools := doc.Tools
	if doc.Result != nil {
		tools = doc.Result.Tools
	}
	if len(tools) == 0 {
		return nil, errors.New("tools/list: no tools")
	}
	return tools, nil
}

// Options names what the draft is.
type Options struct {
	Namespace  string
	SnapshotID string
	// ToolPrefix is the first segment(s) of every toolID: prefix.tool-name.
	ToolPrefix string
	// Gateway supplies the mapping's non-tool fields (service, token,
	// HostAuthority, outcome log).
	Gateway mcpgate.Config
	// Previous is the last import, reviewed; nil for a first import.
	Previous *Previous
}

// Previous is the last generation: its registry (reviewed) and mapping.
type Previous struct {
	Registry v1alpha1.ToolRegistry
	Gateway  *mcpgate.Config
	// Profiles are the reviewed argument profiles by MCP tool name
	// (ParseProfiles); nil when the last import wrote none.
	Profiles map[string]argprofile.Draft
}

// Change is one line of a re-import's diff.
type Change struct {
	Tool, ToolID        string
	Kind                string // added, changed, refused, removed, unchanged
	OldVersion, Version string
	OldDigest, Digest   string
}

func (c Change) String() string {
	switch c.Kind {
	case "added":
		return fmt.Sprintf("added      %s: %s version %s", c.Tool, c.ToolID, c.Version)
	case "removed":
		return fmt.Sprintf("removed    %s: %s version %s is not served any more", c.Tool, c.ToolID, c.OldVersion)
	case "refused":
		return fmt.Sprintf("refused    %s: the new definition of published version %s of %s is refused (see the refusals); it leaves this generation", c.Tool, c.OldVersion, c.ToolID)
	case "changed":
		return fmt.Sprintf("changed    %s: the definition of published version %s of %s changed (%s -> %s); imported as version %s",
			c.Tool, c.OldVersion, c.ToolID, c.OldDigest, c.Digest, c.Version)
	}
	return fmt.Sprintf("unchanged  %s: %s version %s", c.Tool, c.ToolID, c.Version)
}

// Result is an import: the drafts and everything a reviewer must read.
type Result struct {
	Registry   v1alpha1.ToolRegistry
	Gateway    mcpgate.Config
	Narrowings []Finding
	Refusals   []Finding
	Changes    []Change
	// Profiles is the argument profile proposed for every tool the server
	// lists, in its order — also for those the closed-Schema import
	// refuses, which is where a profile matters (docs/arguments.md).
	// ProfilesYAML renders them for review. On a re-import a tool whose
	// definition is unchanged keeps its reviewed profile.
	Profiles []ProfileProposal
	// ProfileChanges is the re-import's profile diff, in the server's order.
	ProfileChanges []ProfileChange
	// unconfirmed holds the definition ids carrying suggestions.
	unconfirmed map[string]bool
	notes       map[string][]string
}

var toolSegment = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$`)

// Import converts tools into a ToolRegistry generation draft and the
// gateway mapping. Refused tools are left out of both and listed, all at
// once; the draft is still written for the rest.
func Import(tools []Tool, o Options) (*Result, error) {
	gen := uint64(1)
	prevByName := map[string]mcpgate.ToolMapping{}
	prevDefs := map[string]v1alpha1.ToolDefinition{}
	if p := o.Previous; p != nil {
		g, err := strconv.ParseUint(string(p.Registry.Spec.SnapshotGeneration), 10, 64)
		if err != nil {
			return nil, errors.New("previous registry: snapshotGeneration is not a generation")
		}
		gen = g + 1
		if p.Gateway != nil {
			for _, t := range p.Gateway.Tools {
				prevByName[t.Name] = t
			}
		}
		for _, d := range p.Registry.Spec.Definitions {
			prevDefs[string(d.ToolID)+"@"+string(d.Version)] = d
		}
	}
	for seg := range strings.SplitSeq(o.ToolPrefix, ".") {
		if !toolSegment.MatchString(seg) || strings.Count(o.ToolPrefix, ".") > 6 {
			return nil, errors.New("the tool prefix must be 1–7 dot-separated segments of 1–32 of a–z, 0–9 and interior '-'")
		}
	}
	r := &Result{unconfirmed: map[string]bool{}, notes: map[string][]string{}}
	r.Registry = v1alpha1.ToolRegistry{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion, Kind: "ToolRegistry"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", o.SnapshotID, gen), Namespace: o.Namespace},
		Spec: v1alpha1.ToolRegistrySpec{
			SnapshotID:         v1alpha1.LowerToken(o.SnapshotID),
			SnapshotGeneration: v1alpha1.Generation(strconv.FormatUint(gen, 10)),
		},
	}
	r.Gateway = o.Gateway
	r.Gateway.APIVersion, r.Gateway.Kind = mcpgate.ConfigAPIVersion, mcpgate.ConfigKind
	r.Gateway.Tools = nil
	seen := map[string]bool{}
	for _, t := range tools {
		if seen[t.Name] {
			r.Refusals = append(r.Refusals, Finding{t.Name, "", "the server lists this tool name twice"})
			continue
		}
		seen[t.Name] = true
		pp := ProposeProfile(t.Name, t.InputSchema)
		refused := len(r.Refusals)
		r.add(t, o, prevByName, prevDefs)
		if o.Previous != nil {
			reviewed, hadProfile := o.Previous.Profiles[t.Name]
			digest, err := mcpgate.Definition{Description: t.Description, InputSchema: t.InputSchema}.Digest()
			if prev, had := prevByName[t.Name]; hadProfile && had && err == nil && prev.DefinitionDigest == digest {
				// Unchanged definition: the reviewer's profile carries over.
				pp = ProfileProposal{Tool: t.Name, Draft: reviewed, reviewed: true}
			}
			var prevDraft *argprofile.Draft
			if hadProfile {
				prevDraft = &reviewed
			}
			if c, changed := profileChange(t.Name, prevDraft, pp); changed {
				r.ProfileChanges = append(r.ProfileChanges, c)
			}
		}
		r.Profiles = append(r.Profiles, pp)
		if prev, had := prevByName[t.Name]; had && len(r.Refusals) > refused {
			// A published tool whose new definition is refused leaves the
			// generation: the diff says so.
			r.Changes = append(r.Changes, Change{Tool: t.Name, ToolID: prev.ToolID, Kind: "refused", OldVersion: prev.Version, OldDigest: prev.DefinitionDigest})
		}
	}
	if o.Previous != nil && o.Previous.Gateway != nil {
		for _, t := range o.Previous.Gateway.Tools {
			if !seen[t.Name] {
				r.Changes = append(r.Changes, Change{Tool: t.Name, ToolID: t.ToolID, Kind: "removed", OldVersion: t.Version, OldDigest: t.DefinitionDigest})
			}
		}
	}
	if len(r.unconfirmed) > 0 {
		r.Registry.Annotations = map[string]string{UnconfirmedAnnotation: "true"}
	}
	return r, nil
}

func pointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

var printable = regexp.MustCompile(`^[!-~]([ -~]*[!-~])?$`)

// definition builds one Tool Definition with suggestions, and checks it
// publishes (depth, node and field bounds of the closed Schema).
func definition(t Tool, toolID, version string, root schema.Draft) (v1alpha1.ToolDefinition, error) {
	id := strings.ReplaceAll(toolID, ".", "-") + "-" + version
	rootJSON, err := json.Marshal(nodeOf(root))
	if err != nil {
		return v1alpha1.ToolDefinition{}, err
	}
	title := t.Title
	if !printable.MatchString(title) || len(title) > 80 {
		title = t.Name
	}
	summary := firstLine(t.Description)
	if !printable.MatchString(summary) || len(summary) > 240 {
		summary = "MCP tool " + t.Name + "; the reviewed description is in the MCP mapping."
	}
	d := v1alpha1.ToolDefinition{
		ID: v1alpha1.LowerToken(id), ToolID: v1alpha1.ToolIdentifier(toolID), Version: v1alpha1.Generation(version),
		Lifecycle: "active", Risk: suggestedRisk, SideEffect: suggestedSideEffect, Reversibility: suggestedReversibility,
		Capabilities: slices.Clone(suggestedCapabilities),
		Title:        title, Summary: summary,
		Schema: v1alpha1.ToolSchema{ID: v1alpha1.LowerToken(id + "-args"), Version: "v1", Root: apiextensionsv1.JSON{Raw: rootJSON}},
	}
	check := &v1alpha1.ToolRegistry{Spec: v1alpha1.ToolRegistrySpec{SnapshotID: "check", SnapshotGeneration: "1", Definitions: []v1alpha1.ToolDefinition{d}}}
	check.Name = "check-1"
	if _, _, err := publication.ToolRegistry(check); err != nil {
		return d, fmt.Errorf("the converted closed Schema does not publish: %s", strings.ReplaceAll(err.Error(), "engine: ", ""))
	}
	return d, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// node is the ToolRegistry's JSON form of a Schema node.
type node struct {
	Kind   string   `json:"kind"`
	Cases  []string `json:"cases,omitempty"`
	Items  *node    `json:"items,omitempty"`
	Fields []field  `json:"fields,omitempty"`
}

type field struct {
	Name        string `json:"name"`
	Requirement string `json:"requirement"`
	Type        node   `json:"type"`
}

func nodeOf(d schema.Draft) node {
	n := node{Kind: d.Kind, Cases: d.Cases}
	if d.Items != nil {
		it := nodeOf(*d.Items)
		n.Items = &it
	}
	for _, f := range d.Fields {
		n.Fields = append(n.Fields, field{f.Name, f.Requirement, nodeOf(f.Type)})
	}
	return n
}

// RegistryYAML renders the draft with a header telling the reviewer what
// to do, every narrowing as a comment above its definition, and
// ConfirmMarker on every suggested line.
func (r *Result) RegistryYAML() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# A ToolRegistry generation drafted by `toolgate registry import` from an MCP server's tools/list.\n")
	if len(r.unconfirmed) > 0 {
		b.WriteString("# Review it before publishing: every line marked '" + ConfirmMarker + "' is a suggestion (the most\n")
		b.WriteString("# restrictive value, never read from the server's annotations); every string field may be a\n")
		b.WriteString("# resource identifier (kind: resourceID). Confirm or change them, then remove the annotation\n")
		b.WriteString("# " + UnconfirmedAnnotation + ": `toolgate validate -f` refuses the draft until then.\n")
	}
	meta, err := yaml.Marshal(map[string]any{"name": r.Registry.Name, "namespace": r.Registry.Namespace, "annotations": r.Registry.Annotations})
	if err != nil {
		return nil, err
	}
	b.WriteString("apiVersion: " + r.Registry.APIVersion + "\nkind: " + r.Registry.Kind + "\nmetadata:\n")
	for _, line := range strings.SplitAfter(strings.TrimRight(string(meta), "\n"), "\n") {
		if !strings.HasPrefix(line, "annotations: null") {
			b.WriteString("  " + strings.TrimRight(line, "\n") + "\n")
		}
	}
	fmt.Fprintf(&b, "spec:\n  snapshotID: %s\n  snapshotGeneration: %q\n", r.Registry.Spec.SnapshotID, r.Registry.Spec.SnapshotGeneration)
	if len(r.Registry.Spec.Definitions) == 0 {
		b.WriteString("  definitions: []\n")
		return b.Bytes(), nil
	}
	b.WriteString("  definitions:\n")
	for _, d := range r.Registry.Spec.Definitions {
		dy, err := yaml.Marshal([]v1alpha1.ToolDefinition{d})
		if err != nil {
			return nil, err
		}
		unconfirmed := r.unconfirmed[string(d.ID)]
		for _, n := range r.notes[string(d.ID)] {
			b.WriteString("  # " + n + "\n")
		}
		for _, line := range strings.SplitAfter(strings.TrimRight(string(dy), "\n"), "\n") {
			line = strings.TrimRight(line, "\n")
			trimmed := strings.TrimLeft(line, "- ")
			if unconfirmed && (strings.HasPrefix(trimmed, "risk: ") || strings.HasPrefix(trimmed, "sideEffect: ") ||
				strings.HasPrefix(trimmed, "reversibility: ") || trimmed == "capabilities:" ||
				trimmed == "kind: string") {
				line += "  " + ConfirmMarker
			}
			b.WriteString("  " + line + "\n")
		}
	}
	return b.Bytes(), nil
}

// GatewayYAML renders the MCP mapping (kind MCPGateway).
func (r *Result) GatewayYAML() ([]byte, error) {
	y, err := yaml.Marshal(r.Gateway)
	if err != nil {
		return nil, err
	}
	return append([]byte("# The MCP mapping drafted by `toolgate registry import`: each MCP tool, the exact toolID and\n"+
		"# version it is authorized as, and the definition under review (the server's own description\n"+
		"# and inputSchema; the gateway withholds the tool when the live one's digest differs).\n"), y...), nil
}

// add imports one tool into r: a definition and its mapping entry, or its
// refusals.
func (r *Result) add(t Tool, o Options, prevByName map[string]mcpgate.ToolMapping, prevDefs map[string]v1alpha1.ToolDefinition) {
	def := mcpgate.Definition{Description: t.Description, InputSchema: t.InputSchema}
	digest, err := def.Digest()
	if err != nil {
		r.Refusals = append(r.Refusals, Finding{t.Name, "", "inputSchema " + err.Error()})
		return
	}
	seg := strings.ReplaceAll(strings.ToLower(t.Name), "_", "-")
	toolID := o.ToolPrefix + "." + seg
	root, narrow, refuse := convert(t.Name, t.InputSchema)
	if !toolSegment.MatchString(seg) {
		// Every refusal at once: the schema's too.
		refuse = append([]Finding{{t.Name, "", "the tool name has no protocol tool identifier segment (1–32 of a–z, 0–9, interior '-' after lower-casing and '_' to '-'); map it by hand"}}, refuse...)
	}
	if len(refuse) > 0 {
		r.Refusals = append(r.Refusals, refuse...)
		return
	}
	version := uint64(1)
	prev, had := prevByName[t.Name]
	if had {
		pv, _ := strconv.ParseUint(prev.Version, 10, 64)
		version = pv
		change := Change{Tool: t.Name, ToolID: prev.ToolID, Kind: "unchanged", OldVersion: prev.Version, OldDigest: prev.DefinitionDigest, Digest: digest}
		if prev.DefinitionDigest != digest {
			version, change.Kind = pv+1, "changed"
		}
		toolID = prev.ToolID
		change.Version = strconv.FormatUint(version, 10)
		r.Changes = append(r.Changes, change)
	} else if o.Previous != nil {
		r.Changes = append(r.Changes, Change{Tool: t.Name, ToolID: toolID, Kind: "added", Version: "1", Digest: digest})
	}
	vs := strconv.FormatUint(version, 10)
	if reviewed, ok := prevDefs[toolID+"@"+vs]; ok && had && prev.DefinitionDigest == digest {
		// Unchanged: the reviewer's confirmed definition carries over.
		r.Registry.Spec.Definitions = append(r.Registry.Spec.Definitions, reviewed)
	} else {
		d, err := definition(t, toolID, vs, root)
		if err != nil {
			r.Refusals = append(r.Refusals, Finding{t.Name, "", err.Error()})
			return
		}
		r.Narrowings = append(r.Narrowings, narrow...)
		r.unconfirmed[string(d.ID)] = true
		for _, n := range narrow {
			r.notes[string(d.ID)] = append(r.notes[string(d.ID)], "narrowed "+pointer(n.Pointer)+": "+n.Reason)
		}
		r.Registry.Spec.Definitions = append(r.Registry.Spec.Definitions, d)
	}
	r.Gateway.Tools = append(r.Gateway.Tools, mcpgate.ToolMapping{
		Name: t.Name, ToolID: toolID, Version: vs,
		Definition: def, DefinitionDigest: digest,
	})
}
