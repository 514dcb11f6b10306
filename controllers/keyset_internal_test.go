package controllers

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

const testKeyNS = "toolgate-system"

// keyFixture is a leader's HostAuthority reconciler on a fake apiserver
// holding the samples' HostAuthority, with a settable clock.
type keyFixture struct {
	t       *testing.T
	c       client.Client
	r       *HostAuthorityReconciler
	s       *store.Store
	ha      *v1alpha1.HostAuthority
	now     time.Time
	revoked []string
}

func newKeyFixture(t *testing.T) *keyFixture {
	t.Helper()
	set, err := manifest.LoadPaths(filepath.Join("..", "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	ha := set.HostAuthorities[0].DeepCopy()
	ha.UID = "uid-1"
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ha).WithStatusSubresource(ha).Build()
	f := &keyFixture{t: t, c: c, s: store.New(), ha: ha, now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	f.r = &HostAuthorityReconciler{Client: c, Store: f.s, KeyNamespace: testKeyNS,
		Revoked: func(string, string) []string { return f.revoked },
		clock:   func() time.Time { return f.now },
		status:  statusWriter{client: c, leader: func() bool { return true }}}
	return f
}

func (f *keyFixture) reconcile() reconcile.Result {
	f.t.Helper()
	res, err := f.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: f.ha.Namespace, Name: f.ha.Name}})
	if err != nil {
		f.t.Fatalf("Reconcile: %v", err)
	}
	return res
}

func (f *keyFixture) keys() *serving.KeyState {
	f.t.Helper()
	var s corev1.Secret
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: testKeyNS, Name: SigningKeySecretName(f.ha.UID)}, &s); err != nil {
		f.t.Fatalf("the key-set Secret: %v", err)
	}
	ks, err := serving.ParseKeyState(s.Data[SigningKeyField])
	if err != nil {
		f.t.Fatal(err)
	}
	return ks
}

func (f *keyFixture) annotate(value string) {
	f.t.Helper()
	var ha v1alpha1.HostAuthority
	if err := f.c.Get(context.Background(), client.ObjectKeyFromObject(f.ha), &ha); err != nil {
		f.t.Fatal(err)
	}
	if ha.Annotations == nil {
		ha.Annotations = map[string]string{}
	}
	ha.Annotations[RotateAnnotation] = value
	if err := f.c.Update(context.Background(), &ha); err != nil {
		f.t.Fatal(err)
	}
}

func (f *keyFixture) signingKey() string {
	f.t.Helper()
	d, ok := f.s.Domain(f.ha.Namespace, f.ha.Name)
	if !ok {
		f.t.Fatal("the domain is not served")
	}
	return d.SigningKeyID
}

// TestKeysLiveInTheKeyNamespaceOnly: the leader writes the domain's key set
// into the key namespace, named by the HostAuthority's UID; the tenant
// namespace holds no Secret.
func TestKeysLiveInTheKeyNamespaceOnly(t *testing.T) {
	t.Parallel()
	f := newKeyFixture(t)
	f.reconcile()
	ks := f.keys()
	if ks.Instance() != "uid-1" || f.signingKey() != ks.ActiveID() {
		t.Errorf("instance %s, serving %s; want uid-1 and the Secret's active key %s", ks.Instance(), f.signingKey(), ks.ActiveID())
	}
	var tenant corev1.SecretList
	if err := f.c.List(context.Background(), &tenant, client.InNamespace(f.ha.Namespace)); err != nil {
		t.Fatal(err)
	}
	if len(tenant.Items) != 0 {
		t.Errorf("%d Secrets in the tenant namespace", len(tenant.Items))
	}
}

// TestTheRotationAnnotationRotatesOncePerValue: a new value rotates once;
// the same value again does nothing; the rotated-out key is kept until its
// retire time (the samples' 300 s lifetime plus the 30 s skew), when a
// requeue removes it; the domain's published state is not rebuilt.
func TestTheRotationAnnotationRotatesOncePerValue(t *testing.T) {
	t.Parallel()
	f := newKeyFixture(t)
	f.reconcile()
	first := f.signingKey()

	f.annotate("2026-12-01")
	res := f.reconcile()
	ks := f.keys()
	if len(ks.Keys()) != 2 || ks.ActiveID() == first || f.signingKey() != ks.ActiveID() || ks.Keys()[1].ID != first {
		t.Fatalf("after the annotation: %+v, serving %s", ks.Keys(), f.signingKey())
	}
	if want := 330 * time.Second; res.RequeueAfter < want || ks.Keys()[1].RetireAt.Sub(f.now) < want {
		t.Errorf("requeue after %v, retire at %v; want at least %v from the rotation", res.RequeueAfter, ks.Keys()[1].RetireAt, want)
	}
	f.reconcile()
	if again := f.keys(); again.ActiveID() != ks.ActiveID() || len(again.Keys()) != 2 {
		t.Error("the same annotation value rotated again")
	}

	f.now = ks.Keys()[1].RetireAt.Add(-time.Second)
	f.reconcile()
	if len(f.keys().Keys()) != 2 {
		t.Error("the old key was removed before its retire time")
	}
	f.now = ks.Keys()[1].RetireAt
	if res := f.reconcile(); res.RequeueAfter != 0 {
		t.Errorf("nothing left to retire, but requeued after %v", res.RequeueAfter)
	}
	if got := f.keys(); len(got.Keys()) != 1 || got.ActiveID() != ks.ActiveID() {
		t.Errorf("at the retire time: %+v", got.Keys())
	}
	if d, _ := f.s.ByName(f.ha.Namespace, f.ha.Name); d.HasKey(first) {
		t.Error("the served domain still holds the retired key")
	}
}

// TestARevokedActiveKeyIsRotatedOut: the leader never keeps signing with a
// revoked key: it makes a new active key, and the revoked one verifies
// nothing.
func TestARevokedActiveKeyIsRotatedOut(t *testing.T) {
	t.Parallel()
	f := newKeyFixture(t)
	f.reconcile()
	first := f.signingKey()
	f.revoked = []string{first}
	f.reconcile()
	if got := f.signingKey(); got == "" || got == first {
		t.Errorf("signing with %q after its active key %s was revoked", got, first)
	}
}
