package schema_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/schema"
)

// TestResourcesDeriveOnlyFromResourceFields covers Sections 10 and 50: only
// reviewed resourceID fields produce Resources, anywhere in the tree; the set
// is unique and in ASCII order; empty derivation is nil (no authority).
func TestResourcesDeriveOnlyFromResourceFields(t *testing.T) {
	t.Parallel()
	d := object(
		opt("source", resource()),
		opt("label", str()),
		opt("approvers", array(resource())),
		opt("labels", array(str())),
		opt("details", object(
			opt("account", resource()),
			opt("lines", array(object(opt("account", resource()), opt("note", str())))),
		)),
	)
	cases := map[string]struct {
		draft         schema.Draft
		json          string
		wantResources []string
	}{
		"top-level resource field": {
			draft: d, json: `{"source":"acct-b"}`, wantResources: []string{"acct-b"},
		},
		"resources from every level are sorted and unique": {
			draft: d,
			json: `{"source":"m","approvers":["z","a","m"],` +
				`"details":{"account":"b","lines":[{"account":"a"},{"account":"y"}]}}`,
			wantResources: []string{"a", "b", "m", "y", "z"},
		},
		"repeated array occurrences add nothing": {
			draft: d, json: `{"approvers":["q","q","q"]}`, wantResources: []string{"q"},
		},
		"a string that looks like a resource adds nothing": {
			draft: d, json: `{"label":"acct-b","labels":["acct-c"],"details":{"lines":[{"note":"acct-d"}]}}`,
		},
		"an empty resource array adds nothing": {
			draft: d, json: `{"approvers":[]}`,
		},
		"absent optional resource fields add nothing": {
			draft: d, json: `{}`,
		},
		"a schema without resource fields derives nothing": {
			draft: object(req("name", str())), json: `{"name":"acct-b"}`,
		},
		"ASCII order puts digits and hyphens before letters": {
			draft: d, json: `{"approvers":["b","a-1","a1","9","a"]}`, wantResources: []string{"9", "a", "a-1", "a1", "b"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args, err := mustNew(t, tc.draft).Validate(decode(t, tc.json))
			if err != nil {
				t.Fatal(err)
			}
			got := args.Resources()
			if diff := cmp.Diff(tc.wantResources, resourceStrings(got)); diff != "" {
				t.Errorf("Resources (-want +got):\n%s", diff)
			}
			if len(tc.wantResources) == 0 && got != nil {
				t.Error("an empty derivation must be nil")
			}
		})
	}
}

func TestResourcesReturnsACopy(t *testing.T) {
	t.Parallel()
	args, err := mustNew(t, object(req("a", array(resource())))).Validate(decode(t, `{"a":["x","y"]}`))
	if err != nil {
		t.Fatal(err)
	}
	rs := args.Resources()
	rs[0], rs[1] = rs[1], rs[0]
	if diff := cmp.Diff([]string{"x", "y"}, resourceStrings(args.Resources())); diff != "" {
		t.Errorf("caller mutation leaked into Arguments (-want +got):\n%s", diff)
	}
}
