package controllers

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

// RevocationReconciler puts every Revocation in force in its domain, on
// every replica. Revocations are append-only: a replica never withdraws one
// it has put in force, even when the object is deleted (the webhook refuses
// that) — only a replica started after the deletion would not know it.
type RevocationReconciler struct {
	Client client.Client
	Store  *store.Store
	status statusWriter
	// keyRevoked receives the HostAuthority of a revoked signing key, so
	// its key set drops the key (and a revoked active key is rotated out).
	keyRevoked chan<- event.GenericEvent
	done       <-chan struct{}
}

var _ reconcile.Reconciler = (*RevocationReconciler)(nil)

// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=revocations,verbs=get;list;watch
// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=revocations/status,verbs=get;update;patch

// Reconcile puts one Revocation in force.
func (r *RevocationReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start, result := time.Now(), resultError
	defer func() { observe("Revocation", start, result) }()

	var o v1alpha1.Revocation
	if err := r.Client.Get(ctx, req.NamespacedName, &o); err != nil {
		if apierrors.IsNotFound(err) {
			result = resultRemoved // in force still: nothing withdraws a revocation
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	by := publishedBy(&o)
	rev, err := serving.RevocationOf(o.Spec)
	if err != nil {
		result = resultRejected
		return ctrl.Result{}, r.status.write(ctx, &o, &o.Status, outcome{reason: v1alpha1.ReasonRejected, message: faultMessage(err), publishedBy: by})
	}
	r.Store.PutRevocation(o.Namespace, string(o.Spec.HostAuthorityRef.Name), rev)
	if rev.Kind == serving.RevokeSigningKey {
		ha := &v1alpha1.HostAuthority{}
		ha.Namespace, ha.Name = o.Namespace, string(o.Spec.HostAuthorityRef.Name)
		send(r.keyRevoked, r.done, ha)
	}
	result = resultAccepted
	return ctrl.Result{}, r.status.write(ctx, &o, &o.Status, outcome{reason: v1alpha1.ReasonAccepted, publishedBy: by})
}

func (r *RevocationReconciler) setup(mgr ctrl.Manager, resync <-chan event.GenericEvent) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Revocation{}).
		WatchesRawSource(channelSource(resync)).
		WithOptions(controllerOptions()).
		Named("revocation").
		Complete(r)
}
