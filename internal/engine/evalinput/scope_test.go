package evalinput_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/engine/evalinput"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/schema"
	"github.com/toolgate/toolgate/internal/testutil"
)

var allCapabilities = []string{"communication.external", "data.read", "data.write", "financial.transfer", "resource.delete"}

// everyCapability widens the payments definition maximum and the Intent to
// all five Capabilities (the Host already holds all five).
func everyCapability(s *testutil.InputSpec) {
	s.Registry = testutil.RegistryDraft(testutil.PaymentsDefinition(func(d *registry.DefinitionDraft) {
		d.Capabilities = allCapabilities
	}))
	s.Intent.Capabilities = allCapabilities
}

// resourceFree replaces the request with notes.read version 1, whose empty
// Schema derives no Resource. The Host still holds acct-1001; the Intent
// holds none.
func resourceFree(s *testutil.InputSpec) {
	s.Registry = testutil.RegistryDraft(testutil.Definition("notes-read-1", "notes.read", "1"))
	s.Proposal.ToolID, s.Proposal.Arguments = "notes.read", []byte(`{}`)
	s.Host.Resources = []string{"acct-1001"}
	s.Intent.Capabilities, s.Intent.Resources = []string{"data.read"}, nil
	s.RequestedCapabilities = []string{"data.read"}
}

// auditDefinition is accounts.audit version 1 (maximum caps): one required
// array of resourceID, so every listed account is a derived Resource.
func auditDefinition(caps []string) registry.DefinitionDraft {
	return testutil.Definition("accounts-audit-1", "accounts.audit", "1",
		testutil.WithSchema("audit-args", schema.Draft{Kind: "object", Fields: []schema.FieldDraft{
			testutil.Field("accounts", "required", schema.Draft{Kind: "array", Items: &schema.Draft{Kind: "resourceID"}}),
		}}),
		func(d *registry.DefinitionDraft) { d.Capabilities = caps })
}

// auditArguments is the argument text listing accounts.
func auditArguments(accounts []string) []byte {
	quoted := make([]string, len(accounts))
	for i, a := range accounts {
		quoted[i] = `"` + a + `"`
	}
	return []byte(`{"accounts":[` + strings.Join(quoted, ",") + `]}`)
}

// audit replaces the request with an accounts.audit request over n
// accounts, held exactly by the Host and the Intent.
func audit(n int) specMod {
	return func(s *testutil.InputSpec) {
		accounts := make([]string, n)
		for i := range accounts {
			accounts[i] = fmt.Sprintf("acct-%02d", i+1)
		}
		s.Registry = testutil.RegistryDraft(auditDefinition([]string{"data.read"}))
		s.Proposal.ToolID, s.Proposal.Arguments = "accounts.audit", auditArguments(accounts)
		s.Host.Resources, s.Intent.Resources = accounts, accounts
		s.Intent.Capabilities, s.RequestedCapabilities = []string{"data.read"}, []string{"data.read"}
	}
}

// TestNewRequestedCapabilitiesWithinEveryCeiling checks that requested
// Capabilities are a subset of the definition maximum, the Host Authority
// and the Intent ceiling (Section 17 "Requested Capabilities"; Section 8;
// P-009, P-010). Nothing is added or dropped: an accepted request is
// exactly what was asked, in ASCII order.
//
// Evidence construction already enforces Intent ⊆ definition ∩ Host
// (evidence.NewIntent), and composition forces the input's Host to be the
// one every Role Authority was granted from. So with valid evidence the
// definition or the Host can exclude a Capability only together with the
// Intent; the Intent is the only ceiling that can exclude one alone.
func TestNewRequestedCapabilitiesWithinEveryCeiling(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec      []specMod
		requested []string
		wantCaps  []string
		wantErr   error
		wantPath  string
	}{
		"request equal to every ceiling": {
			requested: []string{"financial.transfer", "data.read"}, wantCaps: []string{"data.read", "financial.transfer"},
		},
		"narrower request is kept narrow, not widened to the ceiling": {
			requested: []string{"data.read"}, wantCaps: []string{"data.read"},
		},
		"definition maximum excludes data.write the Host holds": {
			requested: []string{"data.read", "data.write"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedCapabilities",
		},
		"Host excludes financial.transfer the definition holds": {
			spec: []specMod{func(s *testutil.InputSpec) {
				s.Host.Capabilities = []string{"communication.external", "data.read", "data.write", "resource.delete"}
				s.Intent.Capabilities = []string{"data.read"}
			}},
			requested: []string{"data.read", "financial.transfer"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedCapabilities",
		},
		"Intent alone excludes financial.transfer that definition and Host hold": {
			spec:      []specMod{func(s *testutil.InputSpec) { s.Intent.Capabilities = []string{"data.read"} }},
			requested: []string{"data.read", "financial.transfer"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedCapabilities",
		},
		"Intent narrowed to financial.transfer still permits it alone": {
			spec:      []specMod{func(s *testutil.InputSpec) { s.Intent.Capabilities = []string{"financial.transfer"} }},
			requested: []string{"financial.transfer"}, wantCaps: []string{"financial.transfer"},
		},
		"unknown token": {
			requested: []string{"data.read", "data.delete"},
			wantErr:   fault.ErrUnknownToken, wantPath: "requestedCapabilities[1]",
		},
		"case variant is not repaired": {
			requested: []string{"Data.Read"},
			wantErr:   fault.ErrUnknownToken, wantPath: "requestedCapabilities[0]",
		},
		"padded token is not trimmed": {
			requested: []string{"data.read "},
			wantErr:   fault.ErrUnknownToken, wantPath: "requestedCapabilities[0]",
		},
		"duplicate is not collapsed": {
			requested: []string{"data.read", "financial.transfer", "data.read"},
			wantErr:   fault.ErrDuplicate, wantPath: "requestedCapabilities[2]",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, in, err := newChanged(t, tc.spec, func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedCapabilities = tc.requested
			}, tc.wantErr, tc.wantPath)
			if err != nil || tc.wantErr != nil {
				return
			}
			if diff := cmp.Diff(tc.wantCaps, strs(in.RequestedCapabilities())); diff != "" {
				t.Errorf("RequestedCapabilities (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewRequestedResourcesEqualTheDerivedSet checks that requested
// Resources equal the canonical argument-derived set exactly and lie within
// the Host and Intent ceilings (Section 17 "Requested Resources"; Section
// 8; P-011, P-012: empty means no Resource authority, never a wildcard).
func TestNewRequestedResourcesEqualTheDerivedSet(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spec          []specMod
		requested     []string
		wantResources []string
		wantErr       error
		wantPath      string
	}{
		"exactly the derived set, in another order": {
			requested: []string{"acct-2002", "acct-1001"}, wantResources: []string{"acct-1001", "acct-2002"},
		},
		"missing one derived Resource": {
			requested: []string{"acct-2002"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"one extra Resource outside every ceiling": {
			requested: []string{"acct-1001", "acct-2002", "acct-3003"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"one extra Resource that Host and Intent both hold": {
			spec: []specMod{func(s *testutil.InputSpec) {
				s.Host.Resources = []string{"acct-1001", "acct-2002", "acct-3003"}
				s.Intent.Resources = []string{"acct-1001", "acct-2002", "acct-3003"}
			}},
			requested: []string{"acct-1001", "acct-2002", "acct-3003"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"nil request although the request derives Resources": {
			requested: nil,
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"empty request although the request derives Resources": {
			requested: []string{},
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"resource-free request with an empty request": {
			spec: []specMod{resourceFree}, requested: []string{}, wantResources: []string{},
		},
		"resource-free request with a Resource the Host holds": {
			spec: []specMod{resourceFree}, requested: []string{"acct-1001"},
			wantErr: fault.ErrMismatch, wantPath: "requestedResources",
		},
		"Host lacks the debtor account": {
			spec: []specMod{func(s *testutil.InputSpec) {
				s.Host.Resources, s.Intent.Resources = []string{"acct-1001"}, []string{"acct-1001"}
			}},
			requested: []string{"acct-1001", "acct-2002"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"Intent alone lacks the debtor account": {
			spec:      []specMod{func(s *testutil.InputSpec) { s.Intent.Resources = []string{"acct-1001"} }},
			requested: []string{"acct-1001", "acct-2002"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"resource-free Host cannot support a resource-bearing request": {
			spec:      []specMod{func(s *testutil.InputSpec) { s.Host.Resources, s.Intent.Resources = nil, nil }},
			requested: []string{"acct-1001", "acct-2002"},
			wantErr:   fault.ErrMismatch, wantPath: "requestedResources",
		},
		"duplicate is not collapsed": {
			requested: []string{"acct-1001", "acct-2002", "acct-1001"},
			wantErr:   fault.ErrDuplicate, wantPath: "requestedResources[2]",
		},
		"case variant is not repaired": {
			requested: []string{"ACCT-1001", "acct-2002"},
			wantErr:   fault.ErrMalformed, wantPath: "requestedResources[0]",
		},
		"wildcard is not a Resource": {
			requested: []string{"acct-1001", "*"},
			wantErr:   fault.ErrMalformed, wantPath: "requestedResources[1]",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, in, err := newChanged(t, tc.spec, func(_ *testing.T, _ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedResources = tc.requested
			}, tc.wantErr, tc.wantPath)
			if err != nil || tc.wantErr != nil {
				return
			}
			if diff := cmp.Diff(tc.wantResources, strs(in.RequestedResources())); diff != "" {
				t.Errorf("RequestedResources (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewEnforcesRequestedScopeLimits checks the Section 39 rows "Host,
// intended, or requested Capabilities" (1–8, zero not accepted) and "...
// Resources" (0–16).
//
// Only five Capability tokens exist (Section 48), so a request of 6–8
// entries necessarily repeats one and rejects as Duplicate at its first
// repetition; 9 entries reject as LimitExceeded before any token is parsed.
// A request can derive 17 Resources, but no Host Authority can hold 17, so
// 17 requested Resources reject as LimitExceeded before they are compared.
func TestNewEnforcesRequestedScopeLimits(t *testing.T) {
	t.Parallel()
	repeat := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = allCapabilities[i%len(allCapabilities)]
		}
		return out
	}
	withExtra := func(s []string, extra string) []string { return append(append([]string{}, s...), extra) }
	tests := map[string]struct {
		spec     []specMod
		mutate   func(f testutil.InputFixture, d *evalinput.Draft)
		wantErr  error
		wantPath string
	}{
		"0 capabilities": {
			spec:    []specMod{everyCapability},
			mutate:  func(_ testutil.InputFixture, d *evalinput.Draft) { d.RequestedCapabilities = []string{} },
			wantErr: fault.ErrMissing, wantPath: "requestedCapabilities",
		},
		"1 capability": {
			spec:   []specMod{everyCapability},
			mutate: func(_ testutil.InputFixture, d *evalinput.Draft) { d.RequestedCapabilities = repeat(1) },
		},
		"5 capabilities: every token": {
			spec:   []specMod{everyCapability},
			mutate: func(_ testutil.InputFixture, d *evalinput.Draft) { d.RequestedCapabilities = repeat(5) },
		},
		"6 capabilities repeat one token": {
			spec:    []specMod{everyCapability},
			mutate:  func(_ testutil.InputFixture, d *evalinput.Draft) { d.RequestedCapabilities = repeat(6) },
			wantErr: fault.ErrDuplicate, wantPath: "requestedCapabilities[5]",
		},
		"8 capabilities repeat three tokens": {
			spec:    []specMod{everyCapability},
			mutate:  func(_ testutil.InputFixture, d *evalinput.Draft) { d.RequestedCapabilities = repeat(8) },
			wantErr: fault.ErrDuplicate, wantPath: "requestedCapabilities[5]",
		},
		"9 capabilities": {
			spec:    []specMod{everyCapability},
			mutate:  func(_ testutil.InputFixture, d *evalinput.Draft) { d.RequestedCapabilities = repeat(9) },
			wantErr: fault.ErrLimitExceeded, wantPath: "requestedCapabilities",
		},
		"9 unknown tokens exceed the limit before parsing": {
			spec: []specMod{everyCapability},
			mutate: func(_ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedCapabilities = strings.Fields("a b c d e f g h i")
			},
			wantErr: fault.ErrLimitExceeded, wantPath: "requestedCapabilities",
		},
		"0 resources for a resource-free request": {
			spec:   []specMod{resourceFree},
			mutate: func(_ testutil.InputFixture, d *evalinput.Draft) { d.RequestedResources = nil },
		},
		"16 resources": {
			spec:   []specMod{audit(16)},
			mutate: func(testutil.InputFixture, *evalinput.Draft) {},
		},
		"17 resources": {
			spec: []specMod{audit(16)},
			mutate: func(_ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedResources = withExtra(d.RequestedResources, "acct-17")
			},
			wantErr: fault.ErrLimitExceeded, wantPath: "requestedResources",
		},
		"17 malformed resources exceed the limit before parsing": {
			spec: []specMod{audit(16)},
			mutate: func(_ testutil.InputFixture, d *evalinput.Draft) {
				d.RequestedResources = strings.Fields("A B C D E F G H I J K L M N O P Q")
			},
			wantErr: fault.ErrLimitExceeded, wantPath: "requestedResources",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, in, err := newChanged(t, tc.spec, func(_ *testing.T, f testutil.InputFixture, d *evalinput.Draft) {
				tc.mutate(f, d)
			}, tc.wantErr, tc.wantPath)
			if err == nil && len(in.RequestedResources()) != len(d.RequestedResources) {
				t.Errorf("RequestedResources has %d members, want %d", len(in.RequestedResources()), len(d.RequestedResources))
			}
		})
	}
}

// strs renders values by their String methods; nil renders as nil and an
// empty slice as an empty slice.
func strs[T fmt.Stringer](vs []T) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}
