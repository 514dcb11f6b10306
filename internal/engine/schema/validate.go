package schema

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// rootPath names the argument value in error paths.
const rootPath = "arguments"

// Rules of Validate. A rule names the declared (reviewed) kind at most,
// never the rejected input.
const (
	ruleManyMembers = "an object value has at most 64 fields"
	ruleUnknown     = "the object has a field the schema does not declare; remove it"
	ruleRequired    = "this required field is missing"
	ruleDupMember   = "object field names must be unique"
	ruleManyElems   = "an array value has at most 64 elements"
	ruleEnumCase    = "the value must exactly equal one of the declared enumeration cases (no case folding, aliases or whitespace repair)"
	ruleSigned      = "a signedInteger value is an integer from -9223372036854775808 to 9223372036854775807"
	ruleNoKind      = "the schema node has no v1 kind"
	ruleUnsigned    = "an unsignedInteger value is an integer from 0 to 18446744073709551615"
)

// ruleKind is the KindMismatch rule for each declared kind.
var ruleKind = [...]string{
	vocab.KindString:          "the value must be a JSON string (schema kind string)",
	vocab.KindResourceID:      "the value must be a JSON string holding a resource identifier (schema kind resourceID)",
	vocab.KindBool:            "the value must be JSON true or false (schema kind bool)",
	vocab.KindSignedInteger:   "the value must be a JSON integer (schema kind signedInteger)",
	vocab.KindUnsignedInteger: "the value must be a JSON integer (schema kind unsignedInteger)",
	vocab.KindEnumeration:     "the value must be a JSON string naming a declared case (schema kind enumeration)",
	vocab.KindArray:           "the value must be a JSON array (schema kind array)",
	vocab.KindObject:          "the value must be a JSON object (schema kind object)",
}

// wantJSON is the only JSON kind each declared kind accepts: there is no
// coercion between kinds (Section 10).
var wantJSON = [...]jsonexact.Kind{
	vocab.KindString:          jsonexact.String,
	vocab.KindResourceID:      jsonexact.String,
	vocab.KindBool:            jsonexact.Bool,
	vocab.KindSignedInteger:   jsonexact.Integer,
	vocab.KindUnsignedInteger: jsonexact.Integer,
	vocab.KindEnumeration:     jsonexact.String,
	vocab.KindArray:           jsonexact.Array,
	vocab.KindObject:          jsonexact.Object,
}

// Validate checks one decoded argument value against s (Section 10). It is
// all-or-nothing: on any rejection it returns the zero Arguments and one
// *fault.Error whose Path starts at "arguments" and continues with declared
// field names and array indices ("arguments.items[3].account").
//
// Checks, in order for every object: member count, then unknown members,
// then declared fields in field-name ASCII order (missing required fields
// reject; absent optional fields add nothing). Reported errors therefore do
// not depend on input member order. Work is linear in the size of args and
// recursion is bounded by the Schema depth.
func (s Schema) Validate(args jsonexact.Value) (Arguments, error) {
	if s.root == nil {
		return Arguments{}, fault.New(fault.Missing, ruleNotBuilt)
	}
	sc := scratchPool.Get().(*scratch)
	v := validator{collect: s.hasRes, fields: sc.fields[:0], elems: sc.elems[:0]}
	if cap(v.fields) < s.scratch {
		v.fields = make([]value.Field, 0, s.scratch)
	}
	root, err := v.value(s.root, args)
	// value.Object and value.Array copied what they kept: the scratch
	// stacks are cleared (no value outlives this call through them) and
	// reused by the next Validate.
	clear(v.fields[:cap(v.fields)])
	clear(v.elems[:cap(v.elems)])
	sc.fields, sc.elems = v.fields[:0], v.elems[:0]
	scratchPool.Put(sc)
	if err != nil {
		return Arguments{}, err
	}
	return Arguments{root: root, resources: resourceSet(v.res)}, nil
}

// scratch is the reusable stack storage of one Validate call.
type scratch struct {
	fields []value.Field
	elems  []value.Value
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// step is one level of the path below "arguments": a declared field name,
// or an array index when name is "".
type step struct {
	name  string
	index int
}

// validator holds the state of one Validate call.
//
// path is the current location as a fixed stack, rendered only when a
// rejection is built, so the accepting path allocates no strings; a node at
// level L has L-1 steps and New bounds L by MaxDepth. fields and elems are
// scratch stacks shared by nested containers: a container appends its
// children above the current top and pops them once value.Object or
// value.Array has copied them, so there is no per-container scratch
// allocation (fields is sized once from the Schema).
type validator struct {
	collect bool
	res     []ident.Resource
	fields  []value.Field
	elems   []value.Value
	path    [MaxDepth]step
	depth   int
}

func (v *validator) push(s step) { v.path[v.depth] = s; v.depth++ }
func (v *validator) pop()        { v.depth-- }

func (v *validator) where() string {
	b := []byte(rootPath)
	for _, s := range v.path[:v.depth] {
		if s.name == "" {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		} else {
			b = append(b, '.')
			b = append(b, s.name...)
		}
	}
	return string(b)
}

func (v *validator) fail(code fault.Code, rule string) error {
	return fault.At(v.where(), code, rule)
}

// within locates a rejection from a lower layer at the current path; nil
// stays nil.
func (v *validator) within(err error) error {
	if err == nil {
		return nil
	}
	return fault.Within(v.where(), err)
}

func (v *validator) value(n *node, in jsonexact.Value) (value.Value, error) {
	if in.Kind() != wantJSON[n.kind] {
		return value.Value{}, v.fail(fault.KindMismatch, ruleKind[n.kind])
	}
	//exhaustive:enforce
	switch n.kind {
	case vocab.KindString:
		out, err := value.String(in.Text())
		return out, v.within(err)
	case vocab.KindResourceID:
		r, err := ident.ParseResource(in.Text())
		if err != nil {
			return value.Value{}, v.within(err)
		}
		if v.collect {
			if v.res == nil {
				v.res = make([]ident.Resource, 0, 8)
			}
			v.res = append(v.res, r)
		}
		out, err := value.Resource(r)
		return out, v.within(err)
	case vocab.KindBool:
		return value.Bool(in.Bool()), nil
	case vocab.KindSignedInteger:
		i, err := in.Int64()
		if err != nil {
			return value.Value{}, v.fail(fault.OutOfRange, ruleSigned)
		}
		return value.Signed(i), nil
	case vocab.KindUnsignedInteger:
		u, err := in.Uint64()
		if err != nil {
			return value.Value{}, v.fail(fault.OutOfRange, ruleUnsigned)
		}
		return value.Unsigned(u), nil
	case vocab.KindEnumeration:
		i, ok := slices.BinarySearchFunc(n.cases, in.Text(), func(c ident.Name, s string) int {
			return strings.Compare(c.String(), s)
		})
		if !ok {
			return value.Value{}, v.fail(fault.UnknownToken, ruleEnumCase)
		}
		out, err := value.Enum(n.cases[i])
		return out, v.within(err)
	case vocab.KindArray:
		return v.array(n, in)
	case vocab.KindObject:
		return v.object(n, in)
	default: // New admits no other kind; fail closed all the same.
		return value.Value{}, v.fail(fault.Unsupported, ruleNoKind)
	}
}

func (v *validator) array(n *node, in jsonexact.Value) (value.Value, error) {
	if in.Len() > MaxElements {
		return value.Value{}, v.fail(fault.LimitExceeded, ruleManyElems)
	}
	base := len(v.elems)
	v.elems = slices.Grow(v.elems, in.Len())
	defer func() { v.elems = v.elems[:base] }()
	for i := range in.Len() {
		v.push(step{index: i})
		out, err := v.value(n.items, in.ElemAt(i))
		v.pop()
		if err != nil {
			return value.Value{}, err
		}
		v.elems = append(v.elems, out)
	}
	out, err := value.Array(v.elems[base:])
	return out, v.within(err)
}

func (v *validator) object(n *node, in jsonexact.Value) (value.Value, error) {
	if in.Len() > MaxFields {
		return value.Value{}, v.fail(fault.LimitExceeded, ruleManyMembers)
	}
	// slot[i] is 1 + the member index holding declared field i, or 0.
	var slot [MaxFields]uint8
	for mi := range in.Len() {
		name := in.MemberAt(mi).Name
		fi, ok := slices.BinarySearchFunc(n.fields, name, func(f field, s string) int {
			return strings.Compare(f.name.String(), s)
		})
		if !ok {
			return value.Value{}, v.fail(fault.UnknownField, ruleUnknown)
		}
		if slot[fi] != 0 {
			// jsonexact already rejects duplicate names; fail closed anyway.
			return value.Value{}, v.fail(fault.Duplicate, ruleDupMember)
		}
		slot[fi] = uint8(mi + 1)
	}
	base := len(v.fields)
	v.fields = slices.Grow(v.fields, len(n.fields))
	defer func() { v.fields = v.fields[:base] }()
	for fi := range n.fields {
		f := &n.fields[fi]
		if slot[fi] == 0 {
			if f.req == vocab.Required {
				v.push(step{name: f.name.String()})
				return value.Value{}, v.fail(fault.Missing, ruleRequired)
			}
			continue
		}
		v.push(step{name: f.name.String()})
		out, err := v.value(f.typ, in.MemberAt(int(slot[fi])-1).Value)
		v.pop()
		if err != nil {
			return value.Value{}, err
		}
		v.fields = append(v.fields, value.NewField(f.name, out))
	}
	out, err := value.Object(v.fields[base:])
	return out, v.within(err)
}
