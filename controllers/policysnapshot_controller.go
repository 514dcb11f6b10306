package controllers

import (
	"context"
	"errors"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/publisher"
	"github.com/toolgate/toolgate/internal/store"
)

// PolicySnapshotReconciler serves every accepted PolicySnapshot generation
// in the domain of its HostAuthority.
type PolicySnapshotReconciler struct {
	Client client.Client
	Store  *store.Store
	status statusWriter
	// accepted receives every generation this replica serves, to wake its
	// successor: a successor reconciled first waits, and on a follower no
	// status write of the predecessor would wake it (a restarted follower
	// reconciles generations in any order). Nil sends nothing.
	accepted chan<- event.GenericEvent
	done     <-chan struct{}
}

var _ reconcile.Reconciler = (*PolicySnapshotReconciler)(nil)

// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=policysnapshots,verbs=get;list;watch
// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=policysnapshots/status,verbs=get;update;patch

// Reconcile publishes one PolicySnapshot generation with the engine's
// publication and successor rules, once its HostAuthority and previous
// generation are served.
func (r *PolicySnapshotReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start, result := time.Now(), resultError
	defer func() { observe("PolicySnapshot", start, result) }()

	var ps v1alpha1.PolicySnapshot
	if live, err := getLive(ctx, r.Client, req, &ps); !live {
		if err == nil {
			r.Store.RemovePolicy(req.Namespace, req.Name)
			result = resultRemoved
		}
		return ctrl.Result{}, err
	}
	reject := func(err error, by string) (ctrl.Result, error) {
		r.Store.RemovePolicy(ps.Namespace, ps.Name)
		result = resultRejected
		return ctrl.Result{}, r.status.write(ctx, &ps, &ps.Status, outcome{reason: v1alpha1.ReasonRejected, message: faultMessage(err), publishedBy: by})
	}
	wait := func(msg string) (ctrl.Result, error) {
		r.Store.RemovePolicy(ps.Namespace, ps.Name)
		result = resultWaiting
		return ctrl.Result{}, r.status.write(ctx, &ps, &ps.Status, outcome{reason: v1alpha1.ReasonWaitingForDependency, message: msg})
	}

	// The rules that need no domain reject at once, with every violation;
	// the store then publishes through the same path (publication.Policy).
	if _, err := publication.Draft(&ps); err != nil {
		return reject(err, "")
	}
	authority := string(ps.Spec.HostAuthorityRef.Name)
	dom, ok := r.Store.Domain(ps.Namespace, authority)
	if !ok {
		return wait("spec.hostAuthorityRef.name: the HostAuthority is not ready")
	}
	p, err := publisher.Verify(dom.PublicKey, "PolicySnapshot", ps.Namespace, ps.Name, dom.UID, ps.Spec, ps.Annotations)
	if err != nil {
		return reject(err, "")
	}
	digest, err := r.Store.PutPolicy(dom.UID, p.Caller(), &ps)
	switch {
	case errors.Is(err, store.ErrNoDomain), errors.Is(err, store.ErrDomainChanged):
		return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil
	case errors.Is(err, store.ErrNoPredecessor):
		return wait("spec.snapshotGeneration: waiting for the previous generation of this policy snapshot to be ready")
	case err != nil:
		return reject(err, p.Name)
	}
	result = resultAccepted
	r.wakeSuccessor(&ps)
	return ctrl.Result{}, r.status.write(ctx, &ps, &ps.Status, outcome{reason: v1alpha1.ReasonAccepted, digest: digest, publishedBy: p.Name})
}

// wakeSuccessor sends ps on accepted without blocking the reconcile.
func (r *PolicySnapshotReconciler) wakeSuccessor(ps *v1alpha1.PolicySnapshot) {
	send(r.accepted, r.done, ps)
}

func (r *PolicySnapshotReconciler) setup(mgr ctrl.Manager, resync, domainChanged, accepted <-chan event.GenericEvent) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.PolicySnapshot{}).
		// Generation n+1 waits for generation n: reconcile it when n changes
		// and when this replica accepts n.
		Watches(&v1alpha1.PolicySnapshot{}, handler.EnqueueRequestsFromMapFunc(successor)).
		WatchesRawSource(source.Channel(accepted, handler.EnqueueRequestsFromMapFunc(successor))).
		WatchesRawSource(channelSource(resync)).
		WatchesRawSource(source.Channel(domainChanged, handler.EnqueueRequestsFromMapFunc(r.inDomain))).
		WithOptions(controllerOptions()).
		Named("policysnapshot").
		Complete(r)
}

// successor maps a PolicySnapshot to the object of its next generation,
// which is named <snapshotID>-<generation+1> (the apiserver enforces the
// name), whether or not it exists: one request, no list.
func successor(_ context.Context, o client.Object) []reconcile.Request {
	ps, ok := o.(*v1alpha1.PolicySnapshot)
	if !ok {
		return nil
	}
	g, err := ident.ParseGeneration(string(ps.Spec.SnapshotGeneration))
	if err != nil || g.Uint64() == math.MaxUint64 {
		return nil
	}
	name := string(ps.Spec.SnapshotID) + "-" + strconv.FormatUint(g.Uint64()+1, 10)
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ps.Namespace, Name: name}}}
}

// inDomain maps a HostAuthority to every PolicySnapshot that references it.
func (r *PolicySnapshotReconciler) inDomain(ctx context.Context, o client.Object) []reconcile.Request {
	return r.list(ctx, o.GetNamespace(), func(c *v1alpha1.PolicySnapshot) bool {
		return string(c.Spec.HostAuthorityRef.Name) == o.GetName()
	})
}

func (r *PolicySnapshotReconciler) list(ctx context.Context, namespace string, keep func(*v1alpha1.PolicySnapshot) bool) []reconcile.Request {
	var l v1alpha1.PolicySnapshotList
	if err := r.Client.List(ctx, &l, client.InNamespace(namespace)); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range l.Items {
		if keep(&l.Items[i]) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&l.Items[i])})
		}
	}
	return out
}
