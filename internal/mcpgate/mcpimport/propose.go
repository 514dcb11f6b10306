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
	ProposeJSONOpen    = "open object: json of kind object, bound as the digest of its RFC 8785 form; its members are not checked: the upstream validates them"
	ProposeJSONUnion   = "alternatives of one JSON kind cannot be told apart by kind: json of the kinds they name, bound as a digest; the alternatives' own constraints are not checked: the upstream validates them"
	ProposeJSONArray   = "array with uniqueItems or more than 64 elements: json of kind array, bound as a digest; its items, uniqueItems, minItems and maxItems are not checked: the upstream validates them"
	ProposeJSONMembers = "the schema of the undeclared members is not checked by the json node: the upstream validates it"
	ProposeJSONReq     = "required members of an open object are not checked by the json node: the upstream validates them"
	ProposeJSONNoKind  = "json: the schema names no type here, so any JSON kind is taken (no kinds): the upstream validates it"
	ProposeArrayBound  = "array bounded to the protocol's 64 elements"
	ProposeHeader      = "x-mcp-header: the gateway checks the Mcp-Param header against the body"
	ProposeAnnotation  = "format is an annotation here (not asserted): not enforced"
	ProposeJSONCycle   = "$ref cycle: a recursive value is json of the kinds its type names, bound as a digest; its constraints are not checked: the upstream validates them"
	ProposeUnsigned    = "integer with minimum 0: unsignedInteger"
	ProposeExclusive   = "exclusive bound: the nearest value inside it at the node's scale"
	ProposeDefaultSkip = "default not applied: an absent optional argument stays absent"
	ProposeNoArguments = "no declared arguments: the trivial profile, which takes the empty object only"
	ProposeCaseByPlace = "enumeration values with no distinct protocol token of their own: named case-N by their place in the list (the JSON keeps the value); the reviewer may name them"
	ProposeBoolEnum    = "boolean enum: bool, with the one value as const"
	ProposeJSONAny     = "no type and no constraint: any JSON value of any kind (json with no kinds, as the schema), bound as a digest"
	ProposeIntFormat   = "integer format: its range as exact bounds"
	ProposeNames       = "propertyNames {type: string} holds for every member name: nothing to enforce"
	ProposeClosed      = "open object with declared members: closed to them (an undeclared member refuses); bind the whole object as json to take them"
	ProposeASCIIPat    = "pattern in the dialect ECMA-262 and RE2 agree on for printable ASCII only: string (printable ASCII, at most 1,024 octets)"
)

// intFormats are the integer formats (OpenAPI's and the common
// unsigned ones) whose range is exact.
var intFormats = map[string][2]string{
	"int8": {"-128", "127"}, "int16": {"-32768", "32767"}, "int32": {"-2147483648", "2147483647"},
	"int64": {"-9223372036854775808", "9223372036854775807"},
	"uint8": {"0", "255"}, "uint16": {"0", "65535"}, "uint32": {"0", "4294967295"}, "uint64": {"0", "18446744073709551615"},
}

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
	var root argprofile.NodeDraft
	if props, _ := m["properties"].(map[string]any); len(props) == 0 && (m["additionalProperties"] == nil || m["additionalProperties"] == false) {
		// A tool without arguments: the object with no members. Closing an
		// object that omits additionalProperties narrows (undeclared
		// members refuse), as it does for every declared object.
		root = pr.node(m, "")
		if req, _ := m["required"].([]any); len(req) > 0 {
			pr.refused("/required", "a required member is not in properties")
		}
		if len(pr.refuse) == 0 {
			root = argprofile.NodeDraft{Choice: "object", Members: []argprofile.MemberDraft{}}
			if m["additionalProperties"] == nil {
				pr.reasons = slices.DeleteFunc(pr.reasons, func(f Finding) bool { return f.Pointer == "" && f.Reason == ProposeJSONOpen })
				pr.reason("", ProposeNoArguments)
			}
		}
	} else {
		root = pr.node(m, "")
	}
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
	"object":  {"type", "properties", "required", "additionalProperties", "propertyNames"},
	"string":  {"type", "enum", "maxLength", "minLength", "pattern", "format", "const"},
	"integer": {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "format", "const"},
	"number":  {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const"},
	"boolean": {"type", "enum", "const"},
	"array":   {"type", "items", "maxItems", "minItems", "uniqueItems"},
	"null":    {"type"},
}

func (p *proposer) node(m map[string]any, ptr string) argprofile.NodeDraft {
	if _, ok := m["default"]; ok {
		p.reason(ptr+"/default", ProposeDefaultSkip)
	}
	if ref, ok := m["$ref"].(string); ok {
		for _, k := range sortedKeys(m) {
			// Beside $ref (JSON Schema 2019-09 on) a keyword applies too.
			if k != "$ref" && !annotationKeywords[k] && k != "$defs" && k != "definitions" {
				p.refused(ptr+"/"+escape(k), "keyword "+k+" beside $ref cannot be held; dropping it could widen")
			}
		}
		return p.ref(ref, ptr)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			for _, o := range sortedKeys(m) {
				// Beside the alternatives a keyword applies too; type is
				// held (the kinds, or each alternative within it).
				if o != k && o != "type" && !annotationKeywords[o] && o != "x-mcp-header" && o != "$defs" && o != "definitions" {
					p.refused(ptr+"/"+escape(o), "keyword "+o+" beside "+k+" cannot be held; dropping it could widen")
				}
			}
			return p.alternatives(alts, ptr+"/"+k, p.typeKinds(m))
		}
	}
	switch t := m["type"].(type) {
	case string:
		return p.typed(m, t, ptr)
	case []any:
		// A keyword no listed type takes would be lost in the split.
		for _, k := range sortedKeys(m) {
			if !annotationKeywords[k] && k != "type" && k != "x-mcp-header" && k != "$defs" && k != "definitions" &&
				!slices.ContainsFunc(t, func(x any) bool { s, _ := x.(string); return slices.Contains(proposable[s], k) }) {
				p.refused(ptr+"/"+escape(k), "keyword "+k+" is not understood for the listed types; dropping it could widen")
			}
		}
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
		return p.alternatives(alts, ptr+"/type", nil)
	}
	if !slices.ContainsFunc(sortedKeys(m), func(k string) bool { return !annotationKeywords[k] }) {
		p.reason(ptr, ProposeJSONAny)
		return argprofile.NodeDraft{Choice: "json"}
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
		return p.boolean(m, ptr)
	case "array":
		return p.array(m, ptr)
	}
	p.refused(ptr, "a field that can only be null carries nothing to map")
	return argprofile.NodeDraft{Choice: "json"}
}

// boolean is bool; an enum of booleans is its const (both values: no
// constraint).
func (p *proposer) boolean(m map[string]any, ptr string) argprofile.NodeDraft {
	n := argprofile.NodeDraft{Choice: "bool", Const: p.constant(m)}
	list, ok := m["enum"].([]any)
	if !ok {
		return n
	}
	vals := map[bool]bool{}
	for _, v := range list {
		b, ok := v.(bool)
		if !ok {
			p.refused(ptr+"/enum", "a boolean enum lists a value that is not a boolean")
			return n
		}
		vals[b] = true
	}
	switch {
	case len(vals) == 1 && n.Const == nil:
		n.Const = []byte(strconv.FormatBool(vals[true]))
		p.reason(ptr+"/enum", ProposeBoolEnum)
	case len(vals) == 2 && n.Const == nil:
	default:
		p.refused(ptr+"/enum", "a boolean enum with const, or with no value, cannot be held as one const")
	}
	return n
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
	if pn, ok := m["propertyNames"]; ok {
		if sub, _ := pn.(map[string]any); pn == true || sub != nil && onlyStringType(sub) {
			p.reason(ptr+"/propertyNames", ProposeNames)
		} else {
			p.refused(ptr+"/propertyNames", "propertyNames constrains the member names; dropping it could widen")
		}
	}
	props, _ := m["properties"].(map[string]any)
	if ap, ok := m["additionalProperties"]; len(props) == 0 && (!ok || ap != false) {
		p.reason(ptr, ProposeJSONOpen)
		// What an open object's schema says of its members is the
		// upstream's to check: each such keyword is named, never dropped
		// unseen.
		if sub, _ := ap.(map[string]any); sub != nil && slices.ContainsFunc(sortedKeys(sub), func(k string) bool { return !annotationKeywords[k] }) {
			p.reason(ptr+"/additionalProperties", ProposeJSONMembers)
		}
		if req, _ := m["required"].([]any); len(req) > 0 {
			p.reason(ptr+"/required", ProposeJSONReq)
		}
		return argprofile.NodeDraft{Choice: "json", Kinds: []string{"object"}}
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false {
		p.reason(ptr+"/additionalProperties", ProposeClosed)
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

// onlyStringType reports whether a schema says no more than "a string"
// (and annotations): what every member name is.
func onlyStringType(m map[string]any) bool {
	for k, v := range m {
		if !annotationKeywords[k] && (k != "type" || v != "string") {
			return false
		}
	}
	return true
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
		for _, k := range []string{"const", "format", "maxLength", "minLength", "pattern"} {
			if _, ok := m[k]; ok {
				// The cases would take a listed value this keyword refuses.
				p.refused(ptr+"/"+k, "keyword "+k+" beside enum cannot be held; dropping it could widen")
			}
		}
		return p.enum(list, ptr)
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
		n.Pattern = pat
		switch {
		case argprofile.ValidPattern(pat, n.Choice == "string"):
		case n.Choice == "text" && argprofile.ValidPattern(pat, true):
			n.Choice, n.Bind = "string", ""
			p.reason(ptr+"/pattern", ProposeASCIIPat)
		case len(pat) > argprofile.MaxPatternOctets:
			p.refused(ptr+"/pattern", "a pattern over 1,024 octets (the profile's limit) cannot be held; dropping it would widen")
		default:
			p.refused(ptr+"/pattern", "a pattern outside the dialect ECMA-262 and RE2 agree on, or over 1,024 program instructions (the profile's limit), cannot be held; dropping it would widen")
		}
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

// enum renames each value to its protocol token; the values whose token
// is empty or shared with another value are named by their place
// (case-1, …), so the rename stays one to one.
func (p *proposer) enum(list []any, ptr string) argprofile.NodeDraft {
	n := argprofile.NodeDraft{Choice: "enum"}
	toks, count, values := make([]string, len(list)), map[string]int{}, map[string]bool{}
	for i, v := range list {
		s, ok := v.(string)
		if !ok || values[s] {
			p.refused(ptr+"/enum", "an enumeration lists a value that is not a string, or one value twice")
			return n
		}
		values[s] = true
		toks[i] = protocolName(s)
		count[toks[i]]++
	}
	renamed, placed, seen := false, false, map[string]bool{}
	for i, v := range list {
		s := v.(string)
		tok := toks[i]
		if tok == "" || count[tok] > 1 {
			tok, placed = "case-"+strconv.Itoa(i+1), true
		}
		if seen[tok] {
			p.refused(ptr+"/enum", "an enumeration value's place token collides with another value's token: name them")
			return n
		}
		seen[tok] = true
		renamed = renamed || tok != s
		n.Cases = append(n.Cases, argprofile.CaseDraft{JSON: s, Case: tok})
	}
	switch {
	case placed:
		p.reason(ptr+"/enum", ProposeCaseByPlace)
	case renamed:
		p.reason(ptr+"/enum", ProposeCaseRename)
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
	p.bounds(m, t, ptr, &n)
	if n.Minimum != nil && strings.TrimLeft(string(*n.Minimum), "0.") == "" {
		n.Unsigned = true
		p.reason(ptr+"/minimum", ProposeUnsigned)
	}
	n.Const = p.constant(m)
	return n
}

// bounds sets the node's inclusive bounds: the tightest of minimum,
// maximum, an exclusive bound as the nearest value the node can hold
// inside it (at its scale: exclusiveMinimum 0 at scale 2 is 0.01), and an
// integer format's range. Each is exact, so nothing widens.
func (p *proposer) bounds(m map[string]any, t, ptr string, n *argprofile.NodeDraft) {
	scale := 0
	if n.Scale != nil {
		scale = *n.Scale
	}
	unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	var lo, hi *big.Rat
	tighten := func(v *big.Rat, low bool) {
		switch {
		case low && (lo == nil || v.Cmp(lo) > 0):
			lo = v
		case !low && (hi == nil || v.Cmp(hi) < 0):
			hi = v
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		v, ok := raw.(json.Number)
		r, exact := new(big.Rat), false
		if ok {
			_, exact = r.SetString(v.String())
		}
		if !exact {
			// A draft-04 boolean exclusiveMinimum too: never drop it.
			p.refused(ptr+"/"+k, k+" is not a number: it cannot be held")
			continue
		}
		low := k == "minimum" || k == "exclusiveMinimum"
		// The nearest value at the node's scale inside the bound.
		steps := new(big.Rat).Quo(r, unit)
		f := floorRat(steps)
		if !low {
			f = ceilRat(steps)
		}
		exclusive := strings.HasPrefix(k, "exclusive")
		if exclusive {
			p.reason(ptr+"/"+k, ProposeExclusive)
		}
		if exclusive || new(big.Rat).SetInt(f).Cmp(steps) != 0 {
			if low {
				f.Add(f, big.NewInt(1))
			} else {
				f.Sub(f, big.NewInt(1))
			}
		}
		tighten(new(big.Rat).Mul(new(big.Rat).SetInt(f), unit), low)
	}
	if f, ok := m["format"].(string); ok && t == "integer" {
		r, known := intFormats[f]
		if !known {
			p.refused(ptr+"/format", "integer format "+f+" has no exact range here; dropping it could widen")
		} else {
			a, _ := new(big.Rat).SetString(r[0])
			b, _ := new(big.Rat).SetString(r[1])
			tighten(a, true)
			tighten(b, false)
			p.reason(ptr+"/format", ProposeIntFormat)
		}
	}
	render := func(v *big.Rat) *argprofile.DecimalText {
		if v == nil {
			return nil
		}
		text := v.FloatString(scale) // exact: v is on the scale's grid
		if scale > 0 {
			text = strings.TrimSuffix(strings.TrimRight(text, "0"), ".")
		}
		d := argprofile.DecimalText(text)
		return &d
	}
	n.Minimum, n.Maximum = render(lo), render(hi)
}

// floorRat is ⌊r⌋: big.Int's Div is Euclidean, and a Rat's denominator
// is positive.
func floorRat(r *big.Rat) *big.Int { return new(big.Int).Div(r.Num(), r.Denom()) }

func ceilRat(r *big.Rat) *big.Int {
	q := floorRat(r)
	if new(big.Rat).SetInt(q).Cmp(r) != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func (p *proposer) array(m map[string]any, ptr string) argprofile.NodeDraft {
	items, _ := m["items"].(map[string]any)
	max := intAt(m, "maxItems")
	if m["uniqueItems"] == true || max != nil && *max > 64 {
		p.reason(ptr, ProposeJSONArray)
		return argprofile.NodeDraft{Choice: "json", Kinds: []string{"array"}}
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

// alternatives proposes a union of alternatives of differing JSON kinds,
// or json of the kinds they name; own is the kinds the type beside them
// names (nil: none), which every alternative must lie within.
func (p *proposer) alternatives(alts []any, ptr string, own []string) argprofile.NodeDraft {
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
			return p.jsonOf(ptr, intersectKinds(own, p.schemaKinds(map[string]any{"anyOf": alts}, nil)))
		}
		if own != nil && len(intersectKinds(own, []string{t})) == 0 {
			p.refused(ptr+"/"+strconv.Itoa(i), "an alternative of a kind the type beside it does not name cannot be held: the union would take it")
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
	target := resolvePointer(p.root, ref)
	if target == nil {
		p.refused(ptr+"/$ref", "only a local reference (a JSON pointer into this schema) can be resolved")
		return argprofile.NodeDraft{Choice: "json"}
	}
	if slices.Contains(p.inRef, ref) {
		p.reason(ptr+"/$ref", ProposeJSONCycle)
		return p.jsonOf(ptr, p.schemaKinds(target, nil))
	}
	p.inRef = append(p.inRef, ref)
	defer func() { p.inRef = p.inRef[:len(p.inRef)-1] }()
	return p.node(target, ptr)
}

// schemaKinds is the JSON kinds a schema's type keywords name: its type,
// the kinds of its anyOf or oneOf alternatives, a local $ref's target, the
// tighter where several apply. It is nil when a path names no type (any
// kind); refs guards a cycle.
func (p *proposer) schemaKinds(m map[string]any, refs []string) []string {
	own := p.typeKinds(m)
	if ref, ok := m["$ref"].(string); ok {
		target := resolvePointer(p.root, ref)
		if target == nil || slices.Contains(refs, ref) {
			return own
		}
		return intersectKinds(own, p.schemaKinds(target, append(refs, ref)))
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := m[k].([]any)
		if !ok {
			continue
		}
		var all []string
		for _, a := range alts {
			am, _ := a.(map[string]any)
			var ks []string
			if am != nil {
				ks = p.schemaKinds(am, refs)
			}
			if ks == nil {
				return own
			}
			for _, x := range ks {
				if !slices.Contains(all, x) {
					all = append(all, x)
				}
			}
		}
		return intersectKinds(own, all)
	}
	return own
}

// typeKinds is the kinds a schema's own type keyword names, nil without
// one.
func (p *proposer) typeKinds(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := []string{}
		for _, x := range t {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// intersectKinds is the kinds both lists take (nil takes any kind); an
// integer is a number too.
func intersectKinds(a, b []string) []string {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := []string{}
	for _, x := range a {
		for _, y := range b {
			k := ""
			switch {
			case x == y:
				k = x
			case x == "integer" && y == "number", x == "number" && y == "integer":
				k = "integer"
			}
			if k != "" && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// jsonOf is the json node of the given kinds, sorted; with none named
// (nil) it says so, and with none left it refuses.
func (p *proposer) jsonOf(ptr string, kinds []string) argprofile.NodeDraft {
	switch {
	case kinds == nil:
		p.reason(ptr, ProposeJSONNoKind)
		return argprofile.NodeDraft{Choice: "json"}
	case len(kinds) == 0:
		p.refused(ptr, "no JSON kind is named by both the type and the alternatives: nothing to take")
	}
	for _, k := range kinds {
		if _, ok := whenOf[k]; !ok {
			p.refused(ptr, "type "+k+" is not a JSON Schema type")
		}
	}
	return argprofile.NodeDraft{Choice: "json", Kinds: slices.Sorted(slices.Values(kinds))}
}

// resolvePointer resolves a local reference, a JSON pointer into the
// schema document (RFC 6901 in a URI fragment: "#/$defs/x",
// "#/properties/a"); anything else is nil.
func resolvePointer(root map[string]any, ref string) map[string]any {
	if ref == "#" {
		return root
	}
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok || strings.Contains(ref, "%") {
		return nil // a remote reference, or one percent-encoded (never guessed)
	}
	var cur any = root
	for _, seg := range strings.Split(rest, "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != seg {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// YAML renders the proposed profile in the strict form argprofile.Parse
// reads, for a pull request.
func (pp ProfileProposal) YAML() ([]byte, error) { return yaml.Marshal(pp.Draft) }
