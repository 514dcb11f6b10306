package schema

import "github.com/toolgate/toolgate/internal/engine/vocab"

// Draft is the untrusted, declarative description of one Schema node as a
// Host administrator writes it (the Kubernetes layer fills it from YAML).
// Only the attribute of the node's kind may be present (non-nil); New
// rejects the others instead of ignoring them.
type Draft struct {
	// Kind is a Section 48 value-kind token: string, resourceID, bool,
	// signedInteger, unsignedInteger, enumeration, array or object.
	Kind string
	// Cases lists an enumeration's 1–64 unique cases (lower-token(64)).
	// New normalizes them to ASCII order.
	Cases []string
	// Items is an array's element schema.
	Items *Draft
	// Fields lists an object's 0–64 fields with unique names. New
	// normalizes them to field-name ASCII order.
	Fields []FieldDraft
}

// FieldDraft declares one object field.
type FieldDraft struct {
	// Name is the field name (lower-token(64)).
	Name string
	// Requirement is "required" or "optional". Optional absence supplies no
	// default.
	Requirement string
	// Type is the field's value schema.
	Type Draft
}

// Draft returns the normalized draft of s: fields and cases in ASCII order,
// attributes present only on their own kind, and a non-nil Fields slice on
// every object (so an empty object renders as "fields: []"). It is a fresh
// copy. New(s.ID(), s.Version(), s.Draft()) returns a Schema Equal to s.
// The zero Schema returns the zero Draft.
func (s Schema) Draft() Draft {
	if s.root == nil {
		return Draft{}
	}
	return s.root.draft()
}

func (n *node) draft() Draft {
	d := Draft{Kind: n.kind.String()}
	//exhaustive:enforce
	switch n.kind {
	case vocab.KindString, vocab.KindResourceID, vocab.KindBool, vocab.KindSignedInteger, vocab.KindUnsignedInteger:
		// Scalar kinds have no attributes.
	case vocab.KindEnumeration:
		d.Cases = make([]string, len(n.cases))
		for i, c := range n.cases {
			d.Cases[i] = c.String()
		}
	case vocab.KindArray:
		items := n.items.draft()
		d.Items = &items
	case vocab.KindObject:
		d.Fields = make([]FieldDraft, len(n.fields))
		for i, f := range n.fields {
			d.Fields[i] = FieldDraft{Name: f.name.String(), Requirement: f.req.String(), Type: f.typ.draft()}
		}
	}
	return d
}
