package manifest_test

import (
	"testing"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
)

func TestGraceOfIsTheCRDSchemasRule(t *testing.T) {
	t.Parallel()
	if g, err := manifest.GraceOf("spec.supersededGrace", nil); err != nil || g != (manifest.Grace{}) {
		t.Errorf("absent grace = %v, %v; want the zero grace", g, err)
	}
	if g, err := manifest.GraceOf("spec.supersededGrace", &v1alpha1.SupersededGrace{Generations: "2", Seconds: "600"}); err != nil || g != (manifest.Grace{Generations: 2, Seconds: 600}) {
		t.Errorf("GraceOf = %v, %v", g, err)
	}
	for _, bad := range []v1alpha1.SupersededGrace{{}, {Generations: "17"}, {Generations: "0"}, {Seconds: "3601"}, {Seconds: "07"}} {
		if _, err := manifest.GraceOf("spec.supersededGrace", &bad); err == nil {
			t.Errorf("GraceOf(%+v) accepted", bad)
		}
	}
}
