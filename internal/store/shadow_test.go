package store_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

// shadowOf2 is generation 3 of the samples' policy snapshot, a copy of
// generation 2 published as its shadow, created at created.
func shadowOf2(set *manifest.Set, created time.Time, window time.Duration) *v1alpha1.PolicySnapshot {
	o := set.PolicySnapshots[1].DeepCopy()
	o.Name, o.Spec.SnapshotGeneration = "payments-policy-3", "3"
	o.CreationTimestamp = metav1.NewTime(created)
	o.Spec.Shadow = &v1alpha1.PolicyShadow{Of: "2", Until: metav1.NewTime(created.Add(window))}
	return o
}

// TestTheStoreHoldsAShadowOutsideTheServedGenerations: an accepted
// shadow is held (its successor publishes) and listed as the domain's
// shadow, but the current selection and Current stay on generation 2; a
// window beyond 7 days is rejected at spec.shadow.until.
func TestTheStoreHoldsAShadowOutsideTheServedGenerations(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	admin, _ := manifest.AdministratorOf(&set.HostAuthorities[0])
	created := time.Unix(1_800_000_000, 0)
	if _, err := s.PutPolicy("uid-1", admin, shadowOf2(set, created, 8*24*time.Hour)); fault.CodeOf(err) != fault.OutOfRange {
		t.Fatalf("an 8-day window: %v, want outOfRange", err)
	}
	if _, err := s.PutPolicy("uid-1", admin, shadowOf2(set, created, time.Hour)); err != nil {
		t.Fatal(err)
	}
	d, _ := s.ByName("payments", "payments-host")
	sel := serving.Selection{RegistryID: "primary-registry", RegistryGeneration: host.Current, PolicyID: "payments-policy", PolicyGeneration: host.Current,
		DefinitionID: "payments-guardrails", DefinitionGeneration: host.Current}
	got, err := d.Select(sel, created)
	if err != nil || got.PolicyGeneration != "2" {
		t.Fatalf("Select = %+v, %v; want generation 2", got, err)
	}
	want := []serving.Shadow{{ID: "payments-policy", Generation: "3", Of: "2", Until: created.Add(time.Hour)}}
	if diff := cmp.Diff(want, d.Shadows()); diff != "" {
		t.Errorf("Shadows (-want +got):\n%s", diff)
	}
	if _, ok := d.ShadowOf(host.Current, got, created); !ok {
		t.Error("the shadow is not evaluated beside the current generation")
	}
	promoted := set.PolicySnapshots[1].DeepCopy()
	promoted.Name, promoted.Spec.SnapshotGeneration = "payments-policy-4", "4"
	if _, err := s.PutPolicy("uid-1", admin, promoted); err != nil {
		t.Fatal(err)
	}
	d, _ = s.ByName("payments", "payments-host")
	if got, err := d.Select(sel, created); err != nil || got.PolicyGeneration != "4" {
		t.Errorf("after the promotion Select = %+v, %v; want generation 4", got, err)
	}
}
