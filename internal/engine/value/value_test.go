package value_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/value"
)

func name(t *testing.T, s string) ident.Name {
	t.Helper()
	n, err := ident.ParseName(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStringValueBounds(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in       string
		wantCode fault.Code
	}{
		"empty string is valid":    {in: ""},
		"1024 octets is the bound": {in: strings.Repeat("a", 1024)},
		"1025 octets rejects":      {in: strings.Repeat("a", 1025), wantCode: fault.LimitExceeded},
		"spaces are preserved":     {in: "  a b  "},
		"tilde is printable":       {in: "~"},
		"tab rejects":              {in: "a\tb", wantCode: fault.Malformed},
		"DEL rejects":              {in: "\x7f", wantCode: fault.Malformed},
		"NUL rejects":              {in: "\x00", wantCode: fault.Malformed},
		"non-ASCII rejects":        {in: "\u00e9", wantCode: fault.Malformed},
	}
	for n, tc := range cases {
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			v, err := value.String(tc.in)
			if fault.CodeOf(err) != tc.wantCode {
				t.Fatalf("String error = %v, want code %v", err, tc.wantCode)
			}
			if err == nil && v.Text() != tc.in {
				t.Fatalf("Text() = %q, want the exact input", v.Text())
			}
		})
	}
}

func TestArrayAndObjectBounds(t *testing.T) {
	t.Parallel()
	elems := make([]value.Value, 65)
	for i := range elems {
		elems[i] = value.Bool(i%2 == 0)
	}
	if _, err := value.Array(elems[:64]); err != nil {
		t.Errorf("64 elements: %v", err)
	}
	if _, err := value.Array(elems); !errors.Is(err, fault.ErrLimitExceeded) {
		t.Errorf("65 elements: %v, want limitExceeded", err)
	}
	fields := make([]value.Field, 65)
	for i := range fields {
		fields[i] = value.NewField(name(t, "f"+string(rune('a'+i/26))+string(rune('a'+i%26))), value.Unsigned(uint64(i)))
	}
	if _, err := value.Object(fields[:64]); err != nil {
		t.Errorf("64 fields: %v", err)
	}
	if _, err := value.Object(fields); !errors.Is(err, fault.ErrLimitExceeded) {
		t.Errorf("65 fields: %v, want limitExceeded", err)
	}
	a, z := value.NewField(name(t, "a"), value.Bool(true)), value.NewField(name(t, "z"), value.Bool(false))
	if _, err := value.Object([]value.Field{z, a}); !errors.Is(err, fault.ErrDisordered) {
		t.Errorf("reordered fields: %v, want disordered", err)
	}
	if _, err := value.Object([]value.Field{a, a}); !errors.Is(err, fault.ErrDuplicate) {
		t.Errorf("duplicate fields: %v, want duplicate", err)
	}
	if _, err := value.Array([]value.Value{{}}); err == nil {
		t.Error("an array of zero values must reject")
	}
}

func TestEqualComparesKindAndContent(t *testing.T) {
	t.Parallel()
	r, _ := ident.ParseResource("acct-1")
	res, _ := value.Resource(r)
	str, _ := value.String("acct-1")
	e, _ := value.Enum(name(t, "acct-1"))
	if res.Equal(str) || str.Equal(e) || res.Equal(e) {
		t.Error("values with equal text but different kinds must differ")
	}
	if value.Signed(1).Equal(value.Unsigned(1)) {
		t.Error("signed and unsigned 1 must differ")
	}
	if value.Signed(-1).Equal(value.Unsigned(1<<64 - 1)) {
		t.Error("signed -1 and unsigned max share bits but must differ")
	}
	a1, _ := value.Array([]value.Value{value.Bool(false), value.Bool(true)})
	a2, _ := value.Array([]value.Value{value.Bool(true), value.Bool(false)})
	if a1.Equal(a2) {
		t.Error("array order is significant")
	}
	a3, _ := value.Array([]value.Value{value.Bool(false), value.Bool(true)})
	if !a1.Equal(a3) {
		t.Error("equal arrays must be Equal")
	}
}

// TestContainerAccessorsCheckKind: arrays and objects share one child
// slice, so Elem of an object and Field of an array must fail as loudly as
// indexing a missing slice did, and Lookup finds nothing in an array.
func TestContainerAccessorsCheckKind(t *testing.T) {
	t.Parallel()
	name, err := ident.ParseName("a")
	if err != nil {
		t.Fatal(err)
	}
	obj, err := value.Object([]value.Field{value.NewField(name, value.Bool(true))})
	if err != nil {
		t.Fatal(err)
	}
	arr, err := value.Array([]value.Value{value.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := arr.Elem(0); !got.Equal(value.Bool(true)) || obj.Field(0).Name() != name {
		t.Fatal("accessors of the right kind must return the member")
	}
	if _, ok := arr.Lookup(""); ok {
		t.Error("Lookup found a field in an array")
	}
	for label, f := range map[string]func(){
		"Elem of an object": func() { obj.Elem(0) },
		"Field of an array": func() { arr.Field(0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", label)
				}
			}()
			f()
		}()
	}
}
