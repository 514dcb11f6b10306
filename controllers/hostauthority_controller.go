package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/publisher"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

// followerRetry is how long a follower waits for the leader to write a
// signing key before looking again.
const followerRetry = 2 * time.Second

// HostAuthorityReconciler serves one domain per accepted HostAuthority.
type HostAuthorityReconciler struct {
	Client client.Client
	Store  *store.Store
	// KeyNamespace is where the domains' key-set Secrets live: the
	// manager's own namespace.
	KeyNamespace string
	// Revoked, when set, returns the revoked key identities of the domain
	// namespace/name: they verify nothing, and a revoked active key is
	// rotated out by the leader.
	Revoked func(namespace, name string) []string
	// clock is time.Now unless a test sets it.
	clock  func() time.Time
	status statusWriter
	// domainChanged receives the HostAuthority whenever its domain is
	// created, replaced or removed, so its PolicySnapshots are reconciled
	// against the new state.
	domainChanged chan<- event.GenericEvent
	done          <-chan struct{} // closed when the manager stops
}

var _ reconcile.Reconciler = (*HostAuthorityReconciler)(nil)

// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=hostauthorities,verbs=get;list;watch
// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=hostauthorities/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile builds the domain of one HostAuthority.
func (r *HostAuthorityReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	start, result := time.Now(), resultError
	defer func() { observe("HostAuthority", start, result) }()

	var ha v1alpha1.HostAuthority
	if live, err := getLive(ctx, r.Client, req, &ha); !live {
		if err == nil {
			r.remove(req.Namespace, req.Name)
			result = resultRemoved
			err = r.removeStaleKeySets(ctx, req.Namespace, req.Name, "")
		}
		return ctrl.Result{}, err
	}
	by := publishedBy(&ha)
	// Every rule, on a scratch domain: reject before creating a key.
	a, err := publication.HostAuthority(&ha)
	cfg, grace := a.Config, serving.Grace(a.Grace)
	if err != nil {
		r.remove(ha.Namespace, ha.Name)
		result = resultRejected
		return ctrl.Result{}, r.status.write(ctx, &ha, &ha.Status, outcome{reason: v1alpha1.ReasonRejected, message: faultMessage(err), publishedBy: by})
	}
	if err := r.removeStaleKeySets(ctx, ha.Namespace, ha.Name, ha.UID); err != nil {
		return ctrl.Result{}, err
	}
	var revoked []string
	if r.Revoked != nil {
		revoked = r.Revoked(ha.Namespace, ha.Name)
	}
	keys, retire, err := r.keySet(ctx, &ha, cfg.MaxLifetime, revoked)
	if err != nil {
		return ctrl.Result{}, err
	}
	if keys == nil {
		// No valid key: the domain is not served (a rotation in progress
		// ends the old domain now, not when the new key appears).
		r.remove(ha.Namespace, ha.Name)
		result = resultWaiting
		return ctrl.Result{RequeueAfter: followerRetry}, r.status.write(ctx, &ha, &ha.Status, outcome{
			reason: v1alpha1.ReasonWaitingForDependency, message: "waiting for the domain's signing keys", publishedBy: by})
	}
	info, replaced, err := r.Store.EnsureDomain(store.DomainSpec{Namespace: ha.Namespace, Name: ha.Name, UID: string(ha.UID), Keys: keys, Revoked: revoked, Config: cfg, Grace: grace})
	if err != nil {
		r.notify(&ha)
		result = resultRejected
		return ctrl.Result{}, r.status.write(ctx, &ha, &ha.Status, outcome{reason: v1alpha1.ReasonRejected, message: faultMessage(fault.Within("spec", err)), publishedBy: by})
	}
	if replaced {
		r.notify(&ha)
	}
	result = resultAccepted
	// Looked at again when the next verify-only key retires.
	return ctrl.Result{RequeueAfter: retire}, r.status.write(ctx, &ha, &ha.Status, outcome{reason: v1alpha1.ReasonAccepted, digest: info.AuthorityDigest, publishedBy: by})
}

func (r *HostAuthorityReconciler) now() time.Time {
	if r.clock != nil {
		return r.clock()
	}
	return time.Now()
}

func (r *HostAuthorityReconciler) remove(namespace, name string) {
	if _, ok := r.Store.Domain(namespace, name); !ok {
		return
	}
	r.Store.RemoveDomain(namespace, name)
	ha := &v1alpha1.HostAuthority{}
	ha.Namespace, ha.Name = namespace, name
	r.notify(ha)
}

// notify tells the PolicySnapshot reconciler that ha's domain changed.
func (r *HostAuthorityReconciler) notify(ha *v1alpha1.HostAuthority) {
	send(r.domainChanged, r.done, ha)
}

// publishedBy returns the admission user recorded by the mutating webhook,
// or "" when the object carries none.
func publishedBy(o client.Object) string {
	p, err := publisher.Decode(o.GetAnnotations()[publisher.Annotation])
	if err != nil {
		return ""
	}
	return p.Name
}

func (r *HostAuthorityReconciler) setup(mgr ctrl.Manager, resync <-chan event.GenericEvent) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.HostAuthority{}).
		// Key-set Secrets live in the key namespace: no owner reference
		// crosses namespaces, their labels name the HostAuthority.
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(keySetOwner)).
		WatchesRawSource(channelSource(resync)).
		WithOptions(controllerOptions()).
		Named("hostauthority").
		Complete(r)
}
