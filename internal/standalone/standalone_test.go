package standalone_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

func samples(t *testing.T) string {
	t.Helper()
	return filepath.Join(testutil.RepoRoot(t), "config", "samples")
}

// TestLoadKeepsOneKeySetPerDomain: the first load creates the domain's key
// set (mode 0600) and later loads reuse it, so artifacts survive a restart;
// a damaged key-set file fails closed instead of being replaced.
func TestLoadKeepsOneKeySetPerDomain(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	first, err := standalone.Load(keys, samples(t))
	if err != nil || len(first) != 1 {
		t.Fatalf("Load: %d domains, %v", len(first), err)
	}
	path := standalone.KeySetPath(keys, "payments", "payments-host")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key-set file: %v, %v", fi, err)
	}
	before, _ := os.ReadFile(path)
	second, err := standalone.Load(keys, samples(t))
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) || second[0].KeyID() != first[0].KeyID() || second[0].Instance() != first[0].Instance() {
		t.Error("a second load replaced the key set: every artifact of the domain would fail")
	}
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := standalone.Load(keys, samples(t)); err == nil {
		t.Error("a damaged key-set file was accepted")
	}
	if _, err := standalone.Load(t.TempDir(), filepath.Join(testutil.RepoRoot(t), "examples", "proposals")); err == nil {
		t.Error("a directory without manifests was accepted")
	}
}

// TestLegacyKeyIsMigrated: a state directory of an earlier release (one
// seed, <ns>.<name>.ed25519) keeps its key as the active key and its
// identity as the domain's instance, so its artifacts and Consumption
// records stay valid; the seed then lives only in the key set.
func TestLegacyKeyIsMigrated(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	seed := bytes.Repeat([]byte{42}, ed25519.SeedSize)
	legacy := filepath.Join(keys, "payments.payments-host.ed25519")
	if err := os.WriteFile(legacy, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	k, _ := artifact.NewKey(seed)
	ds, err := standalone.Load(keys, samples(t))
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].KeyID() != k.ID() || ds[0].Instance() != k.ID() {
		t.Errorf("migrated domain signs with %s as instance %s; want the legacy key %s as both", ds[0].KeyID(), ds[0].Instance(), k.ID())
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the legacy seed is still on disk: %v", err)
	}
	// Rotating keeps the instance: the Consumption store's domain.
	ks, err := standalone.Rotate(keys, "payments", "payments-host", time.Now(), samples(t))
	if err != nil {
		t.Fatal(err)
	}
	if ks.Instance() != k.ID() || ks.ActiveID() == k.ID() || len(ks.Keys()) != 2 {
		t.Errorf("after rotation: instance %s, active %s, %d keys", ks.Instance(), ks.ActiveID(), len(ks.Keys()))
	}
	again, err := standalone.Load(keys, samples(t))
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Instance() != k.ID() || !again[0].HasKey(k.ID()) {
		t.Error("the next start lost the instance or the rotated-out key")
	}
	if _, err := standalone.Rotate(keys, "payments", "treasury-host", time.Now(), samples(t)); err == nil {
		t.Error("a rotation of a HostAuthority the manifests do not hold succeeded")
	}
}

// TestKeyFilesOpenToOthersAreRefused: a key-set file or legacy seed that
// group or others can access is refused at load with a message naming the
// fix (chmod 600 FILE), as ssh refuses such a private key; an owner-only
// mode loads.
func TestKeyFilesOpenToOthersAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode os.FileMode
		ok   bool
	}{
		{0o600, true}, {0o400, true}, {0o644, false}, {0o640, false}, {0o604, false}, {0o660, false}, {0o602, false},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			t.Parallel()
			keys := t.TempDir()
			if _, err := standalone.Load(keys, samples(t)); err != nil {
				t.Fatal(err)
			}
			path := standalone.KeySetPath(keys, "payments", "payments-host")
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			_, err := standalone.Load(keys, samples(t))
			switch {
			case tc.ok && err != nil:
				t.Errorf("mode %v: %v", tc.mode, err)
			case !tc.ok && !errors.Is(err, standalone.ErrKeyFileMode):
				t.Errorf("mode %v: loaded (%v); want ErrKeyFileMode", tc.mode, err)
			case !tc.ok && !strings.Contains(err.Error(), "chmod 600 "+path):
				t.Errorf("mode %v: %q does not name the fix", tc.mode, err)
			}
		})
	}
	t.Run("legacy seed", func(t *testing.T) {
		t.Parallel()
		keys := t.TempDir()
		legacy := filepath.Join(keys, "payments.payments-host.ed25519")
		if err := os.WriteFile(legacy, bytes.Repeat([]byte{42}, ed25519.SeedSize), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(legacy, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := standalone.Load(keys, samples(t)); !errors.Is(err, standalone.ErrKeyFileMode) {
			t.Errorf("a 0644 legacy seed loaded: %v", err)
		}
	})
}
