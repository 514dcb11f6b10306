package manifest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/testutil"
)

// loadSamples reads the shipped samples, with edit applied to the text of
// the named file first.
func loadSamples(t *testing.T, file, from, to string) *manifest.Set {
	t.Helper()
	dir := filepath.Join(testutil.RepoRoot(t), "config", "samples")
	var docs []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == file {
			if !strings.Contains(string(b), from) {
				t.Fatalf("%s no longer contains %q", file, from)
			}
			b = []byte(strings.Replace(string(b), from, to, 1))
		}
		if strings.HasPrefix(e.Name(), "stk_") {
			docs = append(docs, string(b))
		}
	}
	set, err := manifest.Parse("samples.yaml", []byte(strings.Join(docs, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func sampleHost(t *testing.T, set *manifest.Set) *host.Host {
	t.Helper()
	o, ok := set.HostAuthority("payments", "payments-host")
	if !ok {
		t.Fatal("the samples have no HostAuthority payments/payments-host")
	}
	cfg, err := manifest.HostConfig(o)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPublishIntoAppliesTheCRDNameRule: the standalone service's loader
// refuses a PolicySnapshot that the apiserver's CEL name rule would refuse,
// and publishes both sample generations otherwise, in generation order.
func TestPublishIntoAppliesTheCRDNameRule(t *testing.T) {
	t.Parallel()
	admin := host.Caller{Name: "toolgate-cli", Groups: []string{"payments-policy-admins"}}

	set := loadSamples(t, "", "", "")
	h := sampleHost(t, set)
	if err := set.PublishInto(h, "payments", "payments-host", admin); err != nil {
		t.Fatalf("the samples: %v", err)
	}
	for _, gen := range []string{"1", "2"} {
		if _, err := h.Policy("payments-policy", gen); err != nil {
			t.Errorf("generation %s not published: %v", gen, err)
		}
	}

	set = loadSamples(t, "stk_v1alpha1_policysnapshot_generation2.yaml", "name: payments-policy-2\n", "name: payments-policy-two\n")
	h = sampleHost(t, set)
	err := set.PublishInto(h, "payments", "payments-host", admin)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.Mismatch || fe.Path != "metadata.name" {
		t.Fatalf("a misnamed generation: err = %v, want metadata.name: mismatch", err)
	}
	if _, err := h.Policy("payments-policy", "2"); err == nil {
		t.Error("the misnamed generation was published")
	}
}

// TestNameRules: each kind's name rule, as the CRDs state it.
func TestNameRules(t *testing.T) {
	t.Parallel()
	set := loadSamples(t, "", "", "")
	ha := set.HostAuthorities[0]
	if err := manifest.CheckHostAuthorityName(&ha); err != nil {
		t.Errorf("the sample HostAuthority: %v", err)
	}
	ha.Name += "-x"
	testutil.CheckFault(t, manifest.CheckHostAuthorityName(&ha), fault.ErrMismatch, "metadata.name")
	ps := set.PolicySnapshots[0]
	if err := manifest.CheckPolicyName(&ps); err != nil {
		t.Errorf("the sample PolicySnapshot: %v", err)
	}
	ps.Spec.SnapshotGeneration = "3"
	testutil.CheckFault(t, manifest.CheckPolicyName(&ps), fault.ErrMismatch, "metadata.name")
}
