package standalone_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

// shadowManifest is generation 3 of the samples' policy snapshot as a
// shadow of 2, its generation-2 content copied, with the given metadata
// lines added.
func shadowManifest(t *testing.T, metadata, until string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "config", "samples", "stk_v1alpha1_policysnapshot_generation2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(raw), "  name: payments-policy-2\n", "  name: payments-policy-3\n"+metadata, 1)
	s = strings.Replace(s, `  snapshotGeneration: "2"`+"\n", `  snapshotGeneration: "3"`+"\n  shadow: {of: \"2\", until: \""+until+"\"}\n", 1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shadow.yaml"), []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStandaloneShadowUsesTheClusterForm: a standalone shadow manifest is
// the cluster's form with metadata.creationTimestamp written; it loads as
// a shadow beside generation 2. Without its creation time, or with a
// window beyond 7 days, the load is refused at the path.
func TestStandaloneShadowUsesTheClusterForm(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	dir := shadowManifest(t, "  creationTimestamp: \"2026-11-30T00:00:00Z\"\n", "2026-12-02T00:00:00Z")
	ds, err := standalone.LoadAt(t.TempDir(), clock, samples(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := ds[0].Select(serving.Selection{RegistryID: "primary-registry", RegistryGeneration: host.Current, PolicyID: "payments-policy", PolicyGeneration: host.Current}, now)
	if err != nil || sel.PolicyGeneration != "2" {
		t.Fatalf("Select = %+v, %v; want generation 2 current", sel, err)
	}
	if sh, ok := ds[0].ShadowOf(host.Current, sel, now); !ok || sh.Generation != "3" {
		t.Errorf("ShadowOf = %+v, %v", sh, ok)
	}
	for name, c := range map[string]struct{ metadata, until, path string }{
		"no creation time": {"", "2026-12-02T00:00:00Z", "metadata.creationTimestamp"},
		"more than 7 days": {"  creationTimestamp: \"2026-11-30T00:00:00Z\"\n", "2026-12-08T00:00:00Z", "spec.shadow.until"},
	} {
		_, err := standalone.LoadAt(t.TempDir(), clock, samples(t), shadowManifest(t, c.metadata, c.until))
		if err == nil || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v, want a rejection at %s", name, err, c.path)
		}
	}
}
