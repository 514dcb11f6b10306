package publication_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/publication"
)

// TestARuleNamingWhatNoRegistryInScopeDefinesIsFound: every reference of
// an evaluating policy version to a tool, a tool version, a Tool
// Definition or a Registry Snapshot that no admitted ToolRegistry of the
// snapshot's namespace defines is one notFound at its path, all at once;
// the shipped samples name only what their registry defines.
func TestARuleNamingWhatNoRegistryInScopeDefinesIsFound(t *testing.T) {
	t.Parallel()
	set := samples(t)
	gen2 := &set.PolicySnapshots[1]
	inScope := publication.InScope("payments", set.ToolRegistries)
	if len(inScope) != 1 {
		t.Fatalf("%d registries in scope of the samples, want 1", len(inScope))
	}
	for i := range set.PolicySnapshots {
		if err := publication.Undefined(&set.PolicySnapshots[i], inScope); err != nil {
			t.Errorf("%s: %v", set.PolicySnapshots[i].Name, err)
		}
	}
	// The last rule of version 2 (deny-delegated-payments), its condition
	// replaced.
	const last = "spec.policies[1].rules[8].condition"
	withCondition := func(json string) *v1alpha1.PolicySnapshot {
		c := gen2.DeepCopy()
		rules := c.Spec.Policies[1].Rules
		rules[len(rules)-1].Condition = apiextensionsv1.JSON{Raw: []byte(json)}
		return c
	}
	tests := map[string]struct {
		o          *v1alpha1.PolicySnapshot
		registries []v1alpha1.ToolRegistry
		want       []string
	}{
		"a tool identity with a typo": {
			o:    withCondition(`{"predicate": {"name": "exactToolID", "identifier": "email.sendd"}}`),
			want: []string{last + ".predicate.identifier notFound"}},
		"a version the tool its all names does not have": {
			o: withCondition(`{"all": [{"predicate": {"name": "exactToolID", "identifier": "email.send"}},
				{"predicate": {"name": "exactToolVersion", "generation": "2"}}]}`),
			want: []string{last + ".all[1].predicate.generation notFound"}},
		"a version no tool has": {
			o:    withCondition(`{"any": [{"predicate": {"name": "exactToolVersion", "generation": "7"}}]}`),
			want: []string{last + ".any[0].predicate.generation notFound"}},
		"a version some tool has, outside an all naming a tool": {
			o: withCondition(`{"any": [{"predicate": {"name": "exactToolID", "identifier": "email.send"}},
				{"predicate": {"name": "exactToolVersion", "generation": "1"}}]}`)},
		"a definition identity": {
			o:    withCondition(`{"predicate": {"name": "exactDefinitionID", "identifier": "email-send-2"}}`),
			want: []string{last + ".predicate.identifier notFound"}},
		"a registry identity": {
			o:    withCondition(`{"predicate": {"name": "exactRegistrySnapshot", "identifier": "secondary", "generation": "1"}}`),
			want: []string{last + ".predicate.identifier notFound"}},
		"a registry generation": {
			o:    withCondition(`{"predicate": {"name": "exactRegistrySnapshot", "identifier": "primary-registry", "generation": "2"}}`),
			want: []string{last + ".predicate.generation notFound"}},
		"every finding at once, in a deprecated version too": {
			o: func() *v1alpha1.PolicySnapshot {
				c := withCondition(`{"all": [{"predicate": {"name": "exactToolID", "identifier": "email.sendd"}},
					{"predicate": {"name": "exactDefinitionID", "identifier": "nope"}}]}`)
				c.Spec.Policies[0].Rules[1].Condition = apiextensionsv1.JSON{Raw: []byte(`{"predicate": {"name": "exactToolID", "identifier": "accounts.lookupp"}}`)}
				return c
			}(),
			want: []string{
				"spec.policies[0].rules[1].condition.predicate.identifier notFound",
				last + ".all[0].predicate.identifier notFound",
				last + ".all[1].predicate.identifier notFound",
			}},
		"a retired version never evaluates and is not checked": {
			o: func() *v1alpha1.PolicySnapshot {
				c := gen2.DeepCopy()
				c.Spec.Policies[0].Lifecycle = v1alpha1.PolicyLifecycleRetired
				c.Spec.Policies[0].Rules[1].Condition = apiextensionsv1.JSON{Raw: []byte(`{"predicate": {"name": "exactToolID", "identifier": "accounts.lookupp"}}`)}
				return c
			}()},
		"a registry of another namespace is not in scope": {
			o: gen2,
			registries: func() []v1alpha1.ToolRegistry {
				r := set.ToolRegistries[0].DeepCopy()
				r.Namespace = "elsewhere"
				return []v1alpha1.ToolRegistry{*r}
			}(),
			want: []string{
				"spec.policies[0].rules[0].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[1].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[2].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[3].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[7].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[0].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[1].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[2].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[3].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[7].condition.all[0].predicate.identifier notFound",
			}},
		"a registry that does not admit is not in scope": {
			o: withCondition(`{"predicate": {"name": "exactToolID", "identifier": "email.send"}}`),
			registries: func() []v1alpha1.ToolRegistry {
				r := set.ToolRegistries[0].DeepCopy()
				r.Name = "misnamed"
				return []v1alpha1.ToolRegistry{*r}
			}(),
			want: []string{
				"spec.policies[0].rules[0].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[1].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[2].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[3].condition.all[0].predicate.identifier notFound",
				"spec.policies[0].rules[7].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[0].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[1].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[2].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[3].condition.all[0].predicate.identifier notFound",
				"spec.policies[1].rules[7].condition.all[0].predicate.identifier notFound",
				last + ".predicate.identifier notFound",
			}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			regs := inScope
			if tc.registries != nil {
				regs = publication.InScope("payments", tc.registries)
			}
			err := publication.Undefined(tc.o, regs)
			if diff := cmp.Diff(tc.want, violations(err)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			for _, e := range fault.All(err) {
				if e.Code != fault.NotFound || e.Rule == "" {
					t.Errorf("%s: code %s, rule %q", e.Path, e.Code, e.Rule)
				}
			}
		})
	}
}
