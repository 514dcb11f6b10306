package publication_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
)

// violations lists err's rejections as "path code", in order.
func violations(err error) []string {
	var out []string
	for _, e := range fault.All(err) {
		out = append(out, e.Path+" "+e.Code.String())
	}
	return out
}

func TestHostAuthorityReportsEveryRuleAtOnce(t *testing.T) {
	t.Parallel()
	sample := &samples(t).HostAuthorities[0]
	tests := []struct {
		name string
		mod  func(*v1alpha1.HostAuthority)
		want []string
	}{
		{"the sample is admitted", func(*v1alpha1.HostAuthority) {}, nil},
		{"the name is the authority identity", func(o *v1alpha1.HostAuthority) { o.Name = "other" },
			[]string{"metadata.name mismatch"}},
		{"the grace is checked as the CRD schema does", func(o *v1alpha1.HostAuthority) {
			o.Spec.SupersededGrace = &v1alpha1.SupersededGrace{Generations: "17"}
		}, []string{"spec.supersededGrace.generations malformed"}},
		{"a role is bound once", func(o *v1alpha1.HostAuthority) { o.Spec.Roles = append(o.Spec.Roles, o.Spec.Roles[0]) },
			[]string{"spec.roles[" + itoa(len(sample.Spec.Roles)) + "].role duplicate"}},
		{"name, spec and grace together", func(o *v1alpha1.HostAuthority) {
			o.Name = "other"
			o.Spec.Roles = append(o.Spec.Roles, o.Spec.Roles[0])
			o.Spec.SupersededGrace = &v1alpha1.SupersededGrace{Seconds: "07"}
		}, []string{"metadata.name mismatch", "spec.roles[" + itoa(len(sample.Spec.Roles)) + "].role duplicate", "spec.supersededGrace.seconds malformed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := sample.DeepCopy()
			tc.mod(o)
			a, err := publication.HostAuthority(o)
			if diff := cmp.Diff(tc.want, violations(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if err == nil && a.Config.AuthorityID != string(o.Spec.AuthorityID) {
				t.Errorf("admitted without its domain: %+v", a)
			}
		})
	}
}

func TestToolRegistryReportsEveryRuleAtOnce(t *testing.T) {
	t.Parallel()
	sample := &samples(t).ToolRegistries[0]
	tests := []struct {
		name string
		mod  func(*v1alpha1.ToolRegistry)
		want []string
	}{
		{"the sample is admitted", func(*v1alpha1.ToolRegistry) {}, nil},
		{"the name is <snapshotID>-<snapshotGeneration>", func(o *v1alpha1.ToolRegistry) { o.Name = "primary-registry-2" },
			[]string{"metadata.name mismatch"}},
		{"an unconfirmed import draft is refused", func(o *v1alpha1.ToolRegistry) {
			o.Annotations = map[string]string{manifest.UnconfirmedImportAnnotation: ""}
		}, []string{"metadata.annotations malformed"}},
		{"the engine's rules apply", func(o *v1alpha1.ToolRegistry) { o.Spec.Definitions[1].ToolID = o.Spec.Definitions[0].ToolID },
			[]string{"spec.definitions[0] duplicate"}},
		{"name, annotation and spec together", func(o *v1alpha1.ToolRegistry) {
			o.Name = "primary-registry-2"
			o.Annotations = map[string]string{manifest.UnconfirmedImportAnnotation: "true"}
			o.Spec.Definitions[1].ToolID = o.Spec.Definitions[0].ToolID
		}, []string{"metadata.name mismatch", "metadata.annotations malformed", "spec.definitions[0] duplicate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := sample.DeepCopy()
			tc.mod(o)
			d, s, err := publication.ToolRegistry(o)
			if diff := cmp.Diff(tc.want, violations(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if err == nil && (s == nil || len(d.Definitions) != len(o.Spec.Definitions)) {
				t.Errorf("admitted without its snapshot and draft")
			}
			if err != nil && s != nil {
				t.Errorf("a partial result beside the rejection")
			}
		})
	}
}

func itoa(n int) string { return fault.Index(n)[1 : len(fault.Index(n))-1] }
