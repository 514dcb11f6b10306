package controllers

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/toolgate/toolgate/api/v1alpha1"
)

// The signing-key Secret of a HostAuthority domain.
const (
	// SigningKeyLabel marks toolgate's signing-key Secrets (the manager
	// caches only Secrets with this label); its value is the HostAuthority
	// name.
	SigningKeyLabel = "stk.toolgate.dev/signing-key-of"
	// SigningKeyUIDAnnotation is the UID of the HostAuthority the key
	// belongs to: a key of an earlier object with the same name is another
	// domain's key and is replaced.
	SigningKeyUIDAnnotation = "stk.toolgate.dev/host-authority-uid"
	// SigningKeyType is the Secret type.
	SigningKeyType corev1.SecretType = "stk.toolgate.dev/ed25519-signing-key"
	// SigningKeyField holds the 32-byte Ed25519 seed.
	SigningKeyField = "ed25519.seed"
)

// SigningKeySecretName is the name of the signing-key Secret of the
// HostAuthority named name, in its namespace.
func SigningKeySecretName(name string) string { return name + "-signing-key" }

// signingKey returns the domain key of ha from its Secret. The leader
// creates a missing Secret (a fresh key from crypto/rand, returned at once)
// and deletes one that belongs to another UID or holds no valid key (so a
// new key is made: a new domain); a follower only reads, and waits (nil
// key) until the leader has written it.
func (r *HostAuthorityReconciler) signingKey(ctx context.Context, ha *v1alpha1.HostAuthority) (ed25519.PrivateKey, error) {
	var s corev1.Secret
	name := types.NamespacedName{Namespace: ha.Namespace, Name: SigningKeySecretName(ha.Name)}
	err := r.Client.Get(ctx, name, &s)
	switch {
	case apierrors.IsNotFound(err):
		if !r.status.leader() {
			return nil, nil
		}
		return r.createSigningKey(ctx, ha)
	case err != nil:
		return nil, err
	}
	seed := s.Data[SigningKeyField]
	if s.Annotations[SigningKeyUIDAnnotation] == string(ha.UID) && s.Type == SigningKeyType && len(seed) == ed25519.SeedSize {
		return ed25519.NewKeyFromSeed(seed), nil
	}
	if !r.status.leader() {
		return nil, nil
	}
	// Another domain's key, or not a key: replace it (a rotation).
	err = r.Client.Delete(ctx, &s, client.Preconditions{UID: &s.UID})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	return nil, nil
}

// createSigningKey creates the Secret with a fresh key and returns the key;
// nil when another writer created the Secret first (the next reconcile
// reads it).
func (r *HostAuthorityReconciler) createSigningKey(ctx context.Context, ha *v1alpha1.HostAuthority) (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   ha.Namespace,
			Name:        SigningKeySecretName(ha.Name),
			Labels:      map[string]string{SigningKeyLabel: ha.Name},
			Annotations: map[string]string{SigningKeyUIDAnnotation: string(ha.UID)},
		},
		Type:      SigningKeyType,
		Immutable: ptrTrue(),
		Data:      map[string][]byte{SigningKeyField: priv.Seed()},
	}
	if err := controllerutil.SetControllerReference(ha, s, r.Client.Scheme()); err != nil {
		return nil, err
	}
	switch err = r.Client.Create(ctx, s); {
	case apierrors.IsAlreadyExists(err):
		return nil, nil // the next reconcile reads it
	case err != nil:
		return nil, err
	}
	return priv, nil
}

func ptrTrue() *bool { t := true; return &t }
