package schema

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
	"github.com/toolgate/toolgate/internal/engine/vocab"
)

// TestValidateJSONClearsItsScratch checks that no value of one call stays
// reachable through the pooled scratch stacks: after accepted inputs and
// inputs rejected deep inside nested containers (which stop without
// popping), every entry up to the stacks' capacity is the zero value.
func TestValidateJSONClearsItsScratch(t *testing.T) {
	id, err := ident.ParseSchemaID("scratch-test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(id, vocab.V1, Draft{Kind: "object", Fields: []FieldDraft{
		{Name: "a", Requirement: "optional", Type: Draft{Kind: "array", Items: &Draft{Kind: "object", Fields: []FieldDraft{
			{Name: "x", Requirement: "required", Type: Draft{Kind: "string"}},
			{Name: "y", Requirement: "optional", Type: Draft{Kind: "array", Items: &Draft{Kind: "bool"}}},
		}}}},
		{Name: "b", Requirement: "optional", Type: Draft{Kind: "string"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		`{"b":"x","a":[{"y":[true,false],"x":"p"},{"x":"q"}]}`,   // accepted, members out of order
		`{"a":[{"x":"p","y":[true]},{"y":[true,false],"x":"q"`,   // rejected at the end, nothing popped
		`{"b":"x","a":[{"x":"p"},{"x":"q","y":[true,false,1]}]}`, // rejected in the innermost array
		`{"a":[{"x":"p"},{"y":[true]}]}`,                         // missing required member
		`{"b":"x","a":[{"y":[true],"x":"q"`,                      // rejected above every earlier high-water mark
		`{"b":"x","a":[{"x":"q","y":[true,true,true,`,            // rejected inside the deepest array
	} {
		s.ValidateJSON([]byte(in))
		sc := scratchPool.Get().(*scratch)
		for i, f := range sc.fields[:cap(sc.fields)] {
			if !f.Name().IsZero() || !f.Value().Equal(value.Value{}) {
				t.Fatalf("after %s: fields[%d] is not cleared", in, i)
			}
		}
		for i, e := range sc.elems[:cap(sc.elems)] {
			if !e.Equal(value.Value{}) {
				t.Fatalf("after %s: elems[%d] is not cleared", in, i)
			}
		}
		scratchPool.Put(sc)
	}
}
