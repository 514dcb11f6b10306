package authz_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/authz"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/principal"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestMatchesIsSealedEquality: Validation compares the binding it derives
// from the independent context with the artifact's by content, without
// hashing it. That comparison accepts exactly the binding Issue sealed, and
// rejects a binding that differs in any one bound value, each of which
// changes the binding digest (or, for the Host domain, which has no content,
// Equal).
func TestMatchesIsSealedEquality(t *testing.T) {
	t.Parallel()
	b := boundary.New("payments host")
	w := build(t, base(b))
	a := w.issue(t)
	unsealed := authz.Unsealed(a)
	if !authz.Matches(unsealed, a.Binding(), w.in) {
		t.Fatal("the derived binding does not match the sealed one")
	}
	if authz.Matches(unsealed, nil, w.in) {
		t.Error("a nil binding matches")
	}
	other, err := principal.New(principal.Draft{Subject: "someone-else", Tenant: "acme", SessionIndependent: true})
	if err != nil {
		t.Fatal(err)
	}
	variants := authz.BindingVariants(a, boundary.New("another host").Domain(), other)
	testutil.CheckVariantsCoverFields(t, "binding", variants, authz.BindingContentFields())
	for field, v := range variants {
		if field == "domain" {
			if !v.Digest().Equal(a.Binding().Digest()) || v.Equal(a.Binding()) {
				t.Errorf("the domain has no content but is compared: digest equal %v, Equal %v",
					v.Digest().Equal(a.Binding().Digest()), v.Equal(a.Binding()))
			}
		} else if v.Digest().Equal(a.Binding().Digest()) {
			t.Errorf("changing %s does not change the binding digest", field)
		}
		if authz.Matches(unsealed, v, w.in) {
			t.Errorf("a binding differing in %s matches", field)
		}
	}
}
