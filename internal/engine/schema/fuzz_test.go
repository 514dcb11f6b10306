package schema_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

// FuzzValidate decodes arbitrary bytes and validates them against the rich
// schema. Properties: no panic; a rejection is a *fault.Error located under
// "arguments" with zero Arguments; an acceptance holds only printable-ASCII
// strings of at most 1,024 octets, derives exactly the sorted, unique set of
// resourceID values in the tree, and re-renders to JSON that validates again
// to an Equal value.
func FuzzValidate(f *testing.F) {
	for _, s := range richSeeds {
		f.Add([]byte(s))
	}
	s := mustNew(f, richDraft())
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := jsonexact.Decode(data, jsonexact.Limits{})
		if err != nil {
			return
		}
		args, err := s.Validate(in)
		if err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) || !fe.Code.IsValid() || fe.Rule == "" {
				t.Fatalf("rejection is not a complete *fault.Error: %#v", err)
			}
			if fe.Path != "arguments" && !strings.HasPrefix(fe.Path, "arguments.") && !strings.HasPrefix(fe.Path, "arguments[") {
				t.Fatalf("path %q is not under arguments", fe.Path)
			}
			if !args.IsZero() || args.Resources() != nil {
				t.Fatal("a rejection returned partial Arguments")
			}
			return
		}
		root := args.Root()
		if root.Kind() != vocab.KindObject {
			t.Fatalf("root kind = %v", root.Kind())
		}
		if !allStrings(root, func(s string) bool { return len(s) <= schema.MaxStringLen && ident.IsPrintableASCII(s) }) {
			t.Fatal("accepted a string outside printable ASCII or over 1024 octets")
		}
		got := resourceStrings(args.Resources())
		if !isSortedUnique(got) {
			t.Fatalf("resources not sorted and unique: %q", got)
		}
		if diff := cmp.Diff(collectResources(root), got); diff != "" {
			t.Fatalf("resources differ from the resourceID values in the tree (-want +got):\n%s", diff)
		}
		again, err := s.Validate(decode(t, string(renderJSON(root))))
		if err != nil {
			t.Fatalf("re-rendered arguments reject: %v", err)
		}
		if !root.Equal(again.Root()) {
			t.Fatal("re-rendered arguments validate to a different value")
		}
	})
}

// collectResources is an independent model of Resource derivation: every
// resourceID value in the tree, sorted and unique, nil when empty.
func collectResources(v value.Value) []string {
	var out []string
	var walk func(v value.Value)
	walk = func(v value.Value) {
		switch v.Kind() {
		case vocab.KindResourceID:
			out = append(out, v.Text())
		case vocab.KindArray:
			for i := range v.Len() {
				walk(v.Elem(i))
			}
		case vocab.KindObject:
			for i := range v.Len() {
				walk(v.Field(i).Value())
			}
		}
	}
	walk(v)
	slices.Sort(out)
	return slices.Compact(out)
}

// FuzzNew builds drafts from fuzz bytes, wide and deep enough to cross every
// limit, and checks New against an independent reference model of the v1
// Schema rules: no panic, New accepts exactly when the model does, and an
// accepted Schema respects every limit, counts its nodes and levels like the
// model, and round-trips through Draft.
func FuzzNew(f *testing.F) {
	for _, seed := range newSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &draftGen{data: data, budget: 700}
		d := g.draft(1)
		s, err := schema.New(testID, vocab.V1, d)
		var nodes, depth int
		wantOK := d.Kind == "object" && refValid(d, 1, &nodes, &depth)
		if (err == nil) != wantOK {
			t.Fatalf("New error = %v, reference model accepts = %v", err, wantOK)
		}
		if err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) || !fe.Code.IsValid() || fe.Rule == "" || !s.IsZero() {
				t.Fatalf("rejection is not a complete *fault.Error with a zero Schema: %#v", err)
			}
			return
		}
		if s.Nodes() != nodes || s.Depth() != depth || s.Nodes() > schema.MaxNodes || s.Depth() > schema.MaxDepth {
			t.Fatalf("Nodes, Depth = %d, %d; model %d, %d", s.Nodes(), s.Depth(), nodes, depth)
		}
		norm := s.Draft()
		checkNormalized(t, norm)
		again, err := schema.New(s.ID(), s.Version(), norm)
		if err != nil || !s.Equal(again) {
			t.Fatalf("normalized draft does not rebuild an Equal schema: %v", err)
		}
	})
}

// Seed encodings for draftGen: a string field is {name 0, required 0,
// kind 0, flags 0}; an object is {kind 7, flags 0, count}; count byte 200+k
// selects 56+k%12 members, so 200 is 64, 210 is 62 and 211 is 63.
func newSeeds() [][]byte {
	strField := []byte{0, 0, 0, 0}
	wide := func(countByte byte, n int) []byte {
		return append([]byte{7, 0, countByte}, slices.Repeat(strField, n)...)
	}
	nodes := func(last byte, lastN int) []byte {
		b := []byte{7, 0, 4}
		for _, w := range [][]byte{wide(211, 63), wide(211, 63), wide(211, 63), wide(last, lastN)} {
			b = append(append(b, 0, 0), w...)
		}
		return b
	}
	chain := func(levels int) []byte {
		return append(slices.Repeat([]byte{7, 0, 1, 0, 0}, levels-1), 0, 0)
	}
	return [][]byte{
		{},
		{7, 0, 3, 0, 0, 1, 0, 1, 1, 5, 0, 2, 0, 0, 2, 0, 6, 0, 2, 0},
		wide(200, 64),                      // 64 fields: accepted
		wide(201, 65),                      // 65 fields: rejected
		nodes(210, 62),                     // 256 nodes: accepted
		nodes(211, 63),                     // 257 nodes: rejected
		chain(8),                           // depth 8: accepted
		chain(9),                           // depth 9: rejected
		{7, 0, 1, 0, 0, 5, 0, 200},         // 64 cases
		{7, 0, 1, 0, 0, 5, 0, 201},         // 65 cases
		{7, 0, 2, 150, 0, 0, 0, 150, 0, 0}, // duplicate field names
		{7, 0xff, 0},                       // misplaced attributes
	}
}

// draftGen turns fuzz bytes into a Draft. Exhausted input reads as zero,
// which yields string leaves, so generation always ends; budget bounds the
// size of what it builds to a little over the node limit.
type draftGen struct {
	data   []byte
	budget int
}

func (g *draftGen) next() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

// Generator tables. Most byte values select valid choices so that the
// fuzzer reaches large accepted schemas; the rest select each invalid form.
var genKinds = []string{"string", "resourceID", "bool", "signedInteger", "unsignedInteger",
	"enumeration", "array", "object", "string", "resourceID", "bool", "signedInteger", "unsignedInteger",
	"enumeration", "array", "object", "", "map", "String", "null"}

var genReqs = []string{"required", "optional", "required", "optional", "required", "optional", "", "Required"}

// name returns a name for member i: unique, colliding, at the 64-octet
// bound, or one of the malformed forms.
func (g *draftGen) name(i int) string {
	b := g.next()
	switch {
	case b < 128:
		return fmt.Sprintf("f%d", i)
	case b < 200:
		return fmt.Sprintf("n%d", b%8)
	case b < 210:
		return strings.Repeat("x", 63) + fmt.Sprint(i%10)
	case b < 220:
		return strings.Repeat("x", 65)
	case b < 230:
		return ""
	case b < 240:
		return "Upper"
	default:
		return "-dash"
	}
}

// count returns a member count: usually small, sometimes across the bounds.
func (g *draftGen) count() int {
	if b := g.next(); b < 200 {
		return int(b % 8)
	} else {
		return 56 + int(b%12) // 56..67
	}
}

func (g *draftGen) draft(level int) schema.Draft {
	g.budget--
	if g.budget < 0 || level > schema.MaxDepth+2 {
		return schema.Draft{Kind: "string"}
	}
	d := schema.Draft{Kind: genKinds[int(g.next())%len(genKinds)]}
	// Attributes of another kind appear only for high flag values.
	flags := g.next()
	misplaced := func(bit byte) bool { return flags >= 0xf0 && flags&bit != 0 }
	if d.Kind == "enumeration" || misplaced(1) {
		d.Cases = make([]string, g.count())
		for i := range d.Cases {
			d.Cases[i] = g.name(i)
		}
	}
	if (d.Kind == "array" && flags != 0xef) || misplaced(2) {
		items := g.draft(level + 1)
		d.Items = &items
	}
	if d.Kind == "object" || misplaced(4) {
		d.Fields = make([]schema.FieldDraft, g.count())
		for i := range d.Fields {
			d.Fields[i] = schema.FieldDraft{Name: g.name(i), Requirement: genReqs[int(g.next())%len(genReqs)]}
			d.Fields[i].Type = g.draft(level + 1)
		}
	}
	return d
}

var refName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// refValid is the reference model of a valid v1 Schema node at level:
// written from Sections 10, 39, 48 and 49, independently of the package.
func refValid(d schema.Draft, level int, nodes, depth *int) bool {
	*nodes++
	*depth = max(*depth, level)
	if level > 8 || *nodes > 256 {
		return false
	}
	uniqueNames := func(names []string) bool {
		seen := map[string]bool{}
		for _, n := range names {
			if !refName.MatchString(n) || seen[n] {
				return false
			}
			seen[n] = true
		}
		return true
	}
	switch d.Kind {
	case "string", "resourceID", "bool", "signedInteger", "unsignedInteger":
		return d.Cases == nil && d.Items == nil && d.Fields == nil
	case "enumeration":
		return d.Items == nil && d.Fields == nil && len(d.Cases) >= 1 && len(d.Cases) <= 64 && uniqueNames(d.Cases)
	case "array":
		return d.Cases == nil && d.Fields == nil && d.Items != nil && refValid(*d.Items, level+1, nodes, depth)
	case "object":
		if d.Cases != nil || d.Items != nil || len(d.Fields) > 64 {
			return false
		}
		names := make([]string, len(d.Fields))
		for i, f := range d.Fields {
			if f.Requirement != "required" && f.Requirement != "optional" {
				return false
			}
			names[i] = f.Name
		}
		if !uniqueNames(names) {
			return false
		}
		for _, f := range d.Fields {
			if !refValid(f.Type, level+1, nodes, depth) {
				return false
			}
		}
		return true
	}
	return false
}

// checkNormalized asserts the Section 50 order of a normalized draft.
func checkNormalized(t *testing.T, d schema.Draft) {
	t.Helper()
	if !isSortedUnique(d.Cases) || len(d.Cases) > schema.MaxCases {
		t.Fatalf("cases not normalized: %q", d.Cases)
	}
	if d.Items != nil {
		checkNormalized(t, *d.Items)
	}
	names := make([]string, len(d.Fields))
	for i, f := range d.Fields {
		names[i] = f.Name
		checkNormalized(t, f.Type)
	}
	if !isSortedUnique(names) || len(names) > schema.MaxFields {
		t.Fatalf("fields not normalized: %q", names)
	}
}
