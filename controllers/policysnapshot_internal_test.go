package controllers

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publisher"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

// A restarted follower may reconcile generation 2 before generation 1; no
// status write wakes generation 2 there (the leader writes nothing new), so
// accepting generation 1 must.
func TestAFollowerServesASuccessorReconciledBeforeItsPredecessor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	set, err := manifest.LoadPaths(filepath.Join("..", "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.HostAuthorities) != 1 || len(set.PolicySnapshots) != 2 {
		t.Fatalf("samples: %d HostAuthorities, %d PolicySnapshots, want 1 and 2", len(set.HostAuthorities), len(set.PolicySnapshots))
	}
	ha := &set.HostAuthorities[0]
	cfg, err := manifest.HostConfig(ha)
	if err != nil {
		t.Fatal(err)
	}
	key, err := serving.NewKeyState(rand.Reader, "uid-1")
	if err != nil {
		t.Fatal(err)
	}
	s := store.New()
	if _, _, err := s.EnsureDomain(store.DomainSpec{Namespace: ha.Namespace, Name: ha.Name, UID: "uid-1", Keys: key, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	by := publisher.Publisher{Name: "alice", Groups: []string{"payments-policy-admins"}}.Encode()
	objs := make([]client.Object, 0, 2)
	for i := range set.PolicySnapshots {
		ps := &set.PolicySnapshots[i]
		digest, err := publisher.SpecDigest(ps.Spec)
		if err != nil {
			t.Fatal(err)
		}
		sig, _, ok := s.AttestPublisher(ps.Namespace, ha.Name, "PolicySnapshot", ps.Name, digest, by)
		if !ok {
			t.Fatalf("%s: no attestation", ps.Name)
		}
		ps.Annotations = map[string]string{publisher.Annotation: by, publisher.SignatureAnnotation: publisher.EncodeSignature(sig)}
		objs = append(objs, ps)
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(objs...).Build()
	accepted := make(chan event.GenericEvent, 8)
	r := &PolicySnapshotReconciler{Client: c, Store: s, status: statusWriter{client: c, leader: func() bool { return false }}, accepted: accepted}

	served := func(gen string) bool {
		_, ok := s.Policy(store.Key{Namespace: ha.Namespace, Authority: ha.Name, ID: "payments-policy", Generation: gen})
		return ok
	}
	reconcileNamed := func(name string) {
		t.Helper()
		if _, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ha.Namespace, Name: name}}); err != nil {
			t.Fatalf("Reconcile %s: %v", name, err)
		}
	}

	reconcileNamed("payments-policy-2")
	if served("2") {
		t.Fatal("generation 2 is served before generation 1")
	}
	reconcileNamed("payments-policy-1")
	if !served("1") {
		t.Fatal("generation 1 is not served")
	}
	var woken []reconcile.Request
	for len(accepted) > 0 {
		woken = append(woken, successor(ctx, (<-accepted).Object)...)
	}
	if len(woken) != 1 || woken[0].Name != "payments-policy-2" {
		t.Fatalf("accepting generation 1 woke %v, want payments/payments-policy-2", woken)
	}
	reconcileNamed(woken[0].Name)
	if !served("2") {
		t.Error("generation 2 is not served after its wake-up")
	}
}
