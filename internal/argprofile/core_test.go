package argprofile_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
)

// The seam: a definition whose Schema is the profile's and whose docRef
// binds its digest publishes in the unchanged registry, and a derivation is
// the arguments of an ordinary Canonical Request: equal JSON values give
// equal canonical bytes, a changed value other bytes.
func TestDerivationIsAnOrdinaryCanonicalRequest(t *testing.T) {
	t.Parallel()
	p := sampleProfile(t)
	snap, err := registry.Publish(registry.Draft{ID: "mcp-tools", Generation: "1", Definitions: []registry.DefinitionDraft{{
		ID: "search-entities-1", ToolID: "search.entities", Version: "1", Lifecycle: "active",
		Risk: "low", SideEffect: "readOnly", Reversibility: "notApplicable", Capabilities: []string{"data.read"},
		Title: "Search entities", Summary: "Searches entities.", DocRef: p.DocRef(),
		Schema: registry.SchemaDraft{ID: "search-entities", Version: "v1", Root: p.Schema()},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	b := boundary.New("argprofile test")
	canonical := func(raw string) []byte {
		t.Helper()
		args, err := p.Derive([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		a, err := assessment.New(b, assessment.Draft{ProposalID: "proposal-1", AssessmentID: "assessment-1"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := request.New(snap, request.Proposal{ProposalID: "proposal-1", ToolID: "search.entities", Version: "1", Arguments: args}, a)
		if err != nil {
			t.Fatalf("request.New(%s): %v", args, err)
		}
		return r.Bytes()
	}
	one := canonical(sampleCall)
	respelled := canonical(`{"tags":["a","b"],"region":"eu-west1","filter":{"a":"x","b":[1,25e-1]},"since":"2024-02-29",` +
		`"minScore":0.75,"max_results":10,"label":"Q3\u0009plan","query":"Zo\u00eb's notes","entityType":"Person"}`)
	other := canonical(strings.Replace(sampleCall, "Zoë's", "Zoe's", 1))
	if !bytes.Equal(one, respelled) {
		t.Error("the same JSON value in another spelling gives other canonical bytes")
	}
	if bytes.Equal(one, other) {
		t.Error("another value gives the same canonical bytes")
	}
}
