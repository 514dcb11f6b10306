package controllers

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/store"
)

// The manager's secure metrics endpoint authenticates and authorizes its
// callers through the apiserver:
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Options configure Setup.
type Options struct {
	// KeyNamespace is where the domains' key-set Secrets live: the
	// manager's own namespace (CacheOptions must name the same one).
	KeyNamespace string
	// Revoked, when set, returns the revoked key identities of a domain
	// (see HostAuthorityReconciler.Revoked).
	Revoked func(namespace, name string) []string
}

// Setup registers the four reconcilers and the leader's status resync
// with mgr; every reconciler fills s. ctx bounds background sends and
// should be the manager's context.
func Setup(ctx context.Context, mgr ctrl.Manager, s *store.Store, o Options) error {
	if o.KeyNamespace == "" {
		return errors.New("controllers: Options.KeyNamespace names where the signing keys live")
	}
	registerMetrics()
	s.OnChange = storeChanged
	elected := mgr.Elected()
	sw := statusWriter{
		client:   mgr.GetClient(),
		recorder: mgr.GetEventRecorder("toolgate"),
		leader: func() bool {
			select {
			case <-elected:
				return true
			default:
				return false
			}
		},
	}
	haResync := make(chan event.GenericEvent, 64)
	trResync := make(chan event.GenericEvent, 64)
	psResync := make(chan event.GenericEvent, 64)
	rvResync := make(chan event.GenericEvent, 64)
	domainChanged := make(chan event.GenericEvent, 256)

	if o.Revoked == nil {
		// The signing keys the domain's Revocations name.
		o.Revoked = s.RevokedKeyIDs
	}
	ha := &HostAuthorityReconciler{Client: mgr.GetClient(), Store: s, KeyNamespace: o.KeyNamespace, Revoked: o.Revoked,
		status: sw, domainChanged: domainChanged, done: ctx.Done()}
	if err := ha.setup(mgr, haResync); err != nil {
		return err
	}
	tr := &ToolRegistryReconciler{Client: mgr.GetClient(), Store: s, status: sw}
	if err := tr.setup(mgr, trResync); err != nil {
		return err
	}
	accepted := make(chan event.GenericEvent, 64)
	ps := &PolicySnapshotReconciler{Client: mgr.GetClient(), Store: s, status: sw, accepted: accepted, done: ctx.Done()}
	if err := ps.setup(mgr, psResync, domainChanged, accepted); err != nil {
		return err
	}
	rv := &RevocationReconciler{Client: mgr.GetClient(), Store: s, status: sw, keyRevoked: haResync, done: ctx.Done()}
	if err := rv.setup(mgr, rvResync); err != nil {
		return err
	}
	return mgr.Add(&resyncOnElection{client: mgr.GetClient(), ha: haResync, tr: trResync, ps: psResync, rv: rvResync})
}

// CacheOptions restricts the manager's Secret cache to toolgate's
// key-set Secrets in keyNamespace: the manager never lists or caches other
// Secrets, and needs Secret access in no other namespace.
func CacheOptions(keyNamespace string) cache.Options {
	req, _ := labels.NewRequirement(SigningKeyLabel, selection.Exists, nil) // constant, valid key
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Secret{}: {Label: labels.NewSelector().Add(*req), Namespaces: map[string]cache.Config{keyNamespace: {}}},
	}}
}

func channelSource(ch <-chan event.GenericEvent) source.Source {
	return source.Channel(ch, &handler.EnqueueRequestForObject{})
}

// controllerOptions: every replica reconciles (to fill its own store); the
// status writer checks leadership itself.
func controllerOptions() controller.Options {
	f := false
	return controller.Options{NeedLeaderElection: &f}
}

// resyncOnElection runs only on the leader: when this replica is elected it
// re-enqueues every object, so that status reflects what the new leader
// computed even for objects a follower reconciled without writing.
type resyncOnElection struct {
	client         client.Client
	ha, tr, ps, rv chan<- event.GenericEvent
}

var _ manager.LeaderElectionRunnable = (*resyncOnElection)(nil)

func (r *resyncOnElection) NeedLeaderElection() bool { return true }

func (r *resyncOnElection) Start(ctx context.Context) error {
	send := func(ch chan<- event.GenericEvent, o client.Object) bool {
		select {
		case ch <- event.GenericEvent{Object: o}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var has v1alpha1.HostAuthorityList
	var trs v1alpha1.ToolRegistryList
	var pss v1alpha1.PolicySnapshotList
	var rvs v1alpha1.RevocationList
	for _, l := range []client.ObjectList{&has, &trs, &pss, &rvs} {
		if err := r.client.List(ctx, l); err != nil {
			return err
		}
	}
	for i := range has.Items {
		if !send(r.ha, &has.Items[i]) {
			return nil
		}
	}
	for i := range trs.Items {
		if !send(r.tr, &trs.Items[i]) {
			return nil
		}
	}
	for i := range pss.Items {
		if !send(r.ps, &pss.Items[i]) {
			return nil
		}
	}
	for i := range rvs.Items {
		if !send(r.rv, &rvs.Items[i]) {
			return nil
		}
	}
	<-ctx.Done()
	return nil
}
