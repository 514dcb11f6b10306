package registry_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/testutil"
)

// lookupSnapshot holds payments.submit at versions 1 (active), 2
// (deprecated) and 3 (retired), and accounts.lookup version 1.
func lookupSnapshot(t testing.TB) *registry.Snapshot {
	t.Helper()
	return testutil.Publish(t, testutil.RegistryDraft(
		testutil.PaymentsDefinition(),
		testutil.Definition("payments-submit-2", "payments.submit", "2", testutil.WithLifecycle("deprecated")),
		testutil.Definition("payments-submit-3", "payments.submit", "3", testutil.WithLifecycle("retired")),
		testutil.Definition("accounts-lookup-1", "accounts.lookup", "1"),
	))
}

// TestLookupIsExact proves the Section 9 resolution rules: Tool Identifier
// and Tool Version are both required and match exactly; there is no latest,
// no fallback to another version, no name-only or prefix resolution, and a
// retired definition does not resolve.
func TestLookupIsExact(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		tool, version string
		wantID        string
		wantErr       error
	}{
		"an exact tool identifier and version resolve":             {tool: "payments.submit", version: "1", wantID: "payments-submit-1"},
		"a deprecated definition still resolves":                   {tool: "payments.submit", version: "2", wantID: "payments-submit-2"},
		"a retired definition is ineligible with no fallback to 2": {tool: "payments.submit", version: "3", wantErr: fault.ErrIneligible},
		"an unknown version is not found with no fallback to 2":    {tool: "payments.submit", version: "4", wantErr: fault.ErrNotFound},
		"a version above the only known one is not found":          {tool: "accounts.lookup", version: "2", wantErr: fault.ErrNotFound},
		"an unknown tool is not found":                             {tool: "payments.cancel", version: "1", wantErr: fault.ErrNotFound},
		"a tool identifier prefix does not resolve":                {tool: "payments.submi", version: "1", wantErr: fault.ErrNotFound},
		"a longer tool identifier does not resolve to its prefix":  {tool: "payments.submit.v1", version: "1", wantErr: fault.ErrNotFound},
		"a lookalike tool identifier does not resolve":             {tool: "payments.subm1t", version: "1", wantErr: fault.ErrNotFound},
	}
	snap := lookupSnapshot(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := snap.Lookup(mustToolID(t, tc.tool), mustGeneration(t, tc.version))
			testutil.CheckFault(t, err, tc.wantErr, "")
			if tc.wantErr != nil {
				if !res.IsZero() || res.Definition() != nil || res.Snapshot() != nil {
					t.Errorf("a failed lookup returned a resolution")
				}
				return
			}
			if got := res.Definition().ID().String(); got != tc.wantID {
				t.Errorf("resolved definition %q, want %q", got, tc.wantID)
			}
			if res.Definition().ToolID().String() != tc.tool || res.Definition().Version().String() != tc.version {
				t.Errorf("resolved %s v%s, want exactly %s v%s",
					res.Definition().ToolID(), res.Definition().Version(), tc.tool, tc.version)
			}
		})
	}
}

func TestLookupRequiresToolIdentifierAndVersion(t *testing.T) {
	t.Parallel()
	snap := lookupSnapshot(t)
	cases := map[string]struct {
		tool    ident.ToolID
		version ident.Generation
	}{
		"a zero tool identifier is missing": {version: mustGeneration(t, "1")},
		"a zero version is missing":         {tool: mustToolID(t, "payments.submit")},
		"both zero are missing":             {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := snap.Lookup(tc.tool, tc.version)
			testutil.CheckFault(t, err, fault.ErrMissing, "")
			if !res.IsZero() {
				t.Error("a failed lookup returned a resolution")
			}
		})
	}
}

// TestResolutionRetainsTheExactSnapshot: a Resolution keeps the very
// Snapshot it was resolved in (Section 9 "Snapshot-bound processing MUST
// retain the exact selected Snapshot"), not an equal-looking one.
func TestResolutionRetainsTheExactSnapshot(t *testing.T) {
	t.Parallel()
	snap := lookupSnapshot(t)
	twin := lookupSnapshot(t)
	res, err := snap.Lookup(mustToolID(t, "accounts.lookup"), mustGeneration(t, "1"))
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	if res.Snapshot() != snap {
		t.Error("Resolution.Snapshot is not the snapshot the lookup ran on")
	}
	if res.Snapshot() == twin {
		t.Error("Resolution.Snapshot is an independently published twin")
	}
	if !res.Snapshot().Digest().Equal(snap.Digest()) {
		t.Errorf("resolution snapshot digest %s, want %s", res.Snapshot().Digest(), snap.Digest())
	}
	if res.Definition() != snap.Definition(0) {
		t.Error("Resolution.Definition is not the snapshot's own definition (accounts.lookup sorts first)")
	}
}
