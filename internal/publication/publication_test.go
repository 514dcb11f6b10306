package publication_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/argpred"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/testutil"
	"github.com/toolgate/toolgate/internal/testutil/kubefixture"
)

var administrator = host.Caller{Name: "alice", Groups: []string{"payments-policy-admins"}}

func samples(t *testing.T) *manifest.Set {
	t.Helper()
	set, err := kubefixture.Samples(testutil.RepoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func sampleHost(t *testing.T, set *manifest.Set) *host.Host {
	t.Helper()
	cfg, err := manifest.HostConfig(&set.HostAuthorities[0])
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// next returns a copy of gen as generation g, edited by mod.
func next(gen *v1alpha1.PolicySnapshot, g string, mod func(*v1alpha1.PolicySnapshotSpec)) *v1alpha1.PolicySnapshot {
	c := gen.DeepCopy()
	c.Name = string(c.Spec.SnapshotID) + "-" + g
	c.Spec.SnapshotGeneration = v1alpha1.Generation(g)
	if mod != nil {
		mod(&c.Spec)
	}
	return c
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	set := samples(t)
	ha, gen1, gen2 := &set.HostAuthorities[0], &set.PolicySnapshots[0], &set.PolicySnapshots[1]
	chain := []v1alpha1.PolicySnapshot{*gen1, *gen2}
	outside := func(s *v1alpha1.PolicySnapshotSpec) {
		s.Policies[0].Rules[0].Scope.Resources = append(s.Policies[0].Rules[0].Scope.Resources, "acct-secret-7777")
	}
	misnamed := gen1.DeepCopy()
	misnamed.Name = "payments-policy-one"
	// withArgument opts policy 0 in to argument predicates over the sample
	// registry and adds an argument node at the path to rule 0.
	withArgument := func(path string) func(*v1alpha1.PolicySnapshotSpec) {
		return func(s *v1alpha1.PolicySnapshotSpec) {
			s.Policies[0].Arguments = &v1alpha1.PolicyArguments{Vocabulary: argpred.Vocabulary,
				Registry: v1alpha1.RegistrySnapshotReference{SnapshotID: "primary-registry", Generation: "1"}}
			r := &s.Policies[0].Rules[0]
			r.Condition.Raw = []byte(`{"all":[` + string(r.Condition.Raw) +
				`,{"argument":{"name":"integerAtMost","tool":"payments.submit","version":"1","path":"` + path + `","value":"1000000"}}]}`)
		}
	}
	cases := map[string]struct {
		a    publication.Admission
		want []string // "path code", every violation in order
	}{
		"generation 1 of an administrator publishes": {
			a: publication.Admission{Candidate: gen1, Authority: ha},
		},
		"the exact successor publishes after its earlier generations": {
			a: publication.Admission{Candidate: gen2, Authority: ha, Earlier: chain[:1]},
		},
		"generation 3 publishes after generations 1 and 2": {
			a: publication.Admission{Candidate: next(gen2, "3", nil), Authority: ha, Earlier: chain},
		},
		"a successor without its previous generation is notFound": {
			a:    publication.Admission{Candidate: gen2, Authority: ha},
			want: []string{"spec.snapshotGeneration notFound"},
		},
		"a skipped generation is notFound": {
			a:    publication.Admission{Candidate: next(gen2, "4", nil), Authority: ha, Earlier: chain},
			want: []string{"spec.snapshotGeneration notFound"},
		},
		"an earlier generation of another HostAuthority is not a predecessor": {
			a: publication.Admission{Candidate: gen2, Authority: ha, Earlier: []v1alpha1.PolicySnapshot{func() v1alpha1.PolicySnapshot {
				o := *gen1.DeepCopy()
				o.Spec.HostAuthorityRef.Name = "other-host"
				return o
			}()}},
			want: []string{"spec.snapshotGeneration notFound"},
		},
		"an earlier generation that does not publish makes the successor ineligible": {
			a:    publication.Admission{Candidate: gen2, Authority: ha, Earlier: []v1alpha1.PolicySnapshot{*next(gen1, "1", outside)}},
			want: []string{"spec.snapshotGeneration ineligible"},
		},
		"unreadable earlier generations reject a successor": {
			a:    publication.Admission{Candidate: gen2, Authority: ha, EarlierUnreadable: true},
			want: []string{"spec.snapshotGeneration notFound"},
		},
		"a successor that drops a prior policy version is rejected": {
			a: publication.Admission{Candidate: next(gen2, "3", func(s *v1alpha1.PolicySnapshotSpec) { s.Policies = s.Policies[1:] }),
				Authority: ha, Earlier: chain},
			want: []string{"spec.policies missing"},
		},
		"a lifecycle never moves backwards": {
			a: publication.Admission{Candidate: next(gen2, "3", func(s *v1alpha1.PolicySnapshotSpec) { s.Policies[0].Lifecycle = v1alpha1.PolicyLifecycleActive }),
				Authority: ha, Earlier: chain},
			want: []string{"spec.policies[0].lifecycle ineligible"},
		},
		"content outside the ceiling is reported at its spec path": {
			a:    publication.Admission{Candidate: next(gen1, "1", outside), Authority: ha},
			want: []string{"spec.policies[0].rules[0].scope.resources[2] outOfRange"},
		},
		"an argument opt-in publishes against the namespace's registries": {
			a: publication.Admission{Candidate: next(gen1, "1", withArgument("/amount")), Authority: ha, Registries: set.ToolRegistries},
		},
		"an argument opt-in without its registry is notFound": {
			a:    publication.Admission{Candidate: next(gen1, "1", withArgument("/amount")), Authority: ha},
			want: []string{"spec.policies[0].arguments.registry notFound"},
		},
		"an argument path not in the tool's schema is reported at its spec path": {
			a:    publication.Admission{Candidate: next(gen1, "1", withArgument("/amounts")), Authority: ha, Registries: set.ToolRegistries},
			want: []string{"spec.policies[0].rules[0].condition.all[1].argument.path notFound"},
		},
		"a missing HostAuthority is reported with every violation of the candidate": {
			a:    publication.Admission{Candidate: misnamed},
			want: []string{"metadata.name mismatch", "spec.hostAuthorityRef.name notFound"},
		},
		"an invalid HostAuthority is ineligible": {
			a: publication.Admission{Candidate: gen1, Authority: func() *v1alpha1.HostAuthority {
				o := ha.DeepCopy()
				o.Spec.Capabilities = append(o.Spec.Capabilities, o.Spec.Capabilities[0])
				return o
			}()},
			want: []string{"spec.hostAuthorityRef.name ineligible"},
		},
		"a publisher without policyAdministrationAuthority is rejected as the publisher only": {
			a: publication.Admission{Candidate: next(gen1, "1", outside), Authority: ha,
				Publisher: host.Caller{Name: "mallory", Groups: []string{"payments-readers"}}},
			want: []string{"publisher unauthorized"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.a.Publisher.Name == "" {
				tc.a.Publisher = administrator
			}
			s, err := publication.Admit(tc.a)
			testutil.CheckFaultList(t, err, tc.want)
			if (s == nil) != (err != nil) {
				t.Errorf("snapshot %v with error %v: want exactly one", s, err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("the rejection echoes a value: %v", err)
			}
			if got := publication.NotAdministrator(err); got != (tc.a.Publisher.Name == "mallory") {
				t.Errorf("NotAdministrator = %v", got)
			}
		})
	}
}

// TestChainReportsEveryInvalidGeneration: nothing stops at the first
// problem; a generation after a rejected one is rejected too, because its
// predecessor is not held.
func TestChainReportsEveryInvalidGeneration(t *testing.T) {
	t.Parallel()
	set := samples(t)
	gen1, gen2 := &set.PolicySnapshots[0], &set.PolicySnapshots[1]
	bad := next(gen1, "1", func(s *v1alpha1.PolicySnapshotSpec) { s.Policies = nil })
	gen3 := next(gen2, "3", nil)
	// Given out of order: the chain is published in generation order.
	results := publication.Chain(sampleHost(t, set), administrator, []*v1alpha1.PolicySnapshot{gen3, gen2, bad})
	var got []string
	for _, r := range results {
		got = append(got, r.Object.Name+": "+strings.Join(testutil.FaultList(r.Err), ", "))
	}
	want := []string{
		"payments-policy-1: spec.policies missing",
		"payments-policy-2: spec.snapshotGeneration notFound",
		"payments-policy-3: spec.snapshotGeneration notFound",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestIntoAppliesTheCRDNameRule: the standalone service's loader refuses a
// PolicySnapshot that the apiserver's CEL name rule would refuse, and
// publishes both sample generations otherwise, in generation order.
func TestIntoAppliesTheCRDNameRule(t *testing.T) {
	t.Parallel()
	set := samples(t)
	h := sampleHost(t, set)
	if err := publication.Into(set, h, "payments", "payments-host", administrator); err != nil {
		t.Fatalf("the samples: %v", err)
	}
	for _, gen := range []string{"1", "2"} {
		if _, err := h.Policy("payments-policy", gen); err != nil {
			t.Errorf("generation %s not published: %v", gen, err)
		}
	}

	set.PolicySnapshots[1].Name = "payments-policy-two"
	h = sampleHost(t, set)
	err := publication.Into(set, h, "payments", "payments-host", administrator)
	testutil.CheckFaultList(t, err, []string{"metadata.name mismatch"})
	if _, err := h.Policy("payments-policy", "2"); err == nil {
		t.Error("the misnamed generation was published")
	}
}

// TestIntoRefusesAnUnconfirmedImportDraft: the standalone service, decide
// and test never serve a ToolRegistry whose suggestions a reviewer has not
// confirmed.
func TestIntoRefusesAnUnconfirmedImportDraft(t *testing.T) {
	t.Parallel()
	set := samples(t)
	set.ToolRegistries[0].Annotations = map[string]string{manifest.UnconfirmedImportAnnotation: "true"}
	h := sampleHost(t, set)
	err := publication.Into(set, h, "payments", "payments-host", administrator)
	testutil.CheckFaultList(t, err, []string{"metadata.annotations malformed"})
}

func TestPrevious(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		generation string
		want       string
		wantOK     bool
	}{
		"generation 1 has no predecessor":           {generation: "1"},
		"generation n succeeds generation n-1":      {generation: "10", want: "9", wantOK: true},
		"the largest generation has a predecessor":  {generation: "18446744073709551615", want: "18446744073709551614", wantOK: true},
		"a generation that does not parse has none": {generation: "01"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := &v1alpha1.PolicySnapshot{Spec: v1alpha1.PolicySnapshotSpec{SnapshotGeneration: v1alpha1.Generation(tc.generation)}}
			got, ok := publication.Previous(o)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Previous = %q, %v; want %q, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
