package lineage_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/lineage"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/testutil"
)

// Section 16: "Missing coverage defaults to unknown; known but unverified and
// model-asserted records remain untrusted", and "Unsupported semantic
// transformations MUST NOT receive a trust upgrade". Each row is validated
// through NewProvenance, so the derived trust is what policy reads.
func TestRecordTrustClassification(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		source          string
		verification    string
		transformations []string
		want            vocab.Trust
	}{
		"unknown source stays unknown even when host-verified": {
			source: "unknown", verification: "hostVerified", want: vocab.TrustUnknown,
		},
		"unknown source stays unknown when unverified": {
			source: "unknown", verification: "unverified", want: vocab.TrustUnknown,
		},
		"unknown source with a semantic transformation is still unknown": {
			source: "unknown", verification: "hostVerified", transformations: []string{"summarized"}, want: vocab.TrustUnknown,
		},
		"model-asserted remains untrusted even when host-verified": {
			source: "modelOutput", verification: "hostVerified", want: vocab.TrustUntrusted,
		},
		"model-asserted and unverified is untrusted": {
			source: "modelOutput", verification: "unverified", want: vocab.TrustUntrusted,
		},
		"known but unverified remains untrusted": {
			source: "directUserInput", verification: "unverified", want: vocab.TrustUntrusted,
		},
		"known, unverified, structural transformations only: untrusted": {
			source: "documentContent", verification: "unverified", transformations: []string{"extracted", "redacted"}, want: vocab.TrustUntrusted,
		},
		"known and host-verified without transformations is host-verified": {
			source: "directUserInput", verification: "hostVerified", want: vocab.TrustHostVerified,
		},
		"structural transformations keep host verification": {
			source: "documentContent", verification: "hostVerified", transformations: []string{"extracted", "filtered", "redacted", "extracted"}, want: vocab.TrustHostVerified,
		},
		"semantic transformation never upgrades: summarized": {
			source: "documentContent", verification: "hostVerified", transformations: []string{"summarized"}, want: vocab.TrustUntrusted,
		},
		"semantic transformation never upgrades: translated": {
			source: "emailContent", verification: "hostVerified", transformations: []string{"translated"}, want: vocab.TrustUntrusted,
		},
		"semantic transformation never upgrades: generatedByModel": {
			source: "toolOutput", verification: "hostVerified", transformations: []string{"generatedByModel"}, want: vocab.TrustUntrusted,
		},
		"semantic transformation never upgrades: combined": {
			source: "applicationState", verification: "hostVerified", transformations: []string{"combined"}, want: vocab.TrustUntrusted,
		},
		"a semantic step after structural ones still prevents the upgrade": {
			source: "retrievedWebContent", verification: "hostVerified", transformations: []string{"extracted", "filtered", "translated"}, want: vocab.TrustUntrusted,
		},
		"a semantic step before structural ones still prevents the upgrade": {
			source: "importedExternalData", verification: "hostVerified", transformations: []string{"combined", "redacted"}, want: vocab.TrustUntrusted,
		},
		"host-generated value, host-verified": {
			source: "hostGeneratedValue", verification: "hostVerified", want: vocab.TrustHostVerified,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			in := provInput{authority: e.prov, attestationID: "att", validity: e.validity,
				assessment: e.assess(t, []string{"r-1"}, nil), identity: e.id,
				records: []lineage.RecordDraft{{ID: "r-1", Source: tc.source, Custody: "ev-1",
					Transformations: tc.transformations, Verification: tc.verification}}}
			p := testutil.Must[*lineage.Provenance](t)(in.build())
			r := p.Records()[0]
			if got := r.Trust(); got != tc.want {
				t.Errorf("Trust = %v, want %v", got, tc.want)
			}
			if got := lineage.Classify(r.Source(), r.Verification(), r.Transformations()); got != tc.want {
				t.Errorf("Classify = %v, want %v", got, tc.want)
			}
		})
	}
}

// Every known source other than modelOutput can be host-verified; every
// source is untrusted or unknown when unverified.
func TestClassifyEverySource(t *testing.T) {
	t.Parallel()
	for _, s := range vocab.AllProvenanceSource() {
		verified := vocab.TrustHostVerified
		unverified := vocab.TrustUntrusted
		switch s {
		case vocab.SourceUnknown:
			verified, unverified = vocab.TrustUnknown, vocab.TrustUnknown
		case vocab.SourceModelOutput:
			verified = vocab.TrustUntrusted
		}
		if got := lineage.Classify(s, vocab.HostVerified, nil); got != verified {
			t.Errorf("Classify(%v, hostVerified) = %v, want %v", s, got, verified)
		}
		if got := lineage.Classify(s, vocab.Unverified, nil); got != unverified {
			t.Errorf("Classify(%v, unverified) = %v, want %v", s, got, unverified)
		}
		for _, tr := range vocab.AllTransformation() {
			want := verified
			if lineage.Semantic(tr) && want == vocab.TrustHostVerified {
				want = vocab.TrustUntrusted
			}
			if got := lineage.Classify(s, vocab.HostVerified, []vocab.Transformation{tr}); got != want {
				t.Errorf("Classify(%v, hostVerified, %v) = %v, want %v", s, tr, got, want)
			}
		}
	}
}

func TestSemanticTransformations(t *testing.T) {
	t.Parallel()
	var semantic, structural []string
	for _, tr := range vocab.AllTransformation() {
		if lineage.Semantic(tr) {
			semantic = append(semantic, tr.String())
		} else {
			structural = append(structural, tr.String())
		}
	}
	if diff := cmp.Diff([]string{"summarized", "translated", "generatedByModel", "combined"}, semantic); diff != "" {
		t.Errorf("semantic transformations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"extracted", "filtered", "redacted"}, structural); diff != "" {
		t.Errorf("structural transformations (-want +got):\n%s", diff)
	}

	e := newEnv(t)
	in := provInput{authority: e.prov, attestationID: "att", validity: e.validity,
		assessment: e.assess(t, []string{"r-1", "r-2"}, nil), identity: e.id,
		records: []lineage.RecordDraft{
			{ID: "r-1", Source: "documentContent", Custody: "ev-1", Transformations: []string{"extracted", "combined"}, Verification: "hostVerified"},
			{ID: "r-2", Source: "documentContent", Custody: "ev-2", Transformations: []string{"extracted", "redacted"}, Verification: "hostVerified"},
		}}
	rs := testutil.Must[*lineage.Provenance](t)(in.build()).Records()
	if !rs[0].HasSemanticTransformation() || rs[1].HasSemanticTransformation() {
		t.Errorf("HasSemanticTransformation = %v, %v; want true, false",
			rs[0].HasSemanticTransformation(), rs[1].HasSemanticTransformation())
	}
}
