package webhook_test

import (
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/webhook"
)

// TestTheWebhookAdmitsAShadowWithinItsWindow: the webhook sees the
// creationTimestamp the apiserver set before validating admission, and
// applies the shadow rules of the one admission path.
func TestTheWebhookAdmitsAShadowWithinItsWindow(t *testing.T) {
	t.Parallel()
	set := samples(t)
	ha, gen1, gen2 := &set.HostAuthorities[0], &set.PolicySnapshots[0], &set.PolicySnapshots[1]
	created := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	shadow := func(of string, window time.Duration) *v1alpha1.PolicySnapshot {
		o := gen2.DeepCopy()
		o.Name, o.Spec.SnapshotGeneration = "payments-policy-3", "3"
		o.CreationTimestamp = metav1.NewTime(created)
		o.Spec.Shadow = &v1alpha1.PolicyShadow{Of: v1alpha1.Generation(of), Until: metav1.NewTime(created.Add(window))}
		return o
	}
	v := webhook.PolicySnapshotValidator{Reader: reader(t, []client.Object{ha, gen1, gen2}...)}
	for name, c := range map[string]struct {
		o    *v1alpha1.PolicySnapshot
		path string // "" admitted
	}{
		"a day's shadow of generation 2": {shadow("2", 24*time.Hour), ""},
		"an 8-day window":                {shadow("2", 8*24*time.Hour), "spec.shadow.until"},
		"a shadow of another generation": {shadow("1", time.Hour), "spec.shadow.of"},
	} {
		_, err := v.ValidateCreate(as(admissionv1.Create, "alice", []string{"payments-policy-admins"}, nil), c.o)
		switch {
		case c.path == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.path != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.path)):
			t.Errorf("%s: %v, want invalid at %s", name, err, c.path)
		}
	}
}
