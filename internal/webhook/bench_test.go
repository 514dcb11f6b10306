package webhook_test

import (
	"strconv"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/webhook"
)

// BenchmarkValidatePolicySnapshot measures the validating webhook's own
// work for generation n of the sample policy: generations 1..n−1 are
// listed (from a fake client) and replayed in a scratch domain, then n is
// published.
func BenchmarkValidatePolicySnapshot(b *testing.B) {
	for _, n := range []int{1, 10, 40} {
		b.Run("generation"+strconv.Itoa(n), func(b *testing.B) {
			set := samples(b)
			base := &set.PolicySnapshots[0]
			gen := func(g int) *v1alpha1.PolicySnapshot {
				p := base.DeepCopy()
				p.Name = "payments-policy-" + strconv.Itoa(g)
				p.Spec.SnapshotGeneration = v1alpha1.Generation(strconv.Itoa(g))
				return p
			}
			objs := []client.Object{&set.HostAuthorities[0]}
			for g := 1; g < n; g++ {
				objs = append(objs, gen(g))
			}
			v := webhook.PolicySnapshotValidator{Reader: reader(b, objs...)}
			ctx := as(admissionv1.Create, "alice", []string{"payments-policy-admins"}, nil)
			ps := gen(n)
			b.ResetTimer()
			for range b.N {
				if _, err := v.ValidateCreate(ctx, ps.DeepCopy()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
