package webhook_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publisher"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/webhook"
)

func samples(t testing.TB) *manifest.Set {
	t.Helper()
	set, err := manifest.LoadPaths(filepath.Join("..", "..", "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// as returns a context carrying an admission request by user.
func as(op admissionv1.Operation, user string, groups []string, old runtime.Object) context.Context {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, UserInfo: authenticationv1.UserInfo{Username: user, Groups: groups},
	}}
	if old != nil {
		raw, _ := json.Marshal(old)
		req.OldObject = runtime.RawExtension{Raw: raw}
	}
	return admission.NewContextWithRequest(context.Background(), req)
}

func reader(t testing.TB, objs ...client.Object) client.Reader {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	copies := make([]client.Object, len(objs)) // the fake client writes resourceVersion into what it is given
	for i, o := range objs {
		copies[i] = o.DeepCopyObject().(client.Object)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(copies...).Build()
}

func TestPolicySnapshotValidator(t *testing.T) {
	t.Parallel()
	set := samples(t)
	ha, gen1, gen2 := &set.HostAuthorities[0], &set.PolicySnapshots[0], &set.PolicySnapshots[1]
	admins := []string{"payments-policy-admins"}
	cases := map[string]struct {
		objs      []client.Object
		user      string
		groups    []string
		ps        *v1alpha1.PolicySnapshot
		wantErr   func(error) bool
		wantInErr string
	}{
		"an administrator publishes generation 1": {objs: []client.Object{ha}, user: "alice", groups: admins, ps: gen1},
		"an administrator publishes the exact successor": {
			objs: []client.Object{ha, gen1}, user: "alice", groups: admins, ps: gen2},
		"a ServiceAccount bound to the role publishes": {
			objs: []client.Object{ha}, user: "system:serviceaccount:argocd:argocd-application-controller", ps: gen1},
		"a user without the role is forbidden": {
			objs: []client.Object{ha}, user: "mallory", groups: []string{"payments-readers"}, ps: gen1,
			wantErr: apierrors.IsForbidden, wantInErr: "policyAdministrationAuthority"},
		"a successor without its previous generation in the cluster": {
			objs: []client.Object{ha}, user: "alice", groups: admins, ps: gen2,
			wantErr: apierrors.IsInvalid, wantInErr: "spec.snapshotGeneration"},
		"a missing HostAuthority": {
			user: "alice", groups: admins, ps: gen1, wantErr: apierrors.IsInvalid, wantInErr: "spec.hostAuthorityRef.name"},
		"a rule outside the ceiling, reported without its value": {
			objs: []client.Object{ha}, user: "alice", groups: admins,
			ps: func() *v1alpha1.PolicySnapshot {
				p := gen1.DeepCopy()
				for j := range p.Spec.Policies[0].Rules {
					if s := p.Spec.Policies[0].Rules[j].Scope; s != nil {
						s.Resources = append(s.Resources, "acct-secret-7777")
					}
				}
				return p
			}(),
			wantErr: apierrors.IsInvalid, wantInErr: "spec.policies[0].rules[0].scope.resources"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := webhook.PolicySnapshotValidator{Reader: reader(t, tc.objs...)}
			_, err := v.ValidateCreate(as(admissionv1.Create, tc.user, tc.groups, nil), tc.ps.DeepCopy())
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("ValidateCreate: %v", err)
				}
				return
			}
			if err == nil || !tc.wantErr(err) {
				t.Fatalf("ValidateCreate error = %v, want another kind", err)
			}
			if !strings.Contains(err.Error(), tc.wantInErr) {
				t.Errorf("error %q does not name %q", err, tc.wantInErr)
			}
			if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), tc.user) && tc.user != "" {
				t.Errorf("the rejection echoes a value: %v", err)
			}
		})
	}
}

func TestAnUnconfirmedImportDraftIsNotAdmitted(t *testing.T) {
	t.Parallel()
	o := samples(t).ToolRegistries[0].DeepCopy()
	v := webhook.ToolRegistryValidator{}
	if _, err := v.ValidateCreate(context.Background(), o); err != nil {
		t.Fatalf("the confirmed sample was rejected: %v", err)
	}
	o.Annotations = map[string]string{manifest.UnconfirmedImportAnnotation: "true"}
	if _, err := v.ValidateCreate(context.Background(), o); !apierrors.IsInvalid(err) {
		t.Errorf("an unconfirmed import draft: %v, want Invalid", err)
	}
}

func TestUpdatesKeepSpecAndPublisher(t *testing.T) {
	t.Parallel()
	set := samples(t)
	old := set.ToolRegistries[0].DeepCopy()
	old.Annotations = map[string]string{publisher.Annotation: `{"name":"alice"}`}
	v := webhook.ToolRegistryValidator{}

	relabelled := old.DeepCopy()
	relabelled.Labels = map[string]string{"team": "payments"}
	if _, err := v.ValidateUpdate(context.Background(), old, relabelled); err != nil {
		t.Errorf("a metadata update was rejected: %v", err)
	}
	edited := old.DeepCopy()
	edited.Spec.Definitions[0].Title = "edited"
	if _, err := v.ValidateUpdate(context.Background(), old, edited); !apierrors.IsInvalid(err) {
		t.Errorf("a spec update: %v, want Invalid", err)
	}
	forged := old.DeepCopy()
	forged.Annotations[publisher.Annotation] = `{"name":"mallory"}`
	if _, err := v.ValidateUpdate(context.Background(), old, forged); !apierrors.IsInvalid(err) {
		t.Errorf("a publisher change: %v, want Invalid", err)
	}
}

func TestTheHostAuthorityRolloutChangesOnlyByAnAdministrator(t *testing.T) {
	t.Parallel()
	old := samples(t).HostAuthorities[0].DeepCopy()
	v := webhook.HostAuthorityValidator{}
	graced := old.DeepCopy()
	graced.Rollout = &v1alpha1.HostAuthorityRollout{SupersededGrace: &v1alpha1.SupersededGrace{Generations: "1"}}
	ctx := func(user string) context.Context { return as(admissionv1.Update, user, nil, old) }

	if _, err := v.ValidateUpdate(ctx("system:serviceaccount:argocd:argocd-application-controller"), old, graced); err != nil {
		t.Errorf("an administrator's grace was rejected: %v", err)
	}
	if _, err := v.ValidateUpdate(ctx("system:serviceaccount:payments:payments-agent-runtime"), old, graced); !apierrors.IsForbidden(err) {
		t.Errorf("an agent runtime's grace: %v, want Forbidden", err)
	}
	relabelled := old.DeepCopy()
	relabelled.Labels = map[string]string{"team": "payments"}
	if _, err := v.ValidateUpdate(ctx("system:serviceaccount:toolgate-system:toolgate-manager"), old, relabelled); err != nil {
		t.Errorf("a metadata update was rejected: %v", err)
	}
	malformed := graced.DeepCopy()
	malformed.Rollout.SupersededGrace.Seconds = "0"
	if _, err := v.ValidateUpdate(ctx("system:serviceaccount:argocd:argocd-application-controller"), old, malformed); !apierrors.IsInvalid(err) {
		t.Errorf("a malformed grace: %v, want Invalid", err)
	}
	if _, err := v.ValidateUpdate(context.Background(), old, graced); !apierrors.IsInternalError(err) {
		t.Errorf("a grace without an admission request: %v, want an internal error", err)
	}
	if _, err := (webhook.HostAuthorityValidator{Offline: true}).ValidateUpdate(context.Background(), old, graced); err != nil {
		t.Errorf("the offline check of a well-formed grace: %v", err)
	}
	if _, err := (webhook.HostAuthorityValidator{Offline: true}).ValidateUpdate(context.Background(), old, malformed); !apierrors.IsInvalid(err) {
		t.Errorf("the offline check of a malformed grace: %v, want Invalid", err)
	}
	respecced := graced.DeepCopy()
	respecced.Spec.MaxAuthorizationLifetimeSeconds = "60"
	if _, err := v.ValidateUpdate(ctx("system:serviceaccount:argocd:argocd-application-controller"), old, respecced); !apierrors.IsInvalid(err) {
		t.Errorf("a spec change alongside the rollout: %v, want Invalid", err)
	}
}

func TestPublisherDefaulter(t *testing.T) {
	t.Parallel()
	set := samples(t)
	ha := &set.HostAuthorities[0]
	s := store.New()
	cfg, err := manifest.HostConfig(ha)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := serving.LegacyKeyState(make([]byte, ed25519.SeedSize))
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := s.EnsureDomain(store.DomainSpec{Namespace: ha.Namespace, Name: ha.Name, UID: "uid-1", Keys: priv, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	d := webhook.PublisherDefaulter{Store: s, DomainWait: 100 * time.Millisecond}

	ps := set.PolicySnapshots[0].DeepCopy()
	ps.Annotations = map[string]string{publisher.Annotation: `{"name":"forged"}`, publisher.SignatureAnnotation: "AAAA"}
	if err := d.Record(as(admissionv1.Create, "alice", []string{"payments-policy-admins"}, nil), ps); err != nil {
		t.Fatalf("Default: %v", err)
	}
	p, err := publisher.Verify(info.PublicKey, "PolicySnapshot", ps.Namespace, ps.Name, info.UID, ps.Spec, ps.Annotations)
	if err != nil || p.Name != "alice" {
		t.Fatalf("the recorded publisher = %+v, %v; want a verifying attestation for alice", p, err)
	}

	// An update keeps the annotations of the stored object.
	edited := ps.DeepCopy()
	edited.Annotations[publisher.Annotation] = `{"name":"mallory"}`
	delete(edited.Annotations, publisher.SignatureAnnotation)
	if err := d.Record(as(admissionv1.Update, "mallory", nil, ps), edited); err != nil {
		t.Fatalf("Default on update: %v", err)
	}
	if edited.Annotations[publisher.Annotation] != ps.Annotations[publisher.Annotation] ||
		edited.Annotations[publisher.SignatureAnnotation] != ps.Annotations[publisher.SignatureAnnotation] {
		t.Error("an update changed the publisher annotations")
	}

	// A PolicySnapshot of a domain that is not served is refused after the wait.
	other := set.PolicySnapshots[0].DeepCopy()
	other.Spec.HostAuthorityRef.Name = "no-such-host"
	start := time.Now()
	if err := d.Record(as(admissionv1.Create, "alice", nil, nil), other); !apierrors.IsForbidden(err) {
		t.Errorf("Default without a domain: %v, want Forbidden", err)
	}
	if time.Since(start) < 100*time.Millisecond {
		t.Error("Default did not wait for the domain")
	}
}

// TestTheArgumentProfileIsBoundAtAdmission: the webhook admits the sample
// profiled registry and refuses one whose profile no longer gives its
// docRef and Schema root, naming both fields (the rule is the one
// admission function's, internal/publication).
func TestTheArgumentProfileIsBoundAtAdmission(t *testing.T) {
	t.Parallel()
	set, err := manifest.LoadPaths(filepath.Join("..", "..", "examples", "mcp-filesystem", "manifests", "toolregistry.yaml"))
	if err != nil || len(set.ToolRegistries) != 1 {
		t.Fatalf("the sample registry: %v", err)
	}
	o := set.ToolRegistries[0].DeepCopy()
	v := webhook.ToolRegistryValidator{}
	if _, err := v.ValidateCreate(context.Background(), o); err != nil {
		t.Fatalf("the bound sample was rejected: %v", err)
	}
	o.Spec.Definitions[0].Arguments.Raw = []byte(strings.Replace(string(o.Spec.Definitions[0].Arguments.Raw), `"digest"`, `"escaped"`, 1))
	_, err = v.ValidateCreate(context.Background(), o)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.definitions[0].docRef") || !strings.Contains(err.Error(), "spec.definitions[0].schema.root") {
		t.Errorf("a profile that no longer gives its docRef and Schema root: %v, want Invalid at both", err)
	}
}

// TestAPolicyNamingAnUndefinedToolIsAdmittedWithWarnings: the webhook
// admits a PolicySnapshot whose rules name a tool no ToolRegistry of the
// namespace defines (the registry may be applied after it) and warns once
// per reference, with its path and never the name; with the registry in
// place the samples draw no warning. (test/integration checks that the
// apiserver relays them to the client.)
func TestAPolicyNamingAnUndefinedToolIsAdmittedWithWarnings(t *testing.T) {
	t.Parallel()
	set := samples(t)
	ha, reg, gen1 := &set.HostAuthorities[0], &set.ToolRegistries[0], &set.PolicySnapshots[0]
	typo := gen1.DeepCopy()
	last := len(typo.Spec.Policies[0].Rules) - 1 // deny-email-unauthenticated
	typo.Spec.Policies[0].Rules[last].Condition.Raw = []byte(strings.Replace(string(typo.Spec.Policies[0].Rules[last].Condition.Raw), `"email.send"`, `"email.sendd"`, 1))
	if string(typo.Spec.Policies[0].Rules[last].Condition.Raw) == string(gen1.Spec.Policies[0].Rules[last].Condition.Raw) {
		t.Fatal("the last rule of the sample no longer names email.send")
	}
	at := func(i int) string {
		return "spec.policies[0].rules[" + strconv.Itoa(i) + "].condition.all[0].predicate.identifier: notFound: "
	}
	cases := map[string]struct {
		objs []client.Object
		ps   *v1alpha1.PolicySnapshot
		want []string // each warning's prefix
	}{
		"the samples with their registry":     {objs: []client.Object{ha, reg}, ps: gen1},
		"a deny rule with a typo in its tool": {objs: []client.Object{ha, reg}, ps: typo, want: []string{at(last)}},
		"the registry not applied yet": {objs: []client.Object{ha}, ps: gen1,
			want: []string{at(0), at(1), at(2), at(3), at(7)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := webhook.PolicySnapshotValidator{Reader: reader(t, tc.objs...)}
			warnings, err := v.ValidateCreate(as(admissionv1.Create, "alice", []string{"payments-policy-admins"}, nil), tc.ps.DeepCopy())
			if err != nil {
				t.Fatalf("ValidateCreate rejects: %v", err)
			}
			if len(warnings) != len(tc.want) {
				t.Fatalf("%d warnings, want %d: %q", len(warnings), len(tc.want), warnings)
			}
			for i, w := range warnings {
				if !strings.HasPrefix(w, tc.want[i]) || len(w) > 256 {
					t.Errorf("warning %d = %q, want the prefix %q (and at most 256 characters, which the apiserver relays whole)", i, w, tc.want[i])
				}
				if strings.Contains(w, "email.send") {
					t.Errorf("warning %d echoes the name: %q", i, w)
				}
			}
		})
	}
	// A caller without the role is refused and learns nothing of the
	// namespace's registries.
	v := webhook.PolicySnapshotValidator{Reader: reader(t, ha)}
	if warnings, err := v.ValidateCreate(as(admissionv1.Create, "mallory", nil, nil), gen1.DeepCopy()); !apierrors.IsForbidden(err) || len(warnings) != 0 {
		t.Errorf("a caller without the role: warnings %q, error %v", warnings, err)
	}
}
