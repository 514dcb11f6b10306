package registry_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/testutil"
)

// equalityDefinitions returns the base content: payments.submit plus an
// unrelated accounts.lookup definition.
func equalityDefinitions(mods ...testutil.DefinitionModifier) []registry.DefinitionDraft {
	return []registry.DefinitionDraft{
		testutil.PaymentsDefinition(mods...),
		testutil.Definition("accounts-lookup-1", "accounts.lookup", "1"),
	}
}

// TestEqualityIsCompleteContent proves Section 9 "Identifier equality is
// insufficient when complete bound definition or Schema content differs":
// each variant keeps the snapshot identity and generation and every
// definition identity, Tool Identifier and Version, and changes one piece of
// content.
func TestEqualityIsCompleteContent(t *testing.T) {
	t.Parallel()
	cases := map[string]testutil.DefinitionModifier{
		"a different title":              func(d *registry.DefinitionDraft) { d.Title = "Submit one payment" },
		"a different summary":            func(d *registry.DefinitionDraft) { d.Summary = "Submits a payment." },
		"a different docRef":             func(d *registry.DefinitionDraft) { d.DocRef = "payments.submit-v1b" },
		"an absent docRef":               func(d *registry.DefinitionDraft) { d.DocRef = "" },
		"a different risk":               func(d *registry.DefinitionDraft) { d.Risk = "critical" },
		"a different side effect":        func(d *registry.DefinitionDraft) { d.SideEffect = "irreversibleMutation" },
		"a different reversibility":      func(d *registry.DefinitionDraft) { d.Reversibility = "irreversible" },
		"a different lifecycle":          func(d *registry.DefinitionDraft) { d.Lifecycle = "deprecated" },
		"one more capability":            func(d *registry.DefinitionDraft) { d.Capabilities = append(d.Capabilities, "data.write") },
		"one capability fewer":           func(d *registry.DefinitionDraft) { d.Capabilities = []string{"financial.transfer"} },
		"a different schema identity":    func(d *registry.DefinitionDraft) { d.Schema.ID = "payments-submit-args-2" },
		"an optional field now required": func(d *registry.DefinitionDraft) { d.Schema.Root.Fields[4].Requirement = "required" },
		"one more enumeration case": func(d *registry.DefinitionDraft) {
			d.Schema.Root.Fields[1].Type.Cases = []string{"eur", "gbp", "usd", "chf"}
		},
		"a string field now a resource": func(d *registry.DefinitionDraft) {
			d.Schema.Root.Fields[4].Type = schema.Draft{Kind: "resourceID"}
		},
		"a nested field renamed": func(d *registry.DefinitionDraft) {
			d.Schema.Root.Fields[7].Type.Fields[1].Name = "urgency"
		},
		"array items of another kind": func(d *registry.DefinitionDraft) {
			d.Schema.Root.Fields[6].Type.Items = &schema.Draft{Kind: "resourceID"}
		},
	}
	base := testutil.Publish(t, testutil.RegistryDraft(equalityDefinitions()...))
	baseDef := lookupPayments(t, base)
	for name, modify := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			other := testutil.Publish(t, testutil.RegistryDraft(equalityDefinitions(modify)...))
			otherDef := lookupPayments(t, other)
			if other.ID() != base.ID() || other.Generation() != base.Generation() || otherDef.ID() != baseDef.ID() {
				t.Fatal("the variant must keep every identity")
			}
			if base.Equal(other) {
				t.Error("Snapshot.Equal = true for snapshots with different definition content")
			}
			if baseDef.Equal(otherDef) {
				t.Error("Definition.Equal = true for definitions with different content")
			}
			if baseDef.Digest().Equal(otherDef.Digest()) || base.Digest().Equal(other.Digest()) {
				t.Error("digests are equal for different content")
			}
		})
	}
}

func TestEqualityAcceptsIdenticalContent(t *testing.T) {
	t.Parallel()
	defs := equalityDefinitions()
	a := testutil.Publish(t, testutil.RegistryDraft(defs...))
	b := testutil.Publish(t, testutil.RegistryDraft(defs...))
	c := testutil.Publish(t, testutil.RegistryDraft(defs[1], defs[0]))
	for name, other := range map[string]*registry.Snapshot{
		"identical drafts publish equal snapshots": b,
		"permuted drafts publish equal snapshots":  c,
	} {
		if a == other {
			t.Fatalf("%s: Publish returned a shared pointer", name)
		}
		if !a.Equal(other) || !a.Digest().Equal(other.Digest()) {
			t.Errorf("%s: not equal", name)
		}
		if !lookupPayments(t, a).Equal(lookupPayments(t, other)) {
			t.Errorf("%s: definitions not equal", name)
		}
	}
}

func TestEqualityDistinguishesSnapshotIdentityAndGeneration(t *testing.T) {
	t.Parallel()
	defs := equalityDefinitions()
	base := testutil.Publish(t, registry.Draft{ID: "primary-registry", Generation: "1", Definitions: defs})
	cases := map[string]registry.Draft{
		"a later generation with the same content is another snapshot": {ID: "primary-registry", Generation: "2", Definitions: defs},
		"another identity with the same content is another snapshot":   {ID: "secondary-registry", Generation: "1", Definitions: defs},
		"one definition fewer is another snapshot":                     {ID: "primary-registry", Generation: "1", Definitions: defs[:1]},
	}
	for name, d := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if base.Equal(testutil.Publish(t, d)) {
				t.Error("Snapshot.Equal = true")
			}
		})
	}
	if base.Equal(nil) || (*registry.Snapshot)(nil).Equal(nil) || (*registry.Definition)(nil).Equal(nil) {
		t.Error("nil compares equal")
	}
}

func lookupPayments(t testing.TB, s *registry.Snapshot) *registry.Definition {
	t.Helper()
	res, err := s.Lookup(mustToolID(t, "payments.submit"), mustGeneration(t, "1"))
	if err != nil {
		t.Fatalf("Lookup(payments.submit, 1): %v", err)
	}
	return res.Definition()
}
