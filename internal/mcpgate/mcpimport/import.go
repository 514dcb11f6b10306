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
	// ToolIDs are the toolIDs chosen for names longer than one segment,
	// for review (the mapping is the tool names' rename table).
	ToolIDs  []Finding
	Refusals []Finding
	Changes  []Change
	// Profiles is the argument profile proposed for every tool the server
	// lists, in its order (docs/arguments.md). A tool with an accepted one
	// imports with it: its definition carries the profile as arguments,
	// docRef Profile.DocRef() and schema.root Profile.Schema(). On a
	// re-import a tool whose definition is unchanged keeps its reviewed
	// definition, and so its profile.
	Profiles []ProfileProposal
	// ProfileChanges is the re-import's profile diff, in the server's order.
	ProfileChanges []ProfileChange
	// Unconfirmed is every suggested choice of the draft, in definition
	// order; the annotation UnconfirmedAnnotation lists them.
	Unconfirmed []manifest.Unconfirmed
	// unconfirmed holds the definition ids carrying suggestions.
	unconfirmed map[string]bool
	notes       map[string][]string
}

// Profiled reports whether the tool's definition in the draft carries an
// argument profile.
func (r *Result) Profiled(tool string) bool {
	for _, m := range r.Gateway.Tools {
		if m.Name != tool {
			continue
		}
		for _, d := range r.Registry.Spec.Definitions {
			if string(d.ToolID) == m.ToolID && string(d.Version) == m.Version {
				return d.Arguments != nil
			}
		}
	}
	return false
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
	prevProfiles, err := reviewedProfiles(o.Previous)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range tools {
		if seen[t.Name] {
			r.Refusals = append(r.Refusals, Finding{t.Name, "", "the server lists this tool name twice"})
			continue
		}
		seen[t.Name] = true
		pp := ProposeProfile(t.Name, t.InputSchema)
		refused := len(r.Refusals)
		pp = r.add(t, pp, o, prevByName, prevDefs)
		if o.Previous != nil && len(r.Refusals) == refused {
			// A refused tool has no profile under review: the diff
			// names it once, as refused, below.
			var prevDraft *argprofile.Draft
			if prev, had := prevByName[t.Name]; had {
				if d, ok := prevProfiles[prev.ToolID+"@"+prev.Version]; ok {
					prevDraft = &d
				}
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
	if len(r.Unconfirmed) > 0 {
		r.Registry.Annotations = map[string]string{UnconfirmedAnnotation: manifest.FormatUnconfirmed(r.Unconfirmed)}
	}
	return r, nil
}

// reviewedProfiles reads the profiles of the previous registry's
// definitions, by toolID@version; one that does not build stops the
// import, every one named at once.
func reviewedProfiles(p *Previous) (map[string]argprofile.Draft, error) {
	out := map[string]argprofile.Draft{}
	if p == nil {
		return out, nil
	}
	var errs []string
	for i, d := range p.Registry.Spec.Definitions {
		if d.Arguments == nil {
			continue
		}
		var dr argprofile.Draft
		if err := yaml.UnmarshalStrict(d.Arguments.Raw, &dr); err != nil {
			errs = append(errs, fmt.Sprintf("spec.definitions[%d].arguments: not a profile (unknown field, duplicate key or wrong type)", i))
			continue
		}
		if _, err := argprofile.New(dr); err != nil {
			errs = append(errs, fmt.Sprintf("spec.definitions[%d].arguments: %v", i, err))
			continue
		}
		out[string(d.ToolID)+"@"+string(d.Version)] = dr
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("previous registry: %s", strings.Join(errs, "; "))
	}
	return out, nil
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
// With a profile, the definition carries it as arguments and is bound to
// it: docRef is Profile.DocRef() and the Schema is Profile.Schema().
func definition(t Tool, toolID, version string, root schema.Draft, profile *argprofile.Profile, draft argprofile.Draft) (v1alpha1.ToolDefinition, error) {
	id := strings.ReplaceAll(toolID, ".", "-") + "-" + version
	if profile != nil {
		root = profile.Schema()
	}
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
	if profile != nil {
		if err := Bind(&d, draft); err != nil {
			return v1alpha1.ToolDefinition{}, err
		}
	}
	check := &v1alpha1.ToolRegistry{Spec: v1alpha1.ToolRegistrySpec{SnapshotID: "check", SnapshotGeneration: "1", Definitions: []v1alpha1.ToolDefinition{d}}}
	check.Name = "check-1"
	if _, _, err := publication.ToolRegistry(check); err != nil {
		return d, fmt.Errorf("the definition does not publish: %s", strings.ReplaceAll(err.Error(), "engine: ", ""))
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
	if len(r.Unconfirmed) > 0 {
		b.WriteString("# Review it before publishing: every line marked '" + ConfirmMarker + "' is a suggestion: the\n")
		b.WriteString("# classifications are the most restrictive values (never read from the server's annotations), a\n")
		b.WriteString("# closed Schema's string field may be a resource identifier (kind: resourceID), and each choice of\n")
		b.WriteString("# an argument profile (arguments, docs/arguments.md) has its reason in the comments above. The\n")
		b.WriteString("# annotation " + UnconfirmedAnnotation + " lists every suggestion as 'ID FIELD [POINTER]';\n")
		b.WriteString("# confirm or change each, then remove its line (and the annotation once empty): `toolgate validate -f`\n")
		b.WriteString("# refuses the draft until then, reporting each listed suggestion at its path. A changed profile\n")
		b.WriteString("# changes docRef and schema.root: `toolgate registry bind` rewrites them.\n")
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
		for _, line := range markDefinition(strings.Split(strings.TrimRight(string(dy), "\n"), "\n"), unconfirmed) {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.Bytes(), nil
}

// markDefinition appends ConfirmMarker to the suggested lines of one
// definition's YAML (a one-element list): the classifications, a closed
// Schema's string kinds, and the judgments of its profile (arguments).
func markDefinition(lines []string, unconfirmed bool) []string {
	if !unconfirmed {
		return lines
	}
	// A profiled definition's Schema is the profile's: its choices are
	// reviewed in arguments (resource: true makes a resourceID).
	profiled := slices.ContainsFunc(lines, func(l string) bool { return strings.TrimLeft(l, "- ") == "arguments:" })
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], "- ")
		indent := len(lines[i]) - len(trimmed)
		if trimmed == "arguments:" {
			end := i + 1
			for end < len(lines) && len(lines[end])-len(strings.TrimLeft(lines[end], " ")) > indent {
				end++
			}
			marked := strings.Split(strings.TrimRight(string(markJudgment([]byte(strings.Join(lines[i+1:end], "\n")))), "\n"), "\n")
			copy(lines[i+1:end], marked)
			i = end - 1
			continue
		}
		if strings.HasPrefix(trimmed, "risk: ") || strings.HasPrefix(trimmed, "sideEffect: ") ||
			strings.HasPrefix(trimmed, "reversibility: ") || trimmed == "capabilities:" || !profiled && trimmed == "kind: string" {
			lines[i] += "  " + ConfirmMarker
		}
	}
	return lines
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
// refusals. The tool imports with its proposed profile when that is
// accepted, otherwise with its closed Schema when that converts (its
// arguments are protocol arguments); it returns the profile the draft
// holds for it (the reviewed one when the definition carries over).
func (r *Result) add(t Tool, pp ProfileProposal, o Options, prevByName map[string]mcpgate.ToolMapping, prevDefs map[string]v1alpha1.ToolDefinition) ProfileProposal {
	def := mcpgate.Definition{Description: t.Description, InputSchema: t.InputSchema}
	digest, err := def.Digest()
	if err != nil {
		r.Refusals = append(r.Refusals, Finding{t.Name, "", "inputSchema " + err.Error()})
		return pp
	}
	seg := strings.ReplaceAll(strings.ToLower(t.Name), "_", "-")
	toolID := o.ToolPrefix + "." + seg
	split, splitOK := splitSegments(seg, strings.Count(o.ToolPrefix, ".")+1)
	if !toolSegment.MatchString(seg) && splitOK {
		// A name longer than one segment: its words, packed into
		// segments at '-' boundaries, name the tool (the mapping is the
		// rename table; the reviewer may choose another toolID).
		toolID, seg = o.ToolPrefix+"."+split, strings.SplitN(split, ".", 2)[0]
		if prev, had := prevByName[t.Name]; !had || prev.ToolID == "" {
			r.ToolIDs = append(r.ToolIDs, Finding{t.Name, "", "a name longer than one 32-octet toolID segment: its words packed into the segments " + split})
		}
	}
	profile, profiled := pp.Accepted()
	var (
		root           schema.Draft
		narrow, refuse []Finding
	)
	if !profiled {
		root, narrow, refuse = convert(t.Name, t.InputSchema)
	}
	if !toolSegment.MatchString(seg) {
		// Every refusal at once: the schema's too.
		refuse = append([]Finding{{t.Name, "", "the tool name has no protocol tool identifier segment (1–32 of a–z, 0–9, interior '-' after lower-casing and '_' to '-'); map it by hand"}}, refuse...)
	}
	if len(refuse) > 0 {
		r.Refusals = append(r.Refusals, refuse...)
		return pp
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
		// Unchanged: the reviewer's confirmed definition carries over,
		// with its profile (or without one).
		r.Registry.Spec.Definitions = append(r.Registry.Spec.Definitions, reviewed)
		pp = ProfileProposal{Tool: t.Name, reviewed: true}
		if reviewed.Arguments != nil {
			_ = yaml.Unmarshal(reviewed.Arguments.Raw, &pp.Draft) // reviewedProfiles read it strictly
		} else {
			pp.Refused = []Finding{{t.Name, "", "the reviewed definition carries no profile"}}
		}
	} else {
		d, err := definition(t, toolID, vs, root, profile, pp.Draft)
		if err != nil {
			r.Refusals = append(r.Refusals, Finding{t.Name, "", err.Error()})
			return pp
		}
		id := string(d.ID)
		r.unconfirmed[id] = true
		for _, f := range []string{manifest.ConfirmRisk, manifest.ConfirmSideEffect, manifest.ConfirmReversibility, manifest.ConfirmCapabilities} {
			r.Unconfirmed = append(r.Unconfirmed, manifest.Unconfirmed{Definition: id, Field: f})
		}
		if profiled {
			seenAt := map[string]bool{}
			for _, f := range pp.Reasons {
				r.notes[id] = append(r.notes[id], "chose "+pointer(f.Pointer)+": "+f.Reason)
				if !seenAt[f.Pointer] {
					seenAt[f.Pointer] = true
					r.Unconfirmed = append(r.Unconfirmed, manifest.Unconfirmed{Definition: id, Field: manifest.ConfirmArguments, Pointer: annotationSafe(f.Pointer)})
				}
			}
		} else {
			r.Narrowings = append(r.Narrowings, narrow...)
			for _, n := range narrow {
				r.notes[id] = append(r.notes[id], "narrowed "+pointer(n.Pointer)+": "+n.Reason)
			}
			for _, f := range pp.Refused {
				r.notes[id] = append(r.notes[id], "no profile "+pointer(f.Pointer)+": "+f.Reason)
			}
			if hasString(root) {
				r.Unconfirmed = append(r.Unconfirmed, manifest.Unconfirmed{Definition: id, Field: manifest.ConfirmSchema})
			}
		}
		r.Registry.Spec.Definitions = append(r.Registry.Spec.Definitions, d)
	}
	m := mcpgate.ToolMapping{
		Name: t.Name, ToolID: toolID, Version: vs,
		Definition: def, DefinitionDigest: digest,
	}
	// The gateway checks Mcp-Param headers against the same profile.
	if d := r.Registry.Spec.Definitions[len(r.Registry.Spec.Definitions)-1]; d.Arguments != nil {
		m.Arguments = slices.Clone(d.Arguments.Raw)
	}
	r.Gateway.Tools = append(r.Gateway.Tools, m)
	return pp
}

// hasString reports whether a closed Schema has a string field (which may
// be a resource identifier).
func hasString(d schema.Draft) bool {
	if d.Kind == "string" {
		return true
	}
	if d.Items != nil && hasString(*d.Items) {
		return true
	}
	return slices.ContainsFunc(d.Fields, func(f schema.FieldDraft) bool { return hasString(f.Type) })
}

// annotationSafe keeps an annotation line one line: a pointer of the
// server's with a control character is shown with '?' in its place.
func annotationSafe(p string) string { return commentSafe(p) }

// splitSegments packs the '-'-separated words of seg into toolID segments
// of at most 32 octets, in order, joined by '.'; ok is false when a word
// alone is longer than a segment, a word is empty, or the toolID (with its
// prefix of prefixSegments segments) would exceed 8 segments or 128 octets
// (Sections 39 and 49).
func splitSegments(seg string, prefixSegments int) (string, bool) {
	var segs []string
	cur := ""
	for w := range strings.SplitSeq(seg, "-") {
		switch {
		case w == "" || len(w) > 32:
			return "", false
		case cur == "":
			cur = w
		case len(cur)+1+len(w) <= 32:
			cur += "-" + w
		default:
			segs, cur = append(segs, cur), w
		}
	}
	segs = append(segs, cur)
	out := strings.Join(segs, ".")
	if prefixSegments+len(segs) > 8 || len(out) > 128 {
		return "", false
	}
	for _, s := range segs {
		if !toolSegment.MatchString(s) {
			return "", false
		}
	}
	return out, true
}
