package host_test

import (
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/testutil"
)

// withVersions is the payments policy as generation 2 with the versions
// of "payments" given as generation → lifecycle (version 1 keeps its
// rules; each other version is a copy of them).
func withVersions(t *testing.T, h *host.Host, lifecycles ...string) {
	t.Helper()
	next := paymentsPolicy()
	next.Generation = "2"
	v1 := next.Policies[0]
	next.Policies = nil
	for i, lc := range lifecycles {
		d := v1
		d.Generation, d.Lifecycle = []string{"1", "2", "3"}[i], lc
		next.Policies = append(next.Policies, d)
	}
	if _, err := h.PublishPolicy(admin, next); err != nil {
		t.Fatal(err)
	}
}

func TestTheActiveVersionIsTheHighestActiveOne(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		lifecycles []string // versions 1, 2, 3 of "payments" in generation 2
		want       string
		wantErr    error
	}{
		{"the only active one", []string{"deprecated", "active"}, "2", nil},
		{"the highest of several active ones", []string{"active", "active", "deprecated"}, "2", nil},
		{"a deprecated version is never active", []string{"deprecated", "deprecated"}, "", fault.ErrIneligible},
		{"nor a retired one", []string{"retired", "deprecated", "retired"}, "", fault.ErrIneligible},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newPaymentsHost()
			withVersions(t, h, tc.lifecycles...)
			got, err := h.ActivePolicy("payments-policy", "2", "payments")
			if tc.wantErr != nil {
				testutil.CheckFault(t, err, tc.wantErr, "policyGeneration")
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ActivePolicy = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	h := newPaymentsHost()
	_, err := h.ActivePolicy("payments-policy", "1", "other")
	testutil.CheckFault(t, err, fault.ErrNotFound, "policyID")
	_, err = h.ActivePolicy("payments-policy", "9", "payments")
	testutil.CheckFault(t, err, fault.ErrNotFound, "snapshotGeneration")
}

func TestSelectCurrentResolvesOnlyWhatItNames(t *testing.T) {
	t.Parallel()
	h := newPaymentsHost()
	withVersions(t, h, "deprecated", "active")

	r := payment()
	r.Registry.Generation, r.Policy.SnapshotGeneration, r.Policy.PolicyGeneration = host.Current, host.Current, host.Current
	if err := h.SelectCurrent(&r); err != nil {
		t.Fatal(err)
	}
	if got := []string{r.Registry.Generation, r.Policy.SnapshotGeneration, r.Policy.PolicyGeneration}; got[0] != "1" || got[1] != "2" || got[2] != "2" {
		t.Errorf("selected %v, want [1 2 2]", got)
	}
	res, err := h.Authorize(r)
	if err != nil || res.Authorization == nil {
		t.Fatalf("Authorize on the selection: %+v, %v", res, err)
	}
	if d := res.Authorization.Decision(); d.Snapshot().Generation().String() != "2" || d.Policy().Generation().String() != "2" {
		t.Errorf("the Authorization binds generation %s, version %s; want 2, 2", d.Snapshot().Generation(), d.Policy().Generation())
	}

	// An explicit generation is left as named, the deprecated version too.
	r = payment()
	r.Policy.SnapshotGeneration, r.Policy.PolicyGeneration = "2", "1"
	if err := h.SelectCurrent(&r); err != nil || r.Policy.SnapshotGeneration != "2" || r.Policy.PolicyGeneration != "1" {
		t.Errorf("an explicit selection changed: %+v, %v", r.Policy, err)
	}
	// A held identity is needed.
	r = payment()
	r.Registry.SnapshotID, r.Registry.Generation = "other-registry", host.Current
	testutil.CheckFault(t, h.SelectCurrent(&r), fault.ErrNotFound, "registry")
}
