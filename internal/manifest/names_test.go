package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/engine/fault"
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
		if e.IsDir() { // serviceaccounts/: not toolgate manifests
			continue
		}
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
