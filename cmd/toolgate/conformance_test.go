package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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
		})
	}
}
