package request_test

import (
	"bytes"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestEqualIsStricterThanByteEquality proves P-015 and Section 11
// "Canonicalization-v1 byte equality does not imply complete Canonical
// Request structural equality": each variant yields the very same canonical
// bytes as the base request and is still a different request.
func TestEqualIsStricterThanByteEquality(t *testing.T) {
	t.Parallel()
	host := boundary.New("host")
	assess := func(b boundary.Boundary, d assessment.Draft) *assessment.Assessment {
		a, err := assessment.New(b, d)
		if err != nil {
			t.Fatalf("assessment.New: %v", err)
		}
		return a
	}
	baseDraft := assessment.Draft{ProposalID: "proposal-1", AssessmentID: "assessment-1", ProvenanceIDs: []string{"prov-1"}}
	build := func(snap *registry.Snapshot, a *assessment.Assessment) *request.CanonicalRequest {
		r, err := request.New(snap, paymentsProposal(testutil.PaymentsArguments), a)
		if err != nil {
			t.Fatalf("request.New: %v", err)
		}
		return r
	}
	// again is built here, on the test goroutine, from inputs identical to
	// the base request's.
	again := build(paymentsSnapshot(t), assess(host, baseDraft))
	base := build(paymentsSnapshot(t), assess(host, baseDraft))

	cases := map[string]struct {
		other *request.CanonicalRequest
		// wantSameDigest is true only where the difference is the Host
		// domain: a boundary has no content to digest, so Equal compares
		// it by identity and the content digest cannot see it.
		wantSameDigest bool
	}{
		"a different assessment identity": {
			other: build(paymentsSnapshot(t), assess(host, assessment.Draft{
				ProposalID: "proposal-1", AssessmentID: "assessment-2", ProvenanceIDs: []string{"prov-1"},
			})),
		},
		"different expected provenance identities": {
			other: build(paymentsSnapshot(t), assess(host, assessment.Draft{
				ProposalID: "proposal-1", AssessmentID: "assessment-1", ProvenanceIDs: []string{"prov-2"},
			})),
		},
		"the same assessment content in a boundary with an equal description": {
			other:          build(paymentsSnapshot(t), assess(boundary.New("host"), baseDraft)),
			wantSameDigest: true,
		},
		"a definition differing only in title, with every identity kept": {
			other: build(paymentsSnapshot(t, func(d *registry.DefinitionDraft) { d.Title = "Submit a payment now" }), assess(host, baseDraft)),
		},
		"a definition differing only in capabilities": {
			other: build(paymentsSnapshot(t, func(d *registry.DefinitionDraft) { d.Capabilities = []string{"financial.transfer"} }), assess(host, baseDraft)),
		},
		"a Schema differing only in an enumeration case the arguments do not use": {
			other: build(paymentsSnapshot(t, func(d *registry.DefinitionDraft) {
				d.Schema.Root.Fields[1].Type.Cases = []string{"eur", "gbp", "usd", "chf"}
			}), assess(host, baseDraft)),
		},
		"a snapshot with the same identity and generation and one more unrelated definition": {
			other: build(testutil.Publish(t, testutil.RegistryDraft(append(paymentsDefinitions(),
				testutil.Definition("reports-export-1", "reports.export", "1"))...)), assess(host, baseDraft)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if !bytes.Equal(base.Bytes(), tc.other.Bytes()) {
				t.Fatal("the variant must have the same canonical bytes")
			}
			if base.Equal(tc.other) || tc.other.Equal(base) {
				t.Error("Equal = true for requests that differ outside the canonical bytes")
			}
			if got := base.Digest().Equal(tc.other.Digest()); got != tc.wantSameDigest {
				t.Errorf("digests equal = %v, want %v", got, tc.wantSameDigest)
			}
		})
	}

	t.Run("identical inputs build equal requests", func(t *testing.T) {
		t.Parallel()
		if again == base {
			t.Fatal("New returned a shared pointer")
		}
		if !base.Equal(again) || !base.Digest().Equal(again.Digest()) {
			t.Error("requests built from identical inputs are not equal")
		}
		if !base.Equal(base) {
			t.Error("a request is not equal to itself")
		}
	})
	if base.Equal(nil) || (*request.CanonicalRequest)(nil).Equal(base) || (*request.CanonicalRequest)(nil).Equal(nil) {
		t.Error("nil compares equal")
	}
}
