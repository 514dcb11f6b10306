package argprofile

import (
	"encoding/hex"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/engine/digest"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// Choice is the closed set of node choices.
type Choice uint8

// Choices (docs/arguments.md, "The choices").
const (
	ChoiceString Choice = 1 + iota
	ChoiceText
	ChoiceInteger
	ChoiceDecimal
	ChoiceBool
	ChoiceEnum
	ChoiceArray
	ChoiceObject
	ChoiceUnion
	ChoiceJSON
)

var choiceTokens = []string{"", "string", "text", "integer", "decimal", "bool", "enum", "array", "object", "union", "json"}

func (c Choice) String() string {
	if int(c) < len(choiceTokens) {
		return choiceTokens[c]
	}
	return "Choice(" + strconv.Itoa(int(c)) + ")"
}

// Defaults and bounds of the profile's own limits (I4).
const (
	DefaultMaxOctets = 64 << 10
	MaxMaxOctets     = 1 << 20
	DefaultMaxDepth  = 16
	MaxMaxDepth      = 32
	MaxScale         = 18
)

// Field names of the digest and union representations.
const (
	fieldLength = "length"
	fieldSHA256 = "sha256"
	fieldTag    = "tag"
)

// Profile is one constructed, immutable argument profile. Build it with New
// or Parse; the zero Profile is not usable.
type Profile struct {
	tool      string
	maxOctets int
	maxDepth  int
	root      *node
	digest    digest.Digest
	schema    schema.Draft
}

type node struct {
	choice Choice

	resource       bool
	escaped        bool     // text: bind escaped (else digest)
	minLen, maxLen int      // -1: none
	maxOctets      int      // text, json
	kinds          []string // json: sorted JSON Schema type names; nil: any kind
	pattern        string
	re             *regexp.Regexp
	format         Format
	constant       *jsonexact.Value

	unsigned bool
	scale    int
	min, max *big.Int // scaled; nil: the 64-bit domain only

	cases []enumCase // by JSON string
	items *node

	minItems, maxItems int

	members []member       // by protocol field name (Section 50 order)
	byJSON  map[string]int // JSON name -> index in members

	alts   []alternative // by tag
	byKind map[jsonexact.Kind]int
}

type enumCase struct{ json, token string }

type member struct {
	json, field string
	required    bool
	header      string
	typ         *node
}

type alternative struct {
	when string
	tag  string
	typ  *node // nil for null
}

// Tool returns the MCP tool name the profile applies to.
func (p *Profile) Tool() string { return p.tool }

// Digest returns the digest of the complete normalized profile (I6): any
// change of any choice, name, bound, case or limit changes it.
func (p *Profile) Digest() digest.Digest { return p.digest }

// DocRef returns the documentation reference that binds the profile into
// its Tool Definition: "argprofile." and the first 52 hex digits (208
// bits) of Digest, a valid Section 49 documentation reference.
func (p *Profile) DocRef() string {
	return "argprofile." + hex.EncodeToString(p.digest[:])[:52]
}

// Schema returns the closed v1 Schema draft every output of Derive
// satisfies; New has checked it with schema.New (Section 39 bounds).
func (p *Profile) Schema() schema.Draft { return cloneDraft(p.schema) }

func cloneDraft(d schema.Draft) schema.Draft {
	out := schema.Draft{Kind: d.Kind, Cases: slices.Clone(d.Cases)}
	if d.Items != nil {
		it := cloneDraft(*d.Items)
		out.Items = &it
	}
	if d.Fields != nil {
		out.Fields = make([]schema.FieldDraft, len(d.Fields))
		for i, f := range d.Fields {
			out.Fields[i] = schema.FieldDraft{Name: f.Name, Requirement: f.Requirement, Type: cloneDraft(f.Type)}
		}
	}
	return out
}

// New validates a draft and builds the Profile, or rejects it with every
// error at once (Errors), each at its path in the draft.
func New(d Draft) (*Profile, error) {
	c := compiler{headers: map[string]bool{}}
	if d.Profile != Version {
		c.bad("profile", "must be "+Version)
	}
	if d.Tool == "" || len(d.Tool) > 128 {
		c.bad("tool", "must be the MCP tool name (1–128 octets)")
	}
	p := &Profile{tool: d.Tool, maxOctets: DefaultMaxOctets, maxDepth: DefaultMaxDepth}
	if d.Limits.MaxOctets != 0 {
		p.maxOctets = d.Limits.MaxOctets
		if p.maxOctets < 1 || p.maxOctets > MaxMaxOctets {
			c.bad("limits.maxOctets", "must lie in 1..1048576")
		}
	}
	if d.Limits.MaxDepth != 0 {
		p.maxDepth = d.Limits.MaxDepth
		if p.maxDepth < 1 || p.maxDepth > MaxMaxDepth {
			c.bad("limits.maxDepth", "must lie in 1..32")
		}
	}
	if d.Arguments.Choice != "object" {
		c.bad("arguments.choice", "the arguments of an MCP tool are an object")
	}
	p.root = c.node(&d.Arguments, "arguments", 1)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	p.schema = schemaOf(p.root)
	if _, err := schema.New(mustSchemaID, vocab.V1, p.schema); err != nil {
		// The Schema the profile produces breaks a Section 39 bound (depth
		// 8, 64 fields, 256 nodes): the representations add levels.
		return nil, Errors{{Code: CodeInvalidDraft, Path: "arguments", Rule: "the protocol Schema of this profile is invalid: " + err.Error()}}
	}
	p.digest = p.computeDigest()
	return p, nil
}

var mustSchemaID = func() ident.SchemaID {
	id, err := ident.ParseSchemaID("argprofile")
	if err != nil {
		panic(err)
	}
	return id
}()

type compiler struct {
	errs    Errors
	headers map[string]bool // lower-cased x-mcp-header names
}

func (c *compiler) bad(path, rule string) {
	c.errs = append(c.errs, &Error{Code: CodeInvalidDraft, Path: path, Rule: rule})
}

// attrs lists which attributes each choice takes; any other set refuses,
// so a reviewer never reads a constraint that is silently ignored.
var attrs = map[Choice]string{
	ChoiceString:  "resource minLength maxLength pattern format const",
	ChoiceText:    "bind minLength maxLength maxOctets pattern format const",
	ChoiceInteger: "unsigned minimum maximum const",
	ChoiceDecimal: "unsigned scale minimum maximum const",
	ChoiceBool:    "const",
	ChoiceEnum:    "cases",
	ChoiceArray:   "items minItems maxItems",
	ChoiceObject:  "members",
	ChoiceUnion:   "alternatives",
	ChoiceJSON:    "maxOctets kinds",
}

func setAttrs(d *NodeDraft) []string {
	var set []string
	add := func(name string, on bool) {
		if on {
			set = append(set, name)
		}
	}
	add("resource", d.Resource)
	add("bind", d.Bind != "")
	add("minLength", d.MinLength != nil)
	add("maxLength", d.MaxLength != nil)
	add("maxOctets", d.MaxOctets != nil)
	add("kinds", d.Kinds != nil)
	add("pattern", d.Pattern != "")
	add("format", d.Format != "")
	add("const", len(d.Const) > 0)
	add("unsigned", d.Unsigned)
	add("scale", d.Scale != nil)
	add("minimum", d.Minimum != nil)
	add("maximum", d.Maximum != nil)
	add("cases", d.Cases != nil)
	add("items", d.Items != nil)
	add("minItems", d.MinItems != nil)
	add("maxItems", d.MaxItems != nil)
	add("members", d.Members != nil)
	add("alternatives", d.Alternatives != nil)
	return set
}

func (c *compiler) node(d *NodeDraft, path string, depth int) *node {
	if depth > schema.MaxDepth {
		// The output is at least as deep as the profile, and the core takes
		// 8 levels; this also bounds a draft built (even cyclically) in Go.
		c.bad(path, "nests deeper than the protocol's 8 levels")
		return nil
	}
	idx := slices.Index(choiceTokens, d.Choice)
	if idx <= 0 {
		c.bad(path+".choice", "must be one of string, text, integer, decimal, bool, enum, array, object, union, json")
		return nil
	}
	ch := Choice(idx)
	allowed := strings.Fields(attrs[ch])
	for _, a := range setAttrs(d) {
		if !slices.Contains(allowed, a) {
			c.bad(path+"."+a, "is not an attribute of choice "+ch.String())
		}
	}
	n := &node{choice: ch, minLen: -1, maxLen: -1}
	switch ch {
	case ChoiceString, ChoiceText:
		c.text(n, d, path)
	case ChoiceInteger, ChoiceDecimal:
		c.number(n, d, path)
	case ChoiceBool:
		c.constant(n, d, path, jsonexact.Bool)
	case ChoiceEnum:
		c.enum(n, d, path)
	case ChoiceArray:
		n.minItems, n.maxItems = 0, schema.MaxElements
		if d.MinItems != nil {
			n.minItems = *d.MinItems
		}
		if d.MaxItems != nil {
			n.maxItems = *d.MaxItems
		}
		if n.minItems < 0 || n.maxItems < 0 || n.maxItems > schema.MaxElements || n.minItems > n.maxItems {
			c.bad(path+".maxItems", "minItems ≤ maxItems ≤ 64 (the protocol's array bound; bind longer arrays as json)")
		}
		if d.Items == nil {
			c.bad(path+".items", "an array declares its element node")
		} else {
			n.items = c.node(d.Items, path+".items", depth+1)
		}
	case ChoiceObject:
		c.object(n, d, path, depth)
	case ChoiceUnion:
		c.union(n, d, path, depth)
	case ChoiceJSON:
		n.maxOctets = DefaultMaxOctets
		if d.MaxOctets != nil {
			n.maxOctets = *d.MaxOctets
			if n.maxOctets < 1 || n.maxOctets > MaxMaxOctets {
				c.bad(path+".maxOctets", "must lie in 1..1048576")
			}
		}
		c.kinds(n, d, path)
	}
	return n
}

// jsonKinds are the kinds a json node may be restricted to: JSON Schema's
// type names, so the reviewer compares them with the schema's type.
var jsonKinds = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

func (c *compiler) kinds(n *node, d *NodeDraft, path string) {
	if d.Kinds == nil {
		return
	}
	if len(d.Kinds) == 0 {
		c.bad(path+".kinds", "lists 1 to 7 kinds (absent: any kind)")
	}
	for i, k := range d.Kinds {
		p := path + ".kinds[" + strconv.Itoa(i) + "]"
		switch {
		case !slices.Contains(jsonKinds, k):
			c.bad(p, "must be array, boolean, integer, null, number, object or string")
		case slices.Contains(d.Kinds[:i], k):
			c.bad(p, "repeats an earlier kind")
		}
	}
	n.kinds = slices.Sorted(slices.Values(d.Kinds))
}

func (c *compiler) text(n *node, d *NodeDraft, path string) {
	if n.choice == ChoiceText {
		switch d.Bind {
		case "digest":
		case "escaped":
			n.escaped = true
		default:
			c.bad(path+".bind", "must be digest or escaped")
		}
		n.maxOctets = DefaultMaxOctets
		if d.MaxOctets != nil {
			n.maxOctets = *d.MaxOctets
			if n.maxOctets < 1 || n.maxOctets > MaxMaxOctets {
				c.bad(path+".maxOctets", "must lie in 1..1048576")
			}
		}
	}
	n.resource = d.Resource
	if d.MinLength != nil {
		n.minLen = *d.MinLength
	}
	if d.MaxLength != nil {
		n.maxLen = *d.MaxLength
	}
	if n.minLen < -1 || d.MinLength != nil && n.minLen < 0 || d.MaxLength != nil && n.maxLen < 0 ||
		n.maxLen >= 0 && n.minLen > n.maxLen {
		c.bad(path+".maxLength", "0 ≤ minLength ≤ maxLength")
	}
	if d.Pattern != "" {
		re, insts, ok := compilePattern(d.Pattern, n.choice == ChoiceString)
		switch {
		case !ok:
			c.bad(path+".pattern", "is outside the dialect ECMA-262 and RE2 agree on (docs/arguments.md), over 1024 octets, or over 1024 program instructions")
		case n.choice == ChoiceText && n.maxOctets*insts > maxPatternWork:
			c.bad(path+".maxOctets", "maxOctets times the pattern's program instructions must be at most 67108864 (the match work of one value)")
		}
		n.pattern, n.re = d.Pattern, re
	}
	if d.Format != "" {
		f, ok := formatTokens[d.Format]
		if !ok {
			c.bad(path+".format", "must be date or uuid (the formats whose meaning is exact)")
		}
		n.format = f
	}
	c.constant(n, d, path, jsonexact.String)
}

func (c *compiler) constant(n *node, d *NodeDraft, path string, kinds ...jsonexact.Kind) {
	if len(d.Const) == 0 {
		return
	}
	v, err := jsonexact.DecodeAny(d.Const, jsonexact.Limits{MaxDepth: 1})
	if err != nil || !slices.Contains(kinds, v.Kind()) {
		c.bad(path+".const", "must be one JSON value of the choice's kind")
		return
	}
	n.constant = &v
}

func (c *compiler) number(n *node, d *NodeDraft, path string) {
	n.unsigned = d.Unsigned
	if n.choice == ChoiceDecimal {
		if d.Scale == nil || *d.Scale < 0 || *d.Scale > MaxScale {
			c.bad(path+".scale", "a decimal declares its scale, 0..18")
			return
		}
		n.scale = *d.Scale
	}
	bound := func(t *DecimalText, name string) *big.Int {
		if t == nil {
			return nil
		}
		v, code := scaled(string(*t), n.scale)
		if code != 0 || !validNumber(string(*t)) {
			c.bad(path+"."+name, "must be a plain decimal with at most scale fraction digits")
			return nil
		}
		if !inDomain(v, n.unsigned) {
			c.bad(path+"."+name, "lies outside the field's 64-bit domain")
			return nil
		}
		return v
	}
	n.min, n.max = bound(d.Minimum, "minimum"), bound(d.Maximum, "maximum")
	if n.min != nil && n.max != nil && n.min.Cmp(n.max) > 0 {
		c.bad(path+".minimum", "must not exceed maximum")
	}
	c.constant(n, d, path, jsonexact.Integer, jsonexact.Number)
}

// validNumber reports whether s is one RFC 8259 number token.
func validNumber(s string) bool {
	v, err := jsonexact.DecodeAny([]byte(s), jsonexact.Limits{MaxDepth: 1})
	return err == nil && (v.Kind() == jsonexact.Integer || v.Kind() == jsonexact.Number) && v.Literal() == s
}

func (c *compiler) enum(n *node, d *NodeDraft, path string) {
	if len(d.Cases) == 0 {
		c.bad(path+".cases", "an enumeration declares 1 to 64 cases")
	}
	seenJSON, seenTok := map[string]bool{}, map[string]bool{}
	for i, cs := range d.Cases {
		p := path + ".cases[" + strconv.Itoa(i) + "]"
		if _, err := ident.ParseName(cs.Case); err != nil {
			c.bad(p+".case", "must be a protocol token: a–z, 0–9, interior '-', at most 64 octets")
		}
		if seenJSON[cs.JSON] {
			c.bad(p+".json", "maps a JSON string an earlier case maps")
		}
		if seenTok[cs.Case] {
			c.bad(p+".case", "two JSON strings map to one case token: the mapping must be one to one")
		}
		seenJSON[cs.JSON], seenTok[cs.Case] = true, true
		n.cases = append(n.cases, enumCase{json: cs.JSON, token: cs.Case})
	}
	slices.SortFunc(n.cases, func(a, b enumCase) int { return strings.Compare(a.json, b.json) })
}

// headerToken is the RFC 9110 token an x-mcp-header name must be.
var headerToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func (c *compiler) object(n *node, d *NodeDraft, path string, depth int) {
	n.byJSON = map[string]int{}
	seenJSON, seenField := map[string]bool{}, map[string]bool{}
	for i := range d.Members {
		m := &d.Members[i]
		p := path + ".members[" + strconv.Itoa(i) + "]"
		if _, err := ident.ParseName(m.Field); err != nil {
			c.bad(p+".field", "must be a protocol field name: a–z, 0–9, interior '-', at most 64 octets")
		}
		if seenJSON[m.JSON] {
			c.bad(p+".json", "maps a member name an earlier member maps")
		}
		if seenField[m.Field] {
			c.bad(p+".field", "two members map to one protocol field: the rename must be one to one")
		}
		seenJSON[m.JSON], seenField[m.Field] = true, true
		if m.Header != "" {
			switch k := Choice(slices.Index(choiceTokens, m.Value.Choice)); {
			case !headerToken.MatchString(m.Header):
				c.bad(p+".header", "must be an RFC 9110 token")
			case c.headers[strings.ToLower(m.Header)]:
				c.bad(p+".header", "is mirrored by an earlier member (header names are case-insensitive)")
			case !mirrorable(k, &m.Value):
				c.bad(p+".header", "only a string, number or boolean member (or a union of them and null) may be mirrored into a header")
			}
			c.headers[strings.ToLower(m.Header)] = true
		}
		typ := c.node(&m.Value, p+".value", depth+1)
		n.members = append(n.members, member{json: m.JSON, field: m.Field, required: m.Required, header: m.Header, typ: typ})
	}
	slices.SortFunc(n.members, func(a, b member) int { return strings.Compare(a.field, b.field) })
	for i, m := range n.members {
		n.byJSON[m.json] = i
	}
}

// mirrorable reports whether a member of choice k may carry x-mcp-header:
// a primitive, or a union of primitives and null (a nullable primitive).
func mirrorable(k Choice, d *NodeDraft) bool {
	switch k {
	case ChoiceString, ChoiceText, ChoiceInteger, ChoiceDecimal, ChoiceBool, ChoiceEnum:
		return true
	case ChoiceUnion:
		for _, a := range d.Alternatives {
			if a.When == "array" || a.When == "object" {
				return false
			}
		}
		return true
	}
	return false
}

// kindsOf maps a union's when token to the JSON kinds it takes.
var kindsOf = map[string][]jsonexact.Kind{
	"null":    {jsonexact.Null},
	"bool":    {jsonexact.Bool},
	"integer": {jsonexact.Integer, jsonexact.Number},
	"number":  {jsonexact.Integer, jsonexact.Number},
	"string":  {jsonexact.String},
	"array":   {jsonexact.Array},
	"object":  {jsonexact.Object},
}

func (c *compiler) union(n *node, d *NodeDraft, path string, depth int) {
	if len(d.Alternatives) < 2 {
		c.bad(path+".alternatives", "a union has at least two alternatives")
	}
	n.byKind = map[jsonexact.Kind]int{}
	seenTag := map[string]bool{}
	for i := range d.Alternatives {
		a := &d.Alternatives[i]
		p := path + ".alternatives[" + strconv.Itoa(i) + "]"
		kinds, ok := kindsOf[a.When]
		if !ok {
			c.bad(p+".when", "must be null, bool, integer, number, string, array or object")
		}
		for _, k := range kinds {
			if _, dup := n.byKind[k]; dup {
				c.bad(p+".when", "another alternative takes this JSON kind (integer and number both take every number)")
				break
			}
			n.byKind[k] = -1
		}
		if _, err := ident.ParseName(a.Tag); err != nil || a.Tag == fieldTag {
			c.bad(p+".tag", "must be a protocol token other than tag")
		}
		if seenTag[a.Tag] {
			c.bad(p+".tag", "repeats an earlier alternative's tag")
		}
		seenTag[a.Tag] = true
		var typ *node
		switch {
		case a.When == "null" && a.Value != nil:
			c.bad(p+".value", "the null alternative has no value")
		case a.When != "null" && a.Value == nil:
			c.bad(p+".value", "an alternative other than null declares its node")
		case a.Value != nil:
			typ = c.node(a.Value, p+".value", depth+1)
		}
		n.alts = append(n.alts, alternative{when: a.When, tag: a.Tag, typ: typ})
	}
	slices.SortFunc(n.alts, func(a, b alternative) int { return strings.Compare(a.tag, b.tag) })
	for i, a := range n.alts {
		for _, k := range kindsOf[a.when] {
			n.byKind[k] = i
		}
	}
}

// schemaOf is the closed v1 Schema of a node's output.
func schemaOf(n *node) schema.Draft {
	digestShape := schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
		{Name: fieldLength, Requirement: "required", Type: schema.Draft{Kind: "unsignedInteger"}},
		{Name: fieldSHA256, Requirement: "required", Type: schema.Draft{Kind: "string"}},
	}}
	switch n.choice {
	case ChoiceString:
		if n.resource {
			return schema.Draft{Kind: "resourceID"}
		}
		return schema.Draft{Kind: "string"}
	case ChoiceText:
		if n.escaped {
			return schema.Draft{Kind: "string"}
		}
		return digestShape
	case ChoiceJSON:
		return digestShape
	case ChoiceInteger, ChoiceDecimal:
		if n.unsigned {
			return schema.Draft{Kind: "unsignedInteger"}
		}
		return schema.Draft{Kind: "signedInteger"}
	case ChoiceBool:
		return schema.Draft{Kind: "bool"}
	case ChoiceEnum:
		cases := make([]string, len(n.cases))
		for i, cs := range n.cases {
			cases[i] = cs.token
		}
		slices.Sort(cases)
		return schema.Draft{Kind: "enumeration", Cases: cases}
	case ChoiceArray:
		it := schemaOf(n.items)
		return schema.Draft{Kind: "array", Items: &it}
	case ChoiceObject:
		fields := make([]schema.FieldDraft, 0, len(n.members))
		for _, m := range n.members {
			req := "optional"
			if m.required {
				req = "required"
			}
			fields = append(fields, schema.FieldDraft{Name: m.field, Requirement: req, Type: schemaOf(m.typ)})
		}
		return schema.Draft{Kind: "object", Fields: fields}
	case ChoiceUnion:
		tags := make([]string, len(n.alts))
		fields := []schema.FieldDraft{}
		for i, a := range n.alts {
			tags[i] = a.tag
			if a.typ != nil {
				fields = append(fields, schema.FieldDraft{Name: a.tag, Requirement: "optional", Type: schemaOf(a.typ)})
			}
		}
		fields = append(fields, schema.FieldDraft{Name: fieldTag, Requirement: "required", Type: schema.Draft{Kind: "enumeration", Cases: tags}})
		return schema.Draft{Kind: "object", Fields: fields}
	}
	return schema.Draft{}
}

// computeDigest writes the complete normalized profile in a fixed order:
// every attribute of every node, absent ones as absent, collections with
// their counts, so no two different profiles share an encoding.
func (p *Profile) computeDigest() digest.Digest {
	b := digest.New(Version)
	b.String(p.tool)
	b.Uint(uint64(p.maxOctets))
	b.Uint(uint64(p.maxDepth))
	writeNode(b, p.root)
	return b.Sum()
}

func writeNode(b *digest.Builder, n *node) {
	b.String(n.choice.String())
	b.Bool(n.resource)
	b.Bool(n.escaped)
	b.Int(int64(n.minLen))
	b.Int(int64(n.maxLen))
	b.Int(int64(n.maxOctets))
	if n.kinds == nil {
		b.Absent()
	} else {
		b.Count(len(n.kinds))
		for _, k := range n.kinds {
			b.String(k)
		}
	}
	b.String(n.pattern)
	b.String(n.format.String())
	if n.constant == nil {
		b.Absent()
	} else {
		b.Text(string(n.constant.AppendJSON(nil)))
	}
	b.Bool(n.unsigned)
	b.Int(int64(n.scale))
	for _, v := range []*big.Int{n.min, n.max} {
		if v == nil {
			b.Absent()
		} else {
			b.String(v.String())
		}
	}
	b.Count(len(n.cases))
	for _, cs := range n.cases {
		b.Text(cs.json)
		b.String(cs.token)
	}
	if n.items == nil {
		b.Absent()
	} else {
		writeNode(b, n.items)
	}
	b.Int(int64(n.minItems))
	b.Int(int64(n.maxItems))
	b.Count(len(n.members))
	for _, m := range n.members {
		b.Text(m.json)
		b.String(m.field)
		b.Bool(m.required)
		b.String(m.header)
		writeNode(b, m.typ)
	}
	b.Count(len(n.alts))
	for _, a := range n.alts {
		b.String(a.when)
		b.String(a.tag)
		if a.typ == nil {
			b.Absent()
		} else {
			writeNode(b, a.typ)
		}
	}
}
