package argprofile

import (
	"encoding/json"
	"strings"

	"sigs.k8s.io/yaml"
)

// Version is the profile format this package implements.
const Version = "toolgate.mcp-arguments/1"

// Draft is a profile as plain data, the form a reviewer reads in a pull
// request (YAML or JSON). Nothing in it is trusted until New accepts it.
type Draft struct {
	// Profile must be Version.
	Profile string `json:"profile"`
	// Tool is the MCP tool name the profile maps the arguments of.
	Tool string `json:"tool"`
	// Limits are the profile's own bounds (zero selects the default).
	Limits LimitsDraft `json:"limits,omitempty"`
	// Arguments is the root node; its choice is object.
	Arguments NodeDraft `json:"arguments"`
}

// LimitsDraft bounds one derivation (docs/arguments.md, I4).
type LimitsDraft struct {
	MaxOctets int `json:"maxOctets,omitempty"` // raw argument octets, default 65536, at most 1 MiB
	MaxDepth  int `json:"maxDepth,omitempty"`  // JSON nesting, root object 1; default 16, at most 32
}

// NodeDraft is the choice for one JSON pointer. Which attributes a choice
// takes is in docs/arguments.md; any other attribute set refuses.
type NodeDraft struct {
	// Choice is string, text, integer, decimal, bool, enum, array, object,
	// union or json.
	Choice string `json:"choice"`
	// Resource (string) makes the protocol field a resourceID.
	Resource bool `json:"resource,omitempty"`
	// Bind (text) is digest or escaped.
	Bind string `json:"bind,omitempty"`
	// MinLength and MaxLength (string, text) count code points, as JSON
	// Schema does.
	MinLength *int `json:"minLength,omitempty"`
	MaxLength *int `json:"maxLength,omitempty"`
	// MaxOctets (text, json) bounds the value's UTF-8 or canonical octets.
	MaxOctets *int `json:"maxOctets,omitempty"`
	// Kinds (json) are the JSON kinds the value may be, in JSON Schema's
	// type names: null, boolean, integer, number, string, array, object.
	// Absent, any kind.
	Kinds []string `json:"kinds,omitempty"`
	// Pattern (string, text) is a regular expression in the agreed dialect.
	Pattern string `json:"pattern,omitempty"`
	// Format (string, text) is date or uuid.
	Format string `json:"format,omitempty"`
	// Const (string, text, integer, decimal, bool) is the only value
	// accepted.
	Const json.RawMessage `json:"const,omitempty"`
	// Unsigned (integer, decimal) selects unsignedInteger.
	Unsigned bool `json:"unsigned,omitempty"`
	// Scale (decimal) is the number of fraction digits kept, 0–18.
	Scale *int `json:"scale,omitempty"`
	// Minimum and Maximum (integer, decimal) are inclusive bounds, as
	// decimal text (a YAML number is read as its text; quote big ones).
	Minimum *DecimalText `json:"minimum,omitempty"`
	Maximum *DecimalText `json:"maximum,omitempty"`
	// Cases (enum) maps each accepted JSON string to a case token.
	Cases []CaseDraft `json:"cases,omitempty"`
	// Items (array) is the element node; MinItems and MaxItems bound the
	// count (at most 64).
	Items    *NodeDraft `json:"items,omitempty"`
	MinItems *int       `json:"minItems,omitempty"`
	MaxItems *int       `json:"maxItems,omitempty"`
	// Members (object) are the declared members; the object is closed.
	Members []MemberDraft `json:"members,omitempty"`
	// Alternatives (union) are chosen by the value's JSON kind.
	Alternatives []AlternativeDraft `json:"alternatives,omitempty"`
}

// CaseDraft renames one enumeration value.
type CaseDraft struct {
	JSON string `json:"json"` // the string the MCP tool takes
	Case string `json:"case"` // the protocol case token
}

// MemberDraft renames one object member.
type MemberDraft struct {
	JSON     string    `json:"json"`  // the MCP member name
	Field    string    `json:"field"` // the protocol field name
	Required bool      `json:"required,omitempty"`
	Header   string    `json:"header,omitempty"` // x-mcp-header: mirrored as Mcp-Param-<Header>
	Value    NodeDraft `json:"value"`
}

// AlternativeDraft is one alternative of a union.
type AlternativeDraft struct {
	// When is the JSON kind: null, bool, integer, number, string, array or
	// object (integer and number both take every number; at most one).
	When string `json:"when"`
	// Tag is the alternative's case token and field name.
	Tag string `json:"tag"`
	// Value is the alternative's node; absent for null.
	Value *NodeDraft `json:"value,omitempty"`
}

// DecimalText is a decimal bound as text. It reads a JSON string or a JSON
// number token as written.
type DecimalText string

// UnmarshalJSON accepts a string or a number token.
func (d *DecimalText) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, `"`) {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*d = DecimalText(v)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*d = DecimalText(n.String())
	return nil
}

// Parse reads a profile's YAML or JSON form strictly (unknown fields and
// duplicate keys reject) and builds it with New.
func Parse(data []byte) (*Profile, error) {
	var d Draft
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		// The decoder names fields and types, never values; keep one line.
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, Errors{{Code: CodeInvalidDraft, Path: "(document)", Rule: "not a valid profile (unknown field, duplicate key or wrong type): " + msg}}
	}
	return New(d)
}
