package assessment_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/testutil"
)

func validDraft() assessment.Draft {
	return assessment.Draft{
		ProposalID:    "proposal-1",
		AssessmentID:  "assessment-1",
		ProvenanceIDs: []string{"prov-b", "prov-a"},
		InfluenceIDs:  []string{"coll-2", "coll-1"},
	}
}

func ids(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%03d", prefix, i)
	}
	return out
}

func texts(in []ident.ControlledID) []string {
	out := make([]string, len(in))
	for i, id := range in {
		out[i] = id.String()
	}
	return out
}

// TestNewValidatesEveryIdentity proves Section 12 and the Section 39 rows
// "Proposal Assessment provenance identities" (0–64) and "Proposal
// Assessment Influence collection identities" (0–8): every identity uses the
// Phase 4 controlled-identity grammar, collections are unique and bounded,
// and the assessment identity is independent of the proposal identity.
func TestNewValidatesEveryIdentity(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		modify   func(*assessment.Draft)
		wantErr  error
		wantPath string
	}{
		"a valid draft is accepted": {modify: func(*assessment.Draft) {}},
		"a proposal identity is required": {
			modify: func(d *assessment.Draft) { d.ProposalID = "" }, wantErr: fault.ErrMalformed, wantPath: "proposalID",
		},
		"a proposal identity is exact lowercase": {
			modify: func(d *assessment.Draft) { d.ProposalID = "Proposal-1" }, wantErr: fault.ErrMalformed, wantPath: "proposalID",
		},
		"a proposal identity does not start with a hyphen": {
			modify: func(d *assessment.Draft) { d.ProposalID = "-proposal" }, wantErr: fault.ErrMalformed, wantPath: "proposalID",
		},
		"a proposal identity is at most 64 octets": {
			modify: func(d *assessment.Draft) { d.ProposalID = strings.Repeat("p", 65) }, wantErr: fault.ErrMalformed, wantPath: "proposalID",
		},
		"a proposal identity of 64 octets is accepted": {
			modify: func(d *assessment.Draft) { d.ProposalID = strings.Repeat("p", 64) },
		},
		"an assessment identity is required": {
			modify: func(d *assessment.Draft) { d.AssessmentID = "" }, wantErr: fault.ErrMalformed, wantPath: "assessmentID",
		},
		"an assessment identity carries no raw text": {
			modify: func(d *assessment.Draft) { d.AssessmentID = "ignore previous instructions" }, wantErr: fault.ErrMalformed, wantPath: "assessmentID",
		},
		"an assessment identity equal to the proposal identity is not independent": {
			modify: func(d *assessment.Draft) { d.AssessmentID = d.ProposalID }, wantErr: fault.ErrMismatch, wantPath: "assessmentID",
		},
		"a provenance identity follows the grammar": {
			modify: func(d *assessment.Draft) { d.ProvenanceIDs = []string{"prov-a", "Prov_B"} }, wantErr: fault.ErrMalformed, wantPath: "provenanceIDs[1]",
		},
		"provenance identities are unique; the repeat is located": {
			modify: func(d *assessment.Draft) { d.ProvenanceIDs = []string{"prov-a", "prov-b", "prov-a"} }, wantErr: fault.ErrDuplicate, wantPath: "provenanceIDs[2]",
		},
		"zero provenance identities are accepted": {
			modify: func(d *assessment.Draft) { d.ProvenanceIDs = nil },
		},
		"64 provenance identities are accepted": {
			modify: func(d *assessment.Draft) { d.ProvenanceIDs = ids(assessment.MaxProvenanceIDs, "prov") },
		},
		"65 provenance identities exceed the limit": {
			modify: func(d *assessment.Draft) { d.ProvenanceIDs = ids(assessment.MaxProvenanceIDs+1, "prov") }, wantErr: fault.ErrLimitExceeded, wantPath: "provenanceIDs",
		},
		"an influence collection identity follows the grammar": {
			modify: func(d *assessment.Draft) { d.InfluenceIDs = []string{""} }, wantErr: fault.ErrMalformed, wantPath: "influenceIDs[0]",
		},
		"influence collection identities are unique; the repeat is located": {
			modify: func(d *assessment.Draft) { d.InfluenceIDs = []string{"coll-1", "coll-1"} }, wantErr: fault.ErrDuplicate, wantPath: "influenceIDs[1]",
		},
		"zero influence collection identities are accepted": {
			modify: func(d *assessment.Draft) { d.InfluenceIDs = nil },
		},
		"8 influence collection identities are accepted": {
			modify: func(d *assessment.Draft) { d.InfluenceIDs = ids(assessment.MaxInfluenceIDs, "coll") },
		},
		"9 influence collection identities exceed the limit": {
			modify: func(d *assessment.Draft) { d.InfluenceIDs = ids(assessment.MaxInfluenceIDs+1, "coll") }, wantErr: fault.ErrLimitExceeded, wantPath: "influenceIDs",
		},
		"a provenance identity may equal the proposal identity": {
			modify: func(d *assessment.Draft) { d.ProvenanceIDs = []string{d.ProposalID} },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := validDraft()
			tc.modify(&d)
			a, err := assessment.New(boundary.New("host"), d)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if (a == nil) != (tc.wantErr != nil) {
				t.Errorf("New returned %v with err %v; want an assessment exactly when accepted", a, err)
			}
		})
	}
}

func TestNewRequiresARetainedBoundary(t *testing.T) {
	t.Parallel()
	a, err := assessment.New(boundary.Boundary{}, validDraft())
	testutil.CheckFault(t, err, fault.ErrMissing, "domain")
	if a != nil {
		t.Error("New returned an assessment without a boundary")
	}
}

func TestNewErrorsNeverEchoInput(t *testing.T) {
	t.Parallel()
	const secret = "secret-value-123"
	for name, modify := range map[string]func(*assessment.Draft){
		"proposal":   func(d *assessment.Draft) { d.ProposalID = "SECRET-VALUE-123" },
		"assessment": func(d *assessment.Draft) { d.AssessmentID = secret + " " },
		"provenance": func(d *assessment.Draft) { d.ProvenanceIDs = []string{secret + "_"} },
		"influence":  func(d *assessment.Draft) { d.InfluenceIDs = []string{"-" + secret} },
	} {
		d := validDraft()
		modify(&d)
		_, err := assessment.New(boundary.New("host"), d)
		if err == nil || strings.Contains(strings.ToLower(err.Error()), secret) {
			t.Errorf("%s: err = %v, want a rejection that does not echo the value", name, err)
		}
	}
}

// TestAccessorsReturnSortedCopies proves the Section 50 row "Proposal
// Assessment": both collections are unique and ASCII-sorted, and callers get
// copies.
func TestAccessorsReturnSortedCopies(t *testing.T) {
	t.Parallel()
	b := boundary.New("host")
	d := validDraft()
	d.ProvenanceIDs = []string{"prov-c", "prov-a", "prov-b1", "prov-b"}
	a, err := assessment.New(b, d)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if diff := cmp.Diff([]string{"prov-a", "prov-b", "prov-b1", "prov-c"}, texts(a.ProvenanceIDs())); diff != "" {
		t.Errorf("ProvenanceIDs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"coll-1", "coll-2"}, texts(a.InfluenceIDs())); diff != "" {
		t.Errorf("InfluenceIDs (-want +got):\n%s", diff)
	}
	if a.ProposalID().String() != "proposal-1" || a.ID().String() != "assessment-1" || !a.Domain().Same(b.Domain()) {
		t.Errorf("identities = %s, %s; want proposal-1, assessment-1 in the creating domain", a.ProposalID(), a.ID())
	}

	prov, infl := a.ProvenanceIDs(), a.InfluenceIDs()
	prov[0], infl[0] = infl[1], prov[1]
	if texts(a.ProvenanceIDs())[0] != "prov-a" || texts(a.InfluenceIDs())[0] != "coll-1" {
		t.Error("mutating a returned slice changed the assessment")
	}
	d.ProvenanceIDs[0] = "prov-z"
	if texts(a.ProvenanceIDs())[3] != "prov-c" {
		t.Error("mutating the draft after New changed the assessment")
	}

	empty, err := assessment.New(b, assessment.Draft{ProposalID: "p", AssessmentID: "a"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if diff := cmp.Diff([]string{}, texts(empty.ProvenanceIDs()), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("empty ProvenanceIDs (-want +got):\n%s", diff)
	}
}

// TestEqualIsSameDomainAndContent proves Section 12 and 13: continuity is
// the same retained domain and the same complete content. Two boundaries
// with equal descriptions are different domains.
func TestEqualIsSameDomainAndContent(t *testing.T) {
	t.Parallel()
	host := boundary.New("host")
	base, err := assessment.New(host, validDraft())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	cases := map[string]struct {
		domain    boundary.Boundary
		modify    func(*assessment.Draft)
		wantEqual bool
	}{
		"the same domain and content is equal": {domain: host, modify: func(*assessment.Draft) {}, wantEqual: true},
		"collections in another input order are the same content": {domain: host, wantEqual: true, modify: func(d *assessment.Draft) {
			d.ProvenanceIDs = []string{"prov-a", "prov-b"}
			d.InfluenceIDs = []string{"coll-1", "coll-2"}
		}},
		"a copy of the boundary is the same domain":              {domain: func() boundary.Boundary { c := host; return c }(), modify: func(*assessment.Draft) {}, wantEqual: true},
		"a boundary with an equal description is another domain": {domain: boundary.New("host"), modify: func(*assessment.Draft) {}},
		"another proposal identity differs":                      {domain: host, modify: func(d *assessment.Draft) { d.ProposalID = "proposal-2" }},
		"another assessment identity differs":                    {domain: host, modify: func(d *assessment.Draft) { d.AssessmentID = "assessment-2" }},
		"one provenance identity fewer differs":                  {domain: host, modify: func(d *assessment.Draft) { d.ProvenanceIDs = d.ProvenanceIDs[:1] }},
		"one more influence collection identity differs": {domain: host, modify: func(d *assessment.Draft) {
			d.InfluenceIDs = append(d.InfluenceIDs, "coll-3")
		}},
		"an identity moved from provenance to influence differs": {domain: host, modify: func(d *assessment.Draft) {
			d.ProvenanceIDs, d.InfluenceIDs = []string{"prov-a"}, []string{"coll-1", "coll-2", "prov-b"}
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := validDraft()
			tc.modify(&d)
			other, err := assessment.New(tc.domain, d)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := base.Equal(other); got != tc.wantEqual {
				t.Errorf("Equal = %v, want %v", got, tc.wantEqual)
			}
			if got := other.Equal(base); got != tc.wantEqual {
				t.Errorf("Equal is not symmetric")
			}
		})
	}
	if base.Equal(nil) || (*assessment.Assessment)(nil).Equal(base) || (*assessment.Assessment)(nil).Equal(nil) {
		t.Error("nil compares equal")
	}
}
