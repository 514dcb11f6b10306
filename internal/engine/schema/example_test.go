package schema_test

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/jsonexact"
)

func Example() {
	id, _ := ident.ParseSchemaID("payments-submit")
	s, err := schema.New(id, vocab.V1, schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
		{Name: "to", Requirement: "required", Type: schema.Draft{Kind: "resourceID"}},
		{Name: "amount", Requirement: "required", Type: schema.Draft{Kind: "unsignedInteger"}},
		{Name: "currency", Requirement: "required", Type: schema.Draft{Kind: "enumeration", Cases: []string{"usd", "chf"}}},
		{Name: "memo", Requirement: "optional", Type: schema.Draft{Kind: "string"}},
	}})
	if err != nil {
		panic(err)
	}

	in, _ := jsonexact.Decode([]byte(`{"to":"acct-7","currency":"chf","amount":250}`), jsonexact.Limits{})
	args, err := s.Validate(in)
	fmt.Println(args.Root().Len(), args.Resources(), err)

	in, _ = jsonexact.Decode([]byte(`{"to":"acct-7","currency":"CHF","amount":250}`), jsonexact.Limits{})
	_, err = s.Validate(in)
	fmt.Println(err)
	// Output:
	// 3 [acct-7] <nil>
	// engine: arguments.currency: unknownToken: the value must exactly equal one of the declared enumeration cases (no case folding, aliases or whitespace repair)
}
