package store_test

import (
	"bytes"
	"crypto/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgate/toolgate/internal/store"
)

// TestARotationKeepsTheDomain: a rotated key set (or one with a key
// revoked) is the same domain: every published snapshot stays served, the
// domain is found by its old and its new key, and only the keys it acts
// with change.
func TestARotationKeepsTheDomain(t *testing.T) {
	t.Parallel()
	set := samples(t)
	s := store.New()
	fill(t, s, set, "uid-1")
	before, _ := s.Domain("payments", "payments-host")
	served := objects(s)
	old, _ := s.ByName("payments", "payments-host")

	rotated, err := key(1).Rotate(rand.Reader, time.Now(), store.KeyRetireAfter(300), "r1")
	if err != nil {
		t.Fatal(err)
	}
	info, replaced, err := s.EnsureDomain(domainSpec(t, &set.HostAuthorities[0], "uid-1", rotated))
	if err != nil || replaced {
		t.Fatalf("EnsureDomain after a rotation: replaced %v, %v; want the same domain", replaced, err)
	}
	if info.SigningKeyID != rotated.ActiveID() || info.SigningKeyID == before.SigningKeyID {
		t.Errorf("signing key %s, want the rotated-in %s", info.SigningKeyID, rotated.ActiveID())
	}
	if info.UID != before.UID || !bytes.Equal(info.PublicKey, before.PublicKey) {
		t.Error("the domain's identity or attestation key changed with a rotation")
	}
	if diff := cmp.Diff(served, objects(s)); diff != "" {
		t.Errorf("served after the rotation (-before +after):\n%s", diff)
	}
	for _, id := range []string{before.SigningKeyID, rotated.ActiveID()} {
		if d, ok := s.ByKey(id); !ok || d.Name() != "payments-host" {
			t.Errorf("key %s does not find the domain", id)
		}
	}
	now, _ := s.ByName("payments", "payments-host")
	if now.Same(old) {
		t.Error("the rotated domain is Same as before")
	}

	// A revocation is a change too, and the same input again is none.
	spec := domainSpec(t, &set.HostAuthorities[0], "uid-1", rotated)
	spec.Revoked = []string{before.SigningKeyID}
	if _, replaced, err := s.EnsureDomain(spec); err != nil || replaced {
		t.Fatalf("revocation: replaced %v, %v", replaced, err)
	}
	revoked, _ := s.ByName("payments", "payments-host")
	if revoked.Same(now) {
		t.Error("a domain with a key newly revoked is Same as before")
	}
	if _, _, err := s.EnsureDomain(spec); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.ByName("payments", "payments-host"); !again.Same(revoked) {
		t.Error("the same key set and revocations again rebuilt the domain's keys")
	}
}
