package controllers

import (
	"cmp"
	"context"
	"crypto/rand"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

// The key-set Secret of a HostAuthority domain (docs/decisions.md, "Key
// management"). It lives in the manager's own namespace
// (Options.KeyNamespace), never in the tenant's: whoever reads Secrets in a
// tenant namespace reads no key.
const (
	// SigningKeyLabel marks toolgate's key-set Secrets (the manager caches
	// only Secrets with this label, in its key namespace); its value is the
	// HostAuthority name.
	SigningKeyLabel = "stk.toolgate.dev/signing-key-of"
	// SigningKeyNamespaceLabel is the HostAuthority's namespace.
	SigningKeyNamespaceLabel = "stk.toolgate.dev/host-authority-namespace"
	// SigningKeyUIDAnnotation is the UID of the HostAuthority the key set
	// belongs to (also in the Secret's name).
	SigningKeyUIDAnnotation = "stk.toolgate.dev/host-authority-uid"
	// SigningKeyType is the Secret type.
	SigningKeyType corev1.SecretType = "stk.toolgate.dev/ed25519-key-set"
	// SigningKeyField holds the key set (serving.KeyState's persisted form).
	SigningKeyField = "keyset.json"
	// RotateAnnotation on a HostAuthority asks for a key rotation: the leader
	// rotates once for each new value (any text: a date, a counter).
	RotateAnnotation = "stk.toolgate.dev/rotate-signing-key"
	// DefaultKeyNamespace is the key namespace when neither a flag nor
	// POD_NAMESPACE names one.
	DefaultKeyNamespace = "toolgate-system"
)

// SigningKeySecretName is the name of the key-set Secret of the
// HostAuthority with UID uid, in the key namespace: a recreated
// HostAuthority (a new UID) never finds the old domain's keys.
func SigningKeySecretName(uid types.UID) string { return "hostauthority-" + string(uid) }

// The manager reads and writes Secrets only in its key namespace (a Role
// there, not a ClusterRole); kustomize puts "system" into the manager's
// namespace:
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=get;list;watch;create;update;delete

// keySet returns the key set of ha from its Secret and when to look again
// (the next key's retire time; 0 for never). The leader creates a missing
// Secret (a fresh key set), replaces one that is not a valid key set of
// this UID (fail closed: a new set, so artifacts of the damaged one stop
// verifying), prunes retired keys, and rotates once per new value of
// RotateAnnotation and whenever the active key is revoked. A follower only
// reads, and waits (nil) until the leader has written it.
func (r *HostAuthorityReconciler) keySet(ctx context.Context, ha *v1alpha1.HostAuthority, lifetime uint64, revoked []string) (*serving.KeyState, time.Duration, error) {
	var s corev1.Secret
	key := types.NamespacedName{Namespace: r.KeyNamespace, Name: SigningKeySecretName(ha.UID)}
	err := r.Client.Get(ctx, key, &s)
	switch {
	case apierrors.IsNotFound(err):
		if !r.status.leader() {
			return nil, 0, nil
		}
		return r.createKeySet(ctx, ha)
	case err != nil:
		return nil, 0, err
	}
	ks, perr := serving.ParseKeyState(s.Data[SigningKeyField])
	if perr != nil || s.Annotations[SigningKeyUIDAnnotation] != string(ha.UID) || s.Type != SigningKeyType {
		if !r.status.leader() {
			return nil, 0, nil
		}
		// Not a key set of this domain: replace it.
		err = r.Client.Delete(ctx, &s, client.Preconditions{UID: &s.UID})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, 0, err
		}
		return nil, 0, nil
	}
	if r.status.leader() {
		next, err := r.maintain(ks, ha, lifetime, revoked)
		if err != nil {
			return nil, 0, err
		}
		if next != ks {
			s.Data = map[string][]byte{SigningKeyField: next.Encode()}
			if err := r.Client.Update(ctx, &s); err != nil {
				// A conflict: another writer changed it; read it again.
				return nil, 0, err
			}
			ks = next
		}
	}
	return ks, r.untilRetire(ks), nil
}

// maintain is the leader's step on a key set: prune retired keys, rotate
// on a new RotateAnnotation value or a revoked active key. It returns ks
// itself when nothing changed.
func (r *HostAuthorityReconciler) maintain(ks *serving.KeyState, ha *v1alpha1.HostAuthority, lifetime uint64, revoked []string) (*serving.KeyState, error) {
	now := r.now()
	next, _ := ks.Prune(now)
	request := ha.Annotations[RotateAnnotation]
	rotate := request != "" && request != next.Rotation()
	if rotate || next.ActiveRevoked(revoked) {
		return next.Rotate(rand.Reader, now, store.KeyRetireAfter(lifetime), cmp.Or(request, next.Rotation()))
	}
	return next, nil
}

// untilRetire is how long until the next verify-only key of ks retires
// (then the leader removes it and every replica rebuilds its set), at
// least a second; 0 when none is left.
func (r *HostAuthorityReconciler) untilRetire(ks *serving.KeyState) time.Duration {
	at, ok := ks.NextRetire()
	if !ok {
		return 0
	}
	return max(at.Sub(r.now()), time.Second)
}

// createKeySet creates the Secret with a fresh key set and returns it; nil
// when another writer created the Secret first (the next reconcile reads
// it). A RotateAnnotation already present counts as acted on.
func (r *HostAuthorityReconciler) createKeySet(ctx context.Context, ha *v1alpha1.HostAuthority) (*serving.KeyState, time.Duration, error) {
	ks, err := serving.NewKeyState(rand.Reader, string(ha.UID))
	if err != nil {
		return nil, 0, err
	}
	// A brand-new set needs no rotation: a request already present counts
	// as acted on.
	ks = ks.WithRotation(ha.Annotations[RotateAnnotation])
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   r.KeyNamespace,
			Name:        SigningKeySecretName(ha.UID),
			Labels:      map[string]string{SigningKeyLabel: ha.Name, SigningKeyNamespaceLabel: ha.Namespace},
			Annotations: map[string]string{SigningKeyUIDAnnotation: string(ha.UID)},
		},
		Type: SigningKeyType,
		Data: map[string][]byte{SigningKeyField: ks.Encode()},
	}
	switch err = r.Client.Create(ctx, s); {
	case apierrors.IsAlreadyExists(err):
		return nil, 0, nil // the next reconcile reads it
	case err != nil:
		return nil, 0, err
	}
	return ks, 0, nil
}

// removeStaleKeySets deletes (leader only) the key-set Secrets of the
// HostAuthority namespace/name other than the one of UID keep ("" deletes
// all): the keys of a deleted or recreated object verify nothing and
// should not be kept.
func (r *HostAuthorityReconciler) removeStaleKeySets(ctx context.Context, namespace, name string, keep types.UID) error {
	if !r.status.leader() {
		return nil
	}
	var list corev1.SecretList
	if err := r.Client.List(ctx, &list, client.InNamespace(r.KeyNamespace),
		client.MatchingLabels{SigningKeyLabel: name, SigningKeyNamespaceLabel: namespace}); err != nil {
		return err
	}
	for i := range list.Items {
		s := &list.Items[i]
		if keep != "" && s.Name == SigningKeySecretName(keep) {
			continue
		}
		if err := r.Client.Delete(ctx, s, client.Preconditions{UID: &s.UID}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// keySetOwner maps a key-set Secret to its HostAuthority, from its labels,
// so that every replica rebuilds the domain's keys when the leader writes
// them.
func keySetOwner(_ context.Context, o client.Object) []reconcile.Request {
	l := o.GetLabels()
	ns, name := l[SigningKeyNamespaceLabel], l[SigningKeyLabel]
	if ns == "" || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}
