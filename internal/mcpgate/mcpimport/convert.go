package mcpimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/schema"
)

// Finding is one narrowing or refusal at a JSON pointer into a tool's
// inputSchema. Reasons are constant text plus keyword names: never a value
// of the server's schema.
type Finding struct {
	Tool    string
	Pointer string
	Reason  string
}

func (f Finding) String() string {
	p := f.Pointer
	if p == "" {
		p = "(root)"
	}
	return f.Tool + " " + p + ": " + f.Reason
}

// Narrowing reasons.
const (
	NarrowClosed   = "object closed: members not declared in properties reject"
	NarrowString   = "string bounded to the protocol's 1024 octets"
	NarrowASCII    = "string narrowed to printable ASCII (0x20–0x7E): any other character rejects"
	NarrowSigned   = "integer bounded to the protocol's signed 64-bit range"
	NarrowUnsigned = "integer with minimum 0 bounded to the protocol's unsigned 64-bit range"
	NarrowNumber   = "number read as integer: a fraction rejects"
	NarrowArray    = "array bounded to the protocol's 64 elements"
	NarrowDefault  = "default not applied: an absent optional argument stays absent (the server may apply its own default)"
)

// lowerToken is the protocol's lower-token(64): field names and cases.
var lowerToken = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// annotationKeywords change no validation outcome, so dropping them neither
// widens nor narrows; default is reported separately.
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "examples": true, "$schema": true,
	"$comment": true, "deprecated": true, "default": true,
}

// allowed lists the constraint keywords understood per type; any other
// keyword refuses the tool (a keyword not understood may be a constraint,
// and dropping a constraint widens).
var allowed = map[string][]string{
	"object":  {"type", "properties", "required", "additionalProperties"},
	"string":  {"type", "enum", "maxLength", "minLength", "pattern", "format"},
	"integer": {"type", "minimum", "maximum"},
	"number":  {"type", "minimum", "maximum"},
	"boolean": {"type"},
	"array":   {"type", "items", "maxItems", "minItems"},
}

var (
	int64Min  = big.NewFloat(math.MinInt64)
	int64Max  = new(big.Float).SetInt64(math.MaxInt64)
	uint64Max = new(big.Float).SetUint64(math.MaxUint64)
)

// converter turns one tool's inputSchema into a closed Schema draft,
// collecting every narrowing and refusal (it does not stop at the first).
type converter struct {
	tool    string
	root    map[string]any
	narrow  []Finding
	refuse  []Finding
	inRef   []string // $ref targets being expanded, for cycles
	noNotes bool     // inside an anyOf alternative: the caller records once
}

func (c *converter) narrowed(ptr, reason string) {
	if !c.noNotes {
		c.narrow = append(c.narrow, Finding{c.tool, ptr, reason})
	}
}

func (c *converter) refused(ptr, reason string) {
	c.refuse = append(c.refuse, Finding{c.tool, ptr, reason})
}

// decodeSchema reads an inputSchema keeping numbers exact.
func decodeSchema(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errors.New("inputSchema is not a JSON object")
	}
	return m, nil
}

// convert converts the root; the root must be an object.
func convert(tool string, raw []byte) (schema.Draft, []Finding, []Finding) {
	c := &converter{tool: tool}
	m, err := decodeSchema(raw)
	if err != nil {
		c.refused("", err.Error())
		return schema.Draft{}, nil, c.refuse
	}
	c.root = m
	if m["type"] != "object" {
		c.refused("/type", `the root must be "type": "object"`)
		return schema.Draft{}, c.narrow, c.refuse
	}
	d := c.node(m, "", true)
	return d, c.narrow, c.refuse
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func (c *converter) node(m map[string]any, ptr string, root bool) schema.Draft {
	if _, ok := m["default"]; ok {
		c.narrowed(ptr+"/default", NarrowDefault)
	}
	if ref, ok := m["$ref"]; ok {
		return c.ref(m, ref, ptr)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k]; ok {
			return c.alternatives(m, k, alts, ptr)
		}
	}
	t, ok := m["type"].(string)
	if !ok {
		if _, present := m["type"]; present {
			c.refused(ptr+"/type", "a list of types (or a non-string type) has differing shapes; the closed Schema has one kind per node")
		} else {
			unknown := false
			for _, k := range sortedKeys(m) {
				if !annotationKeywords[k] {
					unknown = true
					c.refused(ptr+"/"+escape(k), "keyword "+k+" is not understood; dropping it could widen")
				}
			}
			if !unknown {
				c.refused(ptr, "no type: the closed Schema needs one kind per node")
			}
		}
		return schema.Draft{}
	}
	kw, known := allowed[t]
	if !known {
		c.refused(ptr+"/type", "type "+t+" has no closed-Schema kind")
		return schema.Draft{}
	}
	for _, k := range sortedKeys(m) {
		if annotationKeywords[k] || slices.Contains(kw, k) || (root && (k == "$defs" || k == "definitions")) {
			continue
		}
		c.refused(ptr+"/"+escape(k), "keyword "+k+" is not understood for type "+t+"; dropping it could widen")
	}
	switch t {
	case "object":
		return c.object(m, ptr)
	case "string":
		return c.str(m, ptr)
	case "integer", "number":
		return c.integer(m, ptr, t == "number")
	case "boolean":
		return schema.Draft{Kind: "bool"}
	default: // array
		return c.array(m, ptr)
	}
}

func (c *converter) object(m map[string]any, ptr string) schema.Draft {
	switch ap, ok := m["additionalProperties"]; {
	case !ok, ap == true:
		c.narrowed(ptr, NarrowClosed)
	case ap == false:
	default:
		c.narrowed(ptr+"/additionalProperties", NarrowClosed)
	}
	props, isObj := m["properties"].(map[string]any)
	if _, ok := m["properties"]; ok && !isObj {
		c.refused(ptr+"/properties", "properties is not an object")
	}
	required := map[string]bool{}
	if r, ok := m["required"]; ok {
		list, isList := r.([]any)
		if !isList {
			c.refused(ptr+"/required", "required is not a list of names")
		}
		for i, n := range list {
			name, isStr := n.(string)
			if _, declared := props[name]; !isStr || !declared {
				c.refused(ptr+"/required/"+itoa(i), "a required member not declared in properties cannot be expressed")
				continue
			}
			required[name] = true
		}
	}
	d := schema.Draft{Kind: "object", Fields: []schema.FieldDraft{}}
	for _, name := range sortedKeys(props) {
		fp := ptr + "/properties/" + escape(name)
		sub, ok := props[name].(map[string]any)
		if !lowerToken.MatchString(name) {
			c.refused(fp, "member name is not a protocol field name (1–64 of a–z, 0–9, interior '-'); renaming would change the call")
			if ok {
				c.node(sub, fp, false) // every refusal at once: inside the member too
			}
			continue
		}
		if !ok {
			c.refused(fp, "a boolean or non-object schema has no closed-Schema kind")
			continue
		}
		req := "optional"
		if required[name] {
			req = "required"
		}
		d.Fields = append(d.Fields, schema.FieldDraft{Name: name, Requirement: req, Type: c.node(sub, fp, false)})
	}
	return d
}

func (c *converter) str(m map[string]any, ptr string) schema.Draft {
	if _, ok := m["pattern"]; ok {
		c.refused(ptr+"/pattern", "pattern cannot be expressed in the closed Schema; dropping it would widen")
	}
	if _, ok := m["format"]; ok {
		c.refused(ptr+"/format", "format constrains or changes the meaning of the string; the closed Schema cannot express it")
	}
	if n, ok := m["minLength"]; ok && !isZero(n) {
		c.refused(ptr+"/minLength", "a minimum length cannot be expressed; dropping it would widen")
	}
	if e, ok := m["enum"]; ok {
		cases, isList := e.([]any)
		d := schema.Draft{Kind: "enumeration"}
		for i, v := range cases {
			s, isStr := v.(string)
			if !isStr || !lowerToken.MatchString(s) || slices.Contains(d.Cases, s) {
				c.refused(ptr+"/enum/"+itoa(i), "an enumeration case must be a unique protocol case token (1–64 of a–z, 0–9, interior '-')")
				continue
			}
			d.Cases = append(d.Cases, s)
		}
		if !isList || len(cases) == 0 || len(cases) > schema.MaxCases {
			c.refused(ptr+"/enum", "an enumeration has 1–64 cases")
		}
		return d
	}
	c.narrowed(ptr, NarrowASCII)
	if n, ok := m["maxLength"]; ok {
		// maxLength counts characters, the protocol octets: a bound of at
		// least 1024 characters is narrowed to 1024 octets; a smaller one
		// cannot be expressed.
		if !atLeast(n, big.NewFloat(schema.MaxStringLen)) {
			c.refused(ptr+"/maxLength", "a maximum length below the protocol's 1024 octets cannot be expressed; dropping it would widen")
			return schema.Draft{Kind: "string"}
		}
		c.narrowed(ptr+"/maxLength", NarrowString)
		return schema.Draft{Kind: "string"}
	}
	c.narrowed(ptr, NarrowString)
	return schema.Draft{Kind: "string"}
}

func (c *converter) integer(m map[string]any, ptr string, number bool) schema.Draft {
	if number {
		c.narrowed(ptr+"/type", NarrowNumber)
	}
	kind, max := "signedInteger", int64Max
	if lo, ok := m["minimum"]; ok {
		switch {
		case isZero(lo):
			kind, max = "unsignedInteger", uint64Max
		case !atMost(lo, int64Min):
			c.refused(ptr+"/minimum", "a minimum other than 0 or the protocol's signed 64-bit bound cannot be expressed; dropping it would widen")
		}
	}
	if hi, ok := m["maximum"]; ok && !atLeast(hi, max) {
		c.refused(ptr+"/maximum", "a maximum below the protocol's 64-bit bound cannot be expressed; dropping it would widen")
	}
	if kind == "unsignedInteger" {
		c.narrowed(ptr, NarrowUnsigned)
	} else {
		c.narrowed(ptr, NarrowSigned)
	}
	return schema.Draft{Kind: kind}
}

func (c *converter) array(m map[string]any, ptr string) schema.Draft {
	if n, ok := m["minItems"]; ok && !isZero(n) {
		c.refused(ptr+"/minItems", "a minimum element count cannot be expressed; dropping it would widen")
	}
	if n, ok := m["maxItems"]; ok {
		if !atLeast(n, big.NewFloat(schema.MaxElements)) {
			c.refused(ptr+"/maxItems", "a maximum element count below the protocol's 64 cannot be expressed; dropping it would widen")
		} else {
			c.narrowed(ptr+"/maxItems", NarrowArray)
		}
	} else {
		c.narrowed(ptr, NarrowArray)
	}
	items, ok := m["items"].(map[string]any)
	if !ok {
		c.refused(ptr+"/items", "an array needs one item schema (an object)")
		return schema.Draft{Kind: "array", Items: &schema.Draft{}}
	}
	it := c.node(items, ptr+"/items", false)
	return schema.Draft{Kind: "array", Items: &it}
}

// ref expands a local $ref into $defs or definitions; a cycle refuses, as
// the closed Schema is a finite tree.
func (c *converter) ref(m map[string]any, ref any, ptr string) schema.Draft {
	for _, k := range sortedKeys(m) {
		if k != "$ref" && !annotationKeywords[k] {
			c.refused(ptr+"/"+escape(k), "keyword "+k+" beside $ref is not understood")
		}
	}
	s, _ := ref.(string)
	target := resolveRef(c.root, s)
	if target == nil {
		c.refused(ptr+"/$ref", "only a local reference into $defs or definitions can be resolved")
		return schema.Draft{}
	}
	if slices.Contains(c.inRef, s) {
		c.refused(ptr+"/$ref", "$ref cycle: a recursive schema has no finite closed Schema")
		return schema.Draft{}
	}
	c.inRef = append(c.inRef, s)
	defer func() { c.inRef = c.inRef[:len(c.inRef)-1] }()
	return c.node(target, ptr, false)
}

// alternatives accepts anyOf/oneOf only when every alternative converts to
// the same closed kind: then the union is that kind, and nothing widens.
func (c *converter) alternatives(m map[string]any, k string, alts any, ptr string) schema.Draft {
	for _, o := range sortedKeys(m) {
		if o != k && !annotationKeywords[o] {
			c.refused(ptr+"/"+escape(o), "keyword "+o+" beside "+k+" is not understood")
		}
	}
	list, _ := alts.([]any)
	if len(list) == 0 {
		c.refused(ptr+"/"+k, k+" needs at least one alternative")
		return schema.Draft{}
	}
	var first schema.Draft
	for i, a := range list {
		am, ok := a.(map[string]any)
		if !ok {
			c.refused(ptr+"/"+k+"/"+itoa(i), "an alternative must be a schema object")
			return schema.Draft{}
		}
		sub := &converter{tool: c.tool, root: c.root, inRef: c.inRef, noNotes: i > 0 || c.noNotes}
		d := sub.node(am, ptr+"/"+k+"/"+itoa(i), false)
		c.narrow = append(c.narrow, sub.narrow...)
		c.refuse = append(c.refuse, sub.refuse...)
		if i == 0 {
			first = d
		} else if !sameNode(first, d) {
			c.refused(ptr+"/"+k, k+" alternatives have differing shapes; the closed Schema has one kind per node")
			return schema.Draft{}
		}
	}
	return first
}

// resolveRef resolves a local reference into the root's $defs or
// definitions, or returns nil for any other reference.
func resolveRef(root map[string]any, ref string) map[string]any {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok && !strings.Contains(name, "/") {
			defs, _ := root[strings.Trim(prefix[1:], "/")].(map[string]any)
			target, _ := defs[strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")].(map[string]any)
			return target
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// number reads a JSON number exactly; anything else is NaN-like (nil).
func number(v any) *big.Float {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	if err != nil {
		return nil
	}
	return f
}

func isZero(v any) bool { f := number(v); return f != nil && f.Sign() == 0 }
func atLeast(v any, bound *big.Float) bool {
	f := number(v)
	return f != nil && f.Cmp(bound) >= 0
}
func atMost(v any, bound *big.Float) bool {
	f := number(v)
	return f != nil && f.Cmp(bound) <= 0
}

// sameNode compares two converted nodes by their JSON form.
func sameNode(a, b schema.Draft) bool {
	x, errA := json.Marshal(nodeOf(a))
	y, errB := json.Marshal(nodeOf(b))
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
