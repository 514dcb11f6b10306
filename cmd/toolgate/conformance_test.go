package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/webhook"
)

// TestValidateAgreesWithTheWebhook runs the same objects through the
// admission webhook's validators and through validate -f (the object
// written among the other samples): both must accept, or both refuse.
func TestValidateAgreesWithTheWebhook(t *testing.T) {
	t.Parallel()
	set, err := manifest.LoadPaths(samples(t))
	if err != nil {
		t.Fatal(err)
	}
	ha, tr := set.HostAuthorities[0], set.ToolRegistries[0]
	hostCase := func(mod func(*v1alpha1.HostAuthority)) any {
		o := ha.DeepCopy()
		mod(o)
		return o
	}
	registryCase := func(mod func(*v1alpha1.ToolRegistry)) any {
		o := tr.DeepCopy()
		mod(o)
		return o
	}
	tests := map[string]any{
		"the sample HostAuthority":            hostCase(func(*v1alpha1.HostAuthority) {}),
		"a lifetime above the engine's bound": hostCase(func(o *v1alpha1.HostAuthority) { o.Spec.MaxAuthorizationLifetimeSeconds = "7200" }),
		"a HostAuthority without roles":       hostCase(func(o *v1alpha1.HostAuthority) { o.Spec.Roles = nil }),
		"the sample ToolRegistry":             registryCase(func(*v1alpha1.ToolRegistry) {}),
		"a tool identifier without a dot":     registryCase(func(o *v1alpha1.ToolRegistry) { o.Spec.Definitions[0].ToolID = "paymentssubmit" }),
		"a definition listed twice":           registryCase(func(o *v1alpha1.ToolRegistry) { o.Spec.Definitions[1] = o.Spec.Definitions[0] }),
		"an unconfirmed import draft": registryCase(func(o *v1alpha1.ToolRegistry) {
			o.Annotations = map[string]string{manifest.UnconfirmedImportAnnotation: "true"}
		}),
		"a malformed snapshot identity (and its name)": registryCase(func(o *v1alpha1.ToolRegistry) { o.Spec.SnapshotID = "Primary_Registry"; o.Name = "Primary_Registry-1" }),
	}
	ctx := context.Background()
	for name, obj := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var hookErr error
			keep := sampleFiles
			switch o := obj.(type) {
			case *v1alpha1.HostAuthority:
				_, hookErr = webhook.HostAuthorityValidator{}.ValidateCreate(ctx, o)
				keep = []string{"stk_v1alpha1_toolregistry.yaml"}
			case *v1alpha1.ToolRegistry:
				_, hookErr = webhook.ToolRegistryValidator{}.ValidateCreate(ctx, o)
				keep = []string{"stk_v1alpha1_hostauthority.yaml"}
			}
			dir := copySamples(t, keep...)
			b, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "object.yaml"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			r := runCLI("", "validate", "-f", dir)
			if webhookRefuses, validateRefuses := hookErr != nil, r.code != 0; webhookRefuses != validateRefuses {
				t.Errorf("webhook refuses: %v (%v); validate -f refuses: %v (exit %d):\n%s%s",
					webhookRefuses, hookErr, validateRefuses, r.code, r.stdout, r.stderr)
			}
			if want := !strings.HasPrefix(name, "the sample"); (hookErr != nil) != want {
				t.Errorf("webhook refuses: %v, want %v (a table case that proves nothing)", hookErr != nil, want)
			}
		})
	}
}

// TestValidateAgreesWithTheWebhookOnPolicySnapshots: a PolicySnapshot
// generation is admitted by the webhook (for a policy administrator, with
// the earlier generations stored) exactly when validate -f accepts it
// beside those generations.
func TestValidateAgreesWithTheWebhookOnPolicySnapshots(t *testing.T) {
	t.Parallel()
	set, err := manifest.LoadPaths(samples(t))
	if err != nil {
		t.Fatal(err)
	}
	ha, gen1, gen2 := &set.HostAuthorities[0], &set.PolicySnapshots[0], &set.PolicySnapshots[1]
	if gen2.Spec.Policies[0].Rules[0].Obligations[0].Seconds != "60" {
		t.Fatal("the second generation no longer retains version 1's 60-second age this test edits")
	}
	type tc struct {
		candidate *v1alpha1.PolicySnapshot
		earlier   []*v1alpha1.PolicySnapshot
	}
	mod := func(o *v1alpha1.PolicySnapshot, f func(*v1alpha1.PolicySnapshot)) *v1alpha1.PolicySnapshot {
		c := o.DeepCopy()
		f(c)
		return c
	}
	tests := map[string]tc{
		"the first generation":  {candidate: gen1},
		"the second generation": {candidate: gen2, earlier: []*v1alpha1.PolicySnapshot{gen1}},
		"a successor editing a retained version": {candidate: mod(gen2, func(o *v1alpha1.PolicySnapshot) {
			o.Spec.Policies[0].Rules[0].Obligations[0].Seconds = "45"
		}), earlier: []*v1alpha1.PolicySnapshot{gen1}},
		"a scope resource outside the HostAuthority": {candidate: mod(gen1, func(o *v1alpha1.PolicySnapshot) {
			o.Spec.Policies[0].Rules[0].Scope.Resources = append(o.Spec.Policies[0].Rules[0].Scope.Resources, "acct-9999")
		})},
		"a generation gap": {candidate: mod(gen2, func(o *v1alpha1.PolicySnapshot) {
			o.Spec.SnapshotGeneration, o.Name = "3", "payments-policy-3"
		}), earlier: []*v1alpha1.PolicySnapshot{gen1}},
		"an unknown HostAuthority": {candidate: mod(gen1, func(o *v1alpha1.PolicySnapshot) {
			o.Spec.HostAuthorityRef.Name = "other-host"
		})},
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			objs := []client.Object{ha.DeepCopy()}
			dir := copySamples(t, "stk_v1alpha1_hostauthority.yaml", "stk_v1alpha1_toolregistry.yaml")
			for i, e := range tc.earlier {
				objs = append(objs, e.DeepCopy())
				writeObject(t, filepath.Join(dir, fmt.Sprintf("earlier-%d.yaml", i)), e)
			}
			writeObject(t, filepath.Join(dir, "object.yaml"), tc.candidate)
			ctx := admission.NewContextWithRequest(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				Operation: admissionv1.Create, UserInfo: authenticationv1.UserInfo{Username: "alice", Groups: []string{"payments-policy-admins"}},
			}})
			v := webhook.PolicySnapshotValidator{Reader: fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()}
			_, hookErr := v.ValidateCreate(ctx, tc.candidate.DeepCopy())
			r := runCLI("", "validate", "-f", dir)
			if webhookRefuses, validateRefuses := hookErr != nil, r.code != 0; webhookRefuses != validateRefuses {
				t.Errorf("webhook refuses: %v (%v); validate -f refuses: %v (exit %d):\n%s%s",
					webhookRefuses, hookErr, validateRefuses, r.code, r.stdout, r.stderr)
			}
			if want := !strings.HasPrefix(name, "the "); (hookErr != nil) != want {
				t.Errorf("webhook refuses: %v, want %v (a table case that proves nothing)", hookErr != nil, want)
			}
		})
	}
}

func writeObject(t *testing.T, p string, o any) {
	t.Helper()
	b, err := yaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
