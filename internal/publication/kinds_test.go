package publication_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/testutil"
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

func TestTheRolloutGraceIsTheGraceInForce(t *testing.T) {
	t.Parallel()
	sample := &samples(t).HostAuthorities[0]
	tests := []struct {
		name          string
		spec, rollout *v1alpha1.SupersededGrace
		want          manifest.Grace
		violations    []string
	}{
		{"neither: only the current generation", nil, nil, manifest.Grace{}, nil},
		{"the spec's alone", &v1alpha1.SupersededGrace{Generations: "2"}, nil, manifest.Grace{Generations: 2}, nil},
		{"the rollout's in place of the spec's", &v1alpha1.SupersededGrace{Generations: "2"}, &v1alpha1.SupersededGrace{Seconds: "600"}, manifest.Grace{Seconds: 600}, nil},
		{"the rollout's alone", nil, &v1alpha1.SupersededGrace{Generations: "1", Seconds: "60"}, manifest.Grace{Generations: 1, Seconds: 60}, nil},
		{"the rollout's checked at its own path", nil, &v1alpha1.SupersededGrace{Generations: "0"}, manifest.Grace{}, []string{"rollout.supersededGrace.generations malformed"}},
		{"an empty rollout grace", nil, &v1alpha1.SupersededGrace{}, manifest.Grace{}, []string{"rollout.supersededGrace missing"}},
		{"both checked", &v1alpha1.SupersededGrace{Seconds: "3601"}, &v1alpha1.SupersededGrace{Seconds: "07"}, manifest.Grace{},
			[]string{"spec.supersededGrace.seconds malformed", "rollout.supersededGrace.seconds malformed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := sample.DeepCopy()
			o.Spec.SupersededGrace = tc.spec
			if tc.rollout != nil {
				o.Rollout = &v1alpha1.HostAuthorityRollout{SupersededGrace: tc.rollout}
			}
			a, err := publication.HostAuthority(o)
			if diff := cmp.Diff(tc.violations, violations(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if a.Grace != tc.want {
				t.Errorf("grace %+v, want %+v", a.Grace, tc.want)
			}
		})
	}
}

func TestOnlyAPolicyAdministratorChangesTheRollout(t *testing.T) {
	t.Parallel()
	old := samples(t).HostAuthorities[0].DeepCopy()
	changed := old.DeepCopy()
	changed.Rollout = &v1alpha1.HostAuthorityRollout{SupersededGrace: &v1alpha1.SupersededGrace{Generations: "1"}}
	admin := host.Caller{Name: "system:serviceaccount:argocd:argocd-application-controller"}
	admins := host.Caller{Name: "bob", Groups: []string{"payments-policy-admins"}}
	agent := host.Caller{Name: "system:serviceaccount:payments:payments-agent-runtime"}
	tests := []struct {
		name     string
		old, o   *v1alpha1.HostAuthority
		by       host.Caller
		notAdmin bool
	}{
		{"an administrator sets it", old, changed, admin, false},
		{"a member of an administrators' group sets it", old, changed, admins, false},
		{"an administrator removes it", changed, old, admin, false},
		{"another role may not set it", old, changed, agent, true},
		{"another role may not remove it", changed, old, agent, true},
		{"an update that leaves it is anyone's", old, old.DeepCopy(), agent, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := publication.HostAuthorityUpdate(tc.old, tc.o, tc.by)
			if got := publication.NotAdministrator(err); got != tc.notAdmin || (!tc.notAdmin && err != nil) {
				t.Errorf("err = %v, want refused as not an administrator: %v", err, tc.notAdmin)
			}
		})
	}
	bad := changed.DeepCopy()
	bad.Rollout.SupersededGrace.Generations = "99"
	if err := publication.HostAuthorityUpdate(old, bad, admin); !slices.Equal(violations(err), []string{"rollout.supersededGrace.generations malformed"}) {
		t.Errorf("a malformed rollout: %v", err)
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

// filesystemRegistry is the sample ToolRegistry whose write_file definition
// carries an argument profile (examples/mcp-filesystem).
func filesystemRegistry(t *testing.T) *v1alpha1.ToolRegistry {
	t.Helper()
	set, err := manifest.LoadPaths(filepath.Join(testutil.RepoRoot(t), "examples", "mcp-filesystem", "manifests", "toolregistry.yaml"))
	if err != nil || len(set.ToolRegistries) != 1 {
		t.Fatalf("the sample registry: %v", err)
	}
	return &set.ToolRegistries[0]
}

// TestToolRegistryBindsEveryArgumentProfile: admission parses each
// definition's argument profile and binds it to the definition's docRef and
// Schema root (docs/arguments.md, "Binding"); a docRef with the argprofile.
// prefix needs a profile. Every violation of every definition at once, at
// its path.
func TestToolRegistryBindsEveryArgumentProfile(t *testing.T) {
	t.Parallel()
	sample := filesystemRegistry(t)
	second := func(o *v1alpha1.ToolRegistry) *v1alpha1.ToolDefinition {
		d := o.Spec.Definitions[0].DeepCopy()
		d.ID, d.ToolID = "fs-write-file-2", "fs.write-file-two"
		o.Spec.Definitions = append(o.Spec.Definitions, *d)
		return &o.Spec.Definitions[1]
	}
	setArguments := func(d *v1alpha1.ToolDefinition, from, to string) {
		d.Arguments = &apiextensionsv1.JSON{Raw: []byte(strings.Replace(string(d.Arguments.Raw), from, to, 1))}
	}
	tests := []struct {
		name string
		mod  func(*v1alpha1.ToolRegistry)
		want []string
	}{
		{"the sample is admitted", func(*v1alpha1.ToolRegistry) {}, nil},
		{"a profile whose docRef is not its reference", func(o *v1alpha1.ToolRegistry) {
			o.Spec.Definitions[0].DocRef = "argprofile.0000000000000000000000000000000000000000000000000000"
		}, []string{"spec.definitions[0].docRef mismatch"}},
		{"a profile that derives to another Schema", func(o *v1alpha1.ToolRegistry) {
			// The content as an escaped string: the derived Schema changes, and so does the digest.
			setArguments(&o.Spec.Definitions[0], `"bind":"digest"`, `"bind":"escaped"`)
		}, []string{"spec.definitions[0].docRef mismatch", "spec.definitions[0].schema.root mismatch"}},
		{"an argprofile. docRef without a profile", func(o *v1alpha1.ToolRegistry) { o.Spec.Definitions[0].Arguments = nil },
			[]string{"spec.definitions[0].docRef missing"}},
		{"a malformed profile", func(o *v1alpha1.ToolRegistry) {
			setArguments(&o.Spec.Definitions[0], `"choice":"text"`, `"choice":"prose"`)
		}, []string{"spec.definitions[0].arguments.arguments.members[1].value.choice malformed"}},
		{"a profile that is no profile document", func(o *v1alpha1.ToolRegistry) {
			o.Spec.Definitions[0].Arguments = &apiextensionsv1.JSON{Raw: []byte(`{"profile":"toolgate.mcp-arguments/1","tools":[]}`)}
		}, []string{"spec.definitions[0].arguments malformed"}},
		{"every definition's violations at once", func(o *v1alpha1.ToolRegistry) {
			d := second(o)
			setArguments(d, `"choice":"text"`, `"choice":"prose"`)
			o.Spec.Definitions[0].DocRef = "argprofile.0000000000000000000000000000000000000000000000000000"
			o.Spec.Definitions[0].Schema.Root = apiextensionsv1.JSON{Raw: []byte(`{"kind":"object"}`)}
		}, []string{
			"spec.definitions[0].docRef mismatch", "spec.definitions[0].schema.root mismatch",
			"spec.definitions[1].arguments.arguments.members[1].value.choice malformed",
		}},
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
			if err == nil && (s == nil || d.Profile(0) == nil || d.Profile(0).DocRef() != s.Definition(0).DocRef().String()) {
				t.Errorf("admitted without the profile bound to its definition")
			}
		})
	}
}
