package request_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/assessment"
	"github.com/toolgate/toolgate/internal/engine/boundary"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/request"
	"github.com/toolgate/toolgate/internal/testutil"
)

// required is the required part of a payments argument object.
const required = `"currency":"eur","debtor-account":"acct-2002","creditor-account":"acct-1001"`

// inputs is one set of request.New arguments that a case modifies.
type inputs struct {
	snap     *registry.Snapshot
	proposal request.Proposal
	assess   *assessment.Assessment
}

// TestNewRejectsWithNoRequest proves that Section 11 construction is
// all-or-nothing: every failure of selection, continuity, resolution,
// decoding, validation or encoding returns a closed code, a path and no
// request at all.
func TestNewRejectsWithNoRequest(t *testing.T) {
	t.Parallel()
	host := boundary.New("host")
	args := func(s string) func(*inputs) {
		return func(in *inputs) { in.proposal.Arguments = []byte(s) }
	}
	cases := map[string]struct {
		modify   func(*inputs)
		wantErr  error
		wantPath string
	}{
		"a registry snapshot must be selected": {
			modify: func(in *inputs) { in.snap = nil }, wantErr: fault.ErrMissing, wantPath: "registry",
		},
		"a proposal assessment is required": {
			modify: func(in *inputs) { in.assess = nil }, wantErr: fault.ErrMissing, wantPath: "assessment",
		},
		"an assessment of another proposal does not compose": {
			modify:  func(in *inputs) { in.assess = testutil.Assess(t, host, "proposal-2") },
			wantErr: fault.ErrMismatch, wantPath: "assessment.proposalID",
		},
		"a malformed proposal identity rejects": {
			modify:  func(in *inputs) { in.proposal.ProposalID = "Proposal 1" },
			wantErr: fault.ErrMalformed, wantPath: "proposal.proposalID",
		},
		"a malformed tool identifier rejects": {
			modify:  func(in *inputs) { in.proposal.ToolID = "payments" },
			wantErr: fault.ErrMalformed, wantPath: "proposal.toolID",
		},
		"a case-folded tool identifier is not repaired": {
			modify:  func(in *inputs) { in.proposal.ToolID = "Payments.Submit" },
			wantErr: fault.ErrMalformed, wantPath: "proposal.toolID",
		},
		"a malformed tool version rejects": {
			modify:  func(in *inputs) { in.proposal.Version = "01" },
			wantErr: fault.ErrMalformed, wantPath: "proposal.version",
		},
		"a missing tool version is not latest": {
			modify:  func(in *inputs) { in.proposal.Version = "" },
			wantErr: fault.ErrMalformed, wantPath: "proposal.version",
		},
		"an unknown tool is not found": {
			modify:  func(in *inputs) { in.proposal.ToolID = "payments.cancel" },
			wantErr: fault.ErrNotFound, wantPath: "proposal",
		},
		"an unknown version is not found": {
			modify:  func(in *inputs) { in.proposal.Version = "2" },
			wantErr: fault.ErrNotFound, wantPath: "proposal",
		},
		"a retired tool is ineligible": {
			modify: func(in *inputs) {
				in.proposal.ToolID = "payments.refund"
				in.proposal.Arguments = []byte(`{}`)
			},
			wantErr: fault.ErrIneligible, wantPath: "proposal",
		},
		"empty arguments are malformed": {
			modify: args(""), wantErr: fault.ErrMalformed, wantPath: "arguments",
		},
		"arguments that are not JSON are malformed": {
			modify: args(`{"amount":12500,` + required), wantErr: fault.ErrMalformed, wantPath: "arguments",
		},
		"a duplicate key rejects before validation": {
			modify: args(`{"amount":12500,"amount":1,` + required + `}`), wantErr: fault.ErrDuplicate, wantPath: "arguments",
		},
		"a duplicate key in a nested object rejects": {
			modify:  args(`{"amount":1,` + required + `,"channel":{"kind":"api","kind":"batch"}}`),
			wantErr: fault.ErrDuplicate, wantPath: "arguments",
		},
		"null rejects": {
			modify: args(`{"amount":null,` + required + `}`), wantErr: fault.ErrKindMismatch, wantPath: "arguments",
		},
		"a fraction rejects": {
			modify: args(`{"amount":12500.0,` + required + `}`), wantErr: fault.ErrKindMismatch, wantPath: "arguments",
		},
		"an exponent rejects": {
			modify: args(`{"amount":125e2,` + required + `}`), wantErr: fault.ErrKindMismatch, wantPath: "arguments",
		},
		"an integer beyond 2^64-1 is out of range": {
			modify: args(`{"amount":18446744073709551616,` + required + `}`), wantErr: fault.ErrOutOfRange, wantPath: "arguments",
		},
		"negative zero is out of range": {
			modify:  args(`{"amount":1,` + required + `,"channel":{"kind":"api","priority":-0}}`),
			wantErr: fault.ErrOutOfRange, wantPath: "arguments",
		},
		"a negative unsigned integer is out of range": {
			modify: args(`{"amount":-1,` + required + `}`), wantErr: fault.ErrOutOfRange, wantPath: "arguments.amount",
		},
		"a signed integer beyond 2^63-1 is out of range": {
			modify:  args(`{"amount":1,` + required + `,"channel":{"kind":"api","priority":9223372036854775808}}`),
			wantErr: fault.ErrOutOfRange, wantPath: "arguments.channel.priority",
		},
		"a number in a string is not coerced": {
			modify: args(`{"amount":"12500",` + required + `}`), wantErr: fault.ErrKindMismatch, wantPath: "arguments.amount",
		},
		"arguments that are an array are not an object": {
			modify: args(`[]`), wantErr: fault.ErrKindMismatch, wantPath: "arguments",
		},
		"arguments that are a string are not an object": {
			modify: args(`"amount"`), wantErr: fault.ErrKindMismatch, wantPath: "arguments",
		},
		"an unknown field rejects": {
			modify: args(`{"amount":1,"fee":2,` + required + `}`), wantErr: fault.ErrUnknownField, wantPath: "arguments",
		},
		"a missing required field rejects": {
			modify: args(`{` + required + `}`), wantErr: fault.ErrMissing, wantPath: "arguments.amount",
		},
		"an enumeration value is not case folded": {
			modify:  args(`{"amount":1,"currency":"EUR","debtor-account":"acct-2002","creditor-account":"acct-1001"}`),
			wantErr: fault.ErrUnknownToken, wantPath: "arguments.currency",
		},
		"JSON nested deeper than eight containers rejects": {
			modify:  args(`{"amount":1,` + required + `,"invoice-refs":[[[[[[[["x"]]]]]]]]}`),
			wantErr: fault.ErrLimitExceeded, wantPath: "arguments",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := inputs{
				snap:     paymentsSnapshot(t),
				proposal: paymentsProposal(testutil.PaymentsArguments),
				assess:   testutil.Assess(t, host, "proposal-1"),
			}
			tc.modify(&in)
			r, err := request.New(in.snap, in.proposal, in.assess)
			testutil.CheckFault(t, err, tc.wantErr, tc.wantPath)
			if r != nil {
				t.Error("New returned a request with an error; construction is all-or-nothing")
			}
		})
	}
}

// TestNewRejectsAZeroDomainAssessment: an assessment value that was not
// created by assessment.New has no domain and binds nothing.
func TestNewRejectsAZeroDomainAssessment(t *testing.T) {
	t.Parallel()
	r, err := request.New(paymentsSnapshot(t), paymentsProposal(testutil.PaymentsArguments), &assessment.Assessment{})
	testutil.CheckFault(t, err, fault.ErrMissing, "assessment")
	if r != nil {
		t.Error("New returned a request")
	}
}

// TestNewErrorsNeverEchoInput proves Section 38 for request construction:
// neither field names nor values from the arguments appear in a rejection.
func TestNewErrorsNeverEchoInput(t *testing.T) {
	t.Parallel()
	const secret = "secret-value-123"
	a := testutil.Assess(t, boundary.New("host"), "proposal-1")
	snap := paymentsSnapshot(t)
	for name, p := range map[string]request.Proposal{
		"unknown field name": paymentsProposal(`{"amount":1,"secret-value-123":1,` + required + `}`),
		"control character":  paymentsProposal(`{"amount":1,"memo":"secret-value-123\u0001",` + required + `}`),
		"enumeration value":  paymentsProposal(`{"amount":1,"currency":"secret-value-123","debtor-account":"a","creditor-account":"b"}`),
		"resource value":     paymentsProposal(`{"amount":1,"currency":"eur","debtor-account":"Secret-Value-123","creditor-account":"b"}`),
		"duplicate key":      paymentsProposal(`{"secret-value-123":1,"secret-value-123":1}`),
		"tool identifier":    {ProposalID: "proposal-1", ToolID: "secret-value-123", Version: "1", Arguments: []byte(`{}`)},
		"unknown tool":       {ProposalID: "proposal-1", ToolID: "secret.value-123", Version: "1", Arguments: []byte(`{}`)},
	} {
		_, err := request.New(snap, p, a)
		if err == nil || strings.Contains(strings.ToLower(err.Error()), secret) || strings.Contains(err.Error(), "secret.value") {
			t.Errorf("%s: err = %v, want a rejection that does not echo input", name, err)
		}
	}
}
