package standalone_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

// TestLoadKeepsOneKeyPerDomain: the first load creates the domain's key
// (mode 0600) and later loads reuse it, so artifacts survive a restart; a
// damaged key file fails closed instead of being replaced.
func TestLoadKeepsOneKeyPerDomain(t *testing.T) {
	t.Parallel()
	samples := filepath.Join(testutil.RepoRoot(t), "config", "samples")
	keys := t.TempDir()
	first, err := standalone.Load(keys, samples)
	if err != nil || len(first) != 1 {
		t.Fatalf("Load: %d domains, %v", len(first), err)
	}
	path := filepath.Join(keys, "payments.payments-host.ed25519")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 32 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	before, _ := os.ReadFile(path)
	if _, err := standalone.Load(keys, samples); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("a second load replaced the key: every artifact of the domain would fail")
	}
	if err := os.WriteFile(path, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := standalone.Load(keys, samples); err == nil {
		t.Error("a damaged key file was accepted")
	}
	if _, err := standalone.Load(t.TempDir(), filepath.Join(testutil.RepoRoot(t), "examples", "proposals")); err == nil {
		t.Error("a directory without manifests was accepted")
	}
}
