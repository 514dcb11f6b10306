package mcpimport

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/argprofile"
)

// ProfileProposal is the argument profile (docs/arguments.md) the importer
// proposes for one tool: a choice for every node of its inputSchema, the
// reason for each choice that needed judgment, and every construct it
// cannot map (each refusal at its pointer). Draft is usable only when
// Refused is empty; a reviewer confirms or edits it like the ToolRegistry
// draft.
type ProfileProposal struct {
	Tool    string // the MCP tool name
	Draft   argprofile.Draft
	Reasons []Finding
	Refused []Finding
	// reviewed marks a profile carried over from the previous import:
	// it is rendered without ConfirmMarker.
	reviewed bool
}

// Reasons of the proposer: constant text plus keyword names, never a
// value of the server's schema.
const (
	ProposeRename      = "member renamed to a protocol field name; the forwarded call keeps the server's name"
	ProposeCaseRename  = "enumeration values renamed to protocol case tokens"
	ProposeDigest      = "free text: bound as its SHA-256 and length (policy may bound the length, never read it); choose string to let policy compare printable ASCII"
	ProposeEscaped     = "short text: bound in the injective escaping, which policy may compare; choose string for printable ASCII only"
	ProposeDecimal     = "number: a decimal at scale 2 (more fraction digits refuse, never round); the scale is the reviewer's choice"
	ProposeMultipleOf  = "number with multipleOf 10^-k: a decimal at scale k"
	ProposeNullable    = "nullable: a union whose null alternative is its tag alone"
	ProposeUnion       = "alternatives of differing JSON kinds: a union tagged by the kind"
	ProposeJSONOpen    = "open object: bound as the digest of its RFC 8785 form"
	ProposeJSONUnion   = "alternatives of one JSON kind cannot be told apart by kind: bound as a digest"
	ProposeJSONArray   = "array with uniqueItems or more than 64 elements: bound as a digest"
	ProposeArrayBound  = "array bounded to the protocol's 64 elements"
	ProposeHeader      = "x-mcp-header: the gateway checks the Mcp-Param header against the body"
	ProposeAnnotation  = "format is an annotation here (not asserted): not enforced"
	ProposeJSONCycle   = "$ref cycle: a recursive value is bound as a digest"
	ProposeUnsigned    = "integer with minimum 0: unsignedInteger"
	ProposeExclusive   = "exclusive integer bound: the inclusive bound next to it"
	ProposeDefaultSkip = "default not applied: an absent optional argument stays absent"
)

// ProposeProfile proposes the argument profile of one tool from its
// inputSchema. It never widens: a constraint it cannot carry into the
// profile refuses the node.
func ProposeProfile(tool string, inputSchema []byte) ProfileProposal {
	pr := &proposer{tool: tool}
	m, err := decodeSchema(inputSchema)
	if err != nil {
		pr.refused("", err.Error())
		return ProfileProposal{Tool: tool, Refused: pr.refuse}
	}
	pr.root = m
	if m["type"] != "object" {
		pr.refused("/type", `the root must be "type": "object"`)
		return ProfileProposal{Tool: tool, Refused: pr.refuse}
	}
	root := pr.node(m, "")
	if root.Choice != "object" {
		pr.refused("", "the arguments are an open object: a profile maps declared members only")
		return ProfileProposal{Tool: tool, Refused: pr.refuse}
	}
	d := argprofile.Draft{Profile: argprofile.Version, Tool: tool, Arguments: root}
	if len(pr.refuse) == 0 {
		if _, err := argprofile.New(d); err != nil {
			pr.refused("", "the proposed profile is invalid: "+err.Error())
		}
	}
	return ProfileProposal{Tool: tool, Draft: d, Reasons: pr.reasons, Refused: pr.refuse}
}

type proposer struct {
	tool    string
	root    map[string]any
	reasons []Finding
	refuse  []Finding
	inRef   []string
}

func (p *proposer) reason(ptr, r string)  { p.reasons = append(p.reasons, Finding{p.tool, ptr, r}) }
func (p *proposer) refused(ptr, r string) { p.refuse = append(p.refuse, Finding{p.tool, ptr, r}) }

// keywords each JSON type's node may carry into the profile.
var proposable = map[string][]string{
	"object":  {"type", "properties", "required", "additionalProperties"},
	"string":  {"type", "enum", "maxLength", "minLength", "pattern", "format", "const"},
	"integer": {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "const"},
	"number":  {"type", "minimum", "maximum", "multipleOf", "const"},
	"boolean": {"type", "const"},
	"array":   {"type", "items", "maxItems", "minItems", "uniqueItems"},
	"null":    {"type"},
}

func (p *proposer) node(m map[string]any, ptr string) argprofile.NodeDraft {
	if _, ok := m["default"]; ok {
		p.reason(ptr+"/default", ProposeDefaultSkip)
	}
	if ref, ok := m["$ref"].(string); ok {
		return p.ref(ref, ptr)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			return p.alternatives(alts, ptr+"/"+k)
		}
	}
	switch t := m["type"].(type) {
	case string:
		return p.typed(m, t, ptr)
	case []any:
		var alts []any
		for _, x := range t {
			if s, ok := x.(string); ok {
				sub := map[string]any{}
				for k, v := range m {
					if k != "type" && slices.Contains(proposable[s], k) {
						sub[k] = v
					}
				}
				sub["type"] = s
				alts = append(alts, sub)
			}
		}
		if len(alts) == 1 {
			return p.node(alts[0].(map[string]any), ptr)
		}
		return p.alternatives(alts, ptr+"/type")
	}
	p.refused(ptr, "no type: a profile node needs one JSON kind, or alternatives")
	return argprofile.NodeDraft{Choice: "json"}
}

func (p *proposer) typed(m map[string]any, t, ptr string) argprofile.NodeDraft {
	kw, ok := proposable[t]
	if !ok {
		p.refused(ptr+"/type", "type "+t+" is not a JSON Schema type")
		return argprofile.NodeDraft{Choice: "json"}
	}
	for _, k := range sortedKeys(m) {
		if !annotationKeywords[k] && !slices.Contains(kw, k) && k != "x-mcp-header" && k != "$defs" && k != "definitions" {
			p.refused(ptr+"/"+escape(k), "keyword "+k+" is not understood for type "+t+"; dropping it could widen")
		}
	}
	switch t {
	case "object":
		return p.object(m, ptr)
	case "string":
		return p.str(m, ptr)
	case "integer", "number":
		return p.number(m, t, ptr)
	case "boolean":
		n := argprofile.NodeDraft{Choice: "bool"}
		n.Const = p.constant(m)
		return n
	case "array":
		return p.array(m, ptr)
	}
	p.refused(ptr, "a field that can only be null carries nothing to map")
	return argprofile.NodeDraft{Choice: "json"}
}

func (p *proposer) constant(m map[string]any) json.RawMessage {
	c, ok := m["const"]
	if !ok {
		return nil
	}
	b, _ := json.Marshal(c)
	return b
}

// protocolName proposes a lower-token for a member name or enumeration
// value: camelCase and snake_case words joined by '-' (entityType →
// entity-type, max_results → max-results).
func protocolName(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			prevLower = true
		default:
			b.WriteByte('-')
			prevLower = false
		}
	}
	out := strings.Trim(b.String(), "-")
	for strings.Contains(out, "--") {
		out = strings.ReplaceAll(out, "--", "-")
	}
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "-")
	}
	return out
}

func (p *proposer) object(m map[string]any, ptr string) argprofile.NodeDraft {
	props, _ := m["properties"].(map[string]any)
	if ap, ok := m["additionalProperties"]; len(props) == 0 && (!ok || ap != false) {
		p.reason(ptr, ProposeJSONOpen)
		return argprofile.NodeDraft{Choice: "json"}
	}
	required := map[string]bool{}
	if list, ok := m["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				if _, declared := props[s]; !declared {
					p.refused(ptr+"/required", "a required member is not in properties")
				}
				required[s] = true
			}
		}
	}
	n := argprofile.NodeDraft{Choice: "object", Members: []argprofile.MemberDraft{}}
	fields := map[string]bool{}
	for _, name := range sortedKeys(props) {
		sub, _ := props[name].(map[string]any)
		mp := ptr + "/properties/" + escape(name)
		if sub == nil {
			p.refused(mp, "a property schema is not an object")
			continue
		}
		field := protocolName(name)
		switch {
		case field == "":
			p.refused(mp, "the member name has no letters or digits to propose a field name from")
			p.node(sub, mp) // every refusal at once: inside the member too
			continue
		case fields[field]:
			p.refused(mp, "the proposed field name collides with another member's: rename one")
			p.node(sub, mp)
			continue
		case field != name:
			p.reason(mp, ProposeRename)
		}
		fields[field] = true
		md := argprofile.MemberDraft{JSON: name, Field: field, Required: required[name], Value: p.node(sub, mp)}
		if h, ok := sub["x-mcp-header"].(string); ok {
			md.Header = h
			p.reason(mp+"/x-mcp-header", ProposeHeader)
		}
		n.Members = append(n.Members, md)
	}
	return n
}

func intAt(m map[string]any, k string) *int {
	n, ok := m[k].(json.Number)
	if !ok {
		return nil
	}
	v, err := strconv.Atoi(n.String())
	if err != nil {
		return nil
	}
	return &v
}

func (p *proposer) str(m map[string]any, ptr string) argprofile.NodeDraft {
	if list, ok := m["enum"].([]any); ok {
		n := argprofile.NodeDraft{Choice: "enum"}
		seen := map[string]bool{}
		renamed := false
		for _, v := range list {
			s, ok := v.(string)
			tok := protocolName(s)
			if !ok || tok == "" || seen[tok] {
				p.refused(ptr+"/enum", "an enumeration value has no distinct protocol case token to propose")
				return n
			}
			seen[tok] = true
			renamed = renamed || tok != s
			n.Cases = append(n.Cases, argprofile.CaseDraft{JSON: s, Case: tok})
		}
		if renamed {
			p.reason(ptr+"/enum", ProposeCaseRename)
		}
		return n
	}
	n := argprofile.NodeDraft{Choice: "text", Bind: "digest", MinLength: intAt(m, "minLength"), MaxLength: intAt(m, "maxLength")}
	if f, ok := m["format"].(string); ok {
		if f == "date" || f == "uuid" {
			n.Choice, n.Bind, n.Format = "string", "", f // ASCII by format
		} else {
			p.reason(ptr+"/format", ProposeAnnotation)
		}
	}
	if pat, ok := m["pattern"].(string); ok {
		n.Pattern = pat // New checks the dialect; outside it the tool is refused
	}
	n.Const = p.constant(m)
	switch {
	case n.Choice == "string":
	case n.MaxLength != nil && *n.MaxLength <= 100:
		n.Bind = "escaped"
		p.reason(ptr, ProposeEscaped)
	default:
		p.reason(ptr, ProposeDigest)
	}
	return n
}

func (p *proposer) number(m map[string]any, t, ptr string) argprofile.NodeDraft {
	n := argprofile.NodeDraft{Choice: "integer"}
	if t == "number" {
		scale := 2
		n.Choice = "decimal"
		if mo, ok := m["multipleOf"].(json.Number); ok {
			s := mo.String()
			k := strings.TrimPrefix(s, "0.")
			if s == "1" {
				scale = 0
			} else if k != s && strings.TrimLeft(k, "0") == "1" {
				scale = len(k)
			} else {
				p.refused(ptr+"/multipleOf", "multipleOf other than a power of ten cannot be held")
			}
			p.reason(ptr+"/multipleOf", ProposeMultipleOf)
		} else {
			p.reason(ptr, ProposeDecimal)
		}
		n.Scale = &scale
	}
	for _, k := range []string{"minimum", "maximum"} {
		if v, ok := m[k].(json.Number); ok {
			d := argprofile.DecimalText(v.String())
			if k == "minimum" {
				n.Minimum = &d
			} else {
				n.Maximum = &d
			}
		}
	}
	// An exclusive integer bound is the inclusive one next to it.
	for k, step := range map[string]int64{"exclusiveMinimum": 1, "exclusiveMaximum": -1} {
		v, ok := m[k].(json.Number)
		if !ok {
			continue
		}
		b, ok := new(big.Int).SetString(v.String(), 10)
		if !ok || (n.Minimum != nil && step > 0) || (n.Maximum != nil && step < 0) {
			p.refused(ptr+"/"+k, k+" beside its inclusive form, or not an integer, cannot be held")
			continue
		}
		d := argprofile.DecimalText(b.Add(b, big.NewInt(step)).String())
		if step > 0 {
			n.Minimum = &d
		} else {
			n.Maximum = &d
		}
		p.reason(ptr+"/"+k, ProposeExclusive)
	}
	if n.Minimum != nil && strings.TrimLeft(string(*n.Minimum), "0.") == "" {
		n.Unsigned = true
		p.reason(ptr+"/minimum", ProposeUnsigned)
	}
	n.Const = p.constant(m)
	return n
}

func (p *proposer) array(m map[string]any, ptr string) argprofile.NodeDraft {
	items, _ := m["items"].(map[string]any)
	max := intAt(m, "maxItems")
	if m["uniqueItems"] == true || max != nil && *max > 64 {
		p.reason(ptr, ProposeJSONArray)
		return argprofile.NodeDraft{Choice: "json"}
	}
	if items == nil {
		p.refused(ptr+"/items", "an array needs one item schema")
		return argprofile.NodeDraft{Choice: "json"}
	}
	if max == nil {
		p.reason(ptr, ProposeArrayBound)
	}
	it := p.node(items, ptr+"/items")
	return argprofile.NodeDraft{Choice: "array", Items: &it, MinItems: intAt(m, "minItems"), MaxItems: max}
}

// whenOf is the union kind an alternative's type takes.
var whenOf = map[string]string{"null": "null", "boolean": "bool", "integer": "integer", "number": "number",
	"string": "string", "array": "array", "object": "object"}

func (p *proposer) alternatives(alts []any, ptr string) argprofile.NodeDraft {
	n := argprofile.NodeDraft{Choice: "union"}
	numbers, nullable := false, false
	reasons := len(p.reasons) // an abandoned alternative's reasons are not the proposal's
	for i, a := range alts {
		m, _ := a.(map[string]any)
		t, _ := m["type"].(string)
		when, ok := whenOf[t]
		if m == nil || !ok || (numbers && (t == "integer" || t == "number")) || slices.ContainsFunc(n.Alternatives, func(x argprofile.AlternativeDraft) bool { return x.When == when }) {
			p.reasons = p.reasons[:reasons]
			p.reason(ptr, ProposeJSONUnion)
			return argprofile.NodeDraft{Choice: "json"}
		}
		numbers = numbers || t == "integer" || t == "number"
		alt := argprofile.AlternativeDraft{When: when, Tag: when}
		if t == "null" {
			nullable = true
			alt.Tag = "none"
		} else {
			v := p.node(m, ptr+"/"+strconv.Itoa(i))
			alt.Value = &v
		}
		n.Alternatives = append(n.Alternatives, alt)
	}
	if nullable && len(n.Alternatives) == 2 {
		p.reason(ptr, ProposeNullable)
	} else {
		p.reason(ptr, ProposeUnion)
	}
	return n
}

func (p *proposer) ref(ref, ptr string) argprofile.NodeDraft {
	target := resolveRef(p.root, ref)
	if target == nil {
		p.refused(ptr+"/$ref", "only a local reference into $defs or definitions can be resolved")
		return argprofile.NodeDraft{Choice: "json"}
	}
	if slices.Contains(p.inRef, ref) {
		p.reason(ptr+"/$ref", ProposeJSONCycle)
		return argprofile.NodeDraft{Choice: "json"}
	}
	p.inRef = append(p.inRef, ref)
	defer func() { p.inRef = p.inRef[:len(p.inRef)-1] }()
	return p.node(target, ptr)
}

// YAML renders the proposed profile in the strict form argprofile.Parse
// reads, for a pull request.
func (pp ProfileProposal) YAML() ([]byte, error) { return yaml.Marshal(pp.Draft) }
