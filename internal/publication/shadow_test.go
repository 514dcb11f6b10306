package publication_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/publication"
)

// TestShadowAdmission: a shadow shadows exactly the generation before its
// own, names the end of its window, and that window opens at the object's
// creation and lasts at most 7 days; every violation at its path.
func TestShadowAdmission(t *testing.T) {
	t.Parallel()
	set := samples(t)
	gen2 := &set.PolicySnapshots[1]
	created := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	shadow := func(gen, of string, until time.Time, withCreation bool) *v1alpha1.PolicySnapshot {
		o := next(gen2, gen, func(s *v1alpha1.PolicySnapshotSpec) {
			s.Shadow = &v1alpha1.PolicyShadow{Of: v1alpha1.Generation(of), Until: metav1.NewTime(until)}
		})
		if withCreation {
			o.CreationTimestamp = metav1.NewTime(created)
		}
		return o
	}
	for _, c := range []struct {
		name     string
		o        *v1alpha1.PolicySnapshot
		path     string
		code     fault.Code
		draftToo bool // Draft, which needs no clock, rejects it as well
	}{
		{"a shadow of the generation before it, for a day, is admitted", shadow("3", "2", created.Add(24*time.Hour), true), "", 0, false},
		{"exactly 7 days is admitted", shadow("3", "2", created.Add(publication.MaxShadowWindow), true), "", 0, false},
		{"more than 7 days is out of range", shadow("3", "2", created.Add(publication.MaxShadowWindow+time.Second), true), "spec.shadow.until", fault.OutOfRange, true},
		{"a window ending at creation is out of range", shadow("3", "2", created, true), "spec.shadow.until", fault.OutOfRange, true},
		{"a shadow of another generation is a mismatch", shadow("3", "1", created.Add(time.Hour), true), "spec.shadow.of", fault.Mismatch, true},
		{"generation 1 is never a shadow", shadow("1", "1", created.Add(time.Hour), true), "spec.shadow", fault.Unsupported, true},
		{"a shadow needs its creation time", shadow("3", "2", created.Add(time.Hour), false), "metadata.creationTimestamp", fault.Missing, false},
		{"a shadow names its end", shadow("3", "2", time.Time{}, true), "spec.shadow.until", fault.Missing, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh, ok, err := publication.ShadowOf(c.o)
			if c.code == 0 {
				if err != nil || !ok || sh.Of != "2" || !sh.Until.Equal(c.o.Spec.Shadow.Until.Time) {
					t.Fatalf("ShadowOf = %+v, %v, %v", sh, ok, err)
				}
				return
			}
			if !hasFault(err, c.path, c.code) {
				t.Errorf("ShadowOf: %v, want %s at %s", err, c.code, c.path)
			}
			if _, err := publication.Draft(c.o); c.draftToo != hasFault(err, c.path, c.code) {
				t.Errorf("Draft: %v (want the same rejection: %v)", err, c.draftToo)
			}
		})
	}
	if _, ok, err := publication.ShadowOf(gen2); ok || err != nil {
		t.Errorf("a generation without spec.shadow: %v, %v", ok, err)
	}
}

func hasFault(err error, path string, code fault.Code) bool {
	for _, e := range fault.All(err) {
		if e.Path == path && e.Code == code {
			return true
		}
	}
	return false
}

// TestPolicyHoldsAShadowOutsideTheCurrentSelection: publication.Policy
// holds a shadow generation in the Host (so its promotion can succeed it)
// but the Host's current selection does not find it.
func TestPolicyHoldsAShadowOutsideTheCurrentSelection(t *testing.T) {
	t.Parallel()
	set := samples(t)
	h := sampleHost(t, set)
	gen1, gen2 := &set.PolicySnapshots[0], &set.PolicySnapshots[1]
	for _, o := range []*v1alpha1.PolicySnapshot{gen1, gen2} {
		if _, err := publication.Policy(h, administrator, o); err != nil {
			t.Fatal(err)
		}
	}
	sh := next(gen2, "3", func(s *v1alpha1.PolicySnapshotSpec) {
		s.Shadow = &v1alpha1.PolicyShadow{Of: "2", Until: metav1.NewTime(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))}
	})
	sh.CreationTimestamp = metav1.NewTime(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if _, err := publication.Policy(h, administrator, sh); err != nil {
		t.Fatal(err)
	}
	if g, _ := h.HighestPolicy("payments-policy"); g != "2" {
		t.Errorf("current %q with generation 3 a shadow, want 2", g)
	}
	promoted := next(gen2, "4", nil)
	if _, err := publication.Policy(h, administrator, promoted); err != nil {
		t.Fatal(err)
	}
	if g, _ := h.HighestPolicy("payments-policy"); g != "4" {
		t.Errorf("current %q after the promotion, want 4", g)
	}
}
