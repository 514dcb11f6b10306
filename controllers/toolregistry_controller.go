package controllers

import (
	"context"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/store"
)

// ToolRegistryReconciler serves every accepted ToolRegistry in every domain
// of its namespace.
type ToolRegistryReconciler struct {
	Client client.Client
	Store  *store.Store
	status statusWriter
}

var _ reconcile.Reconciler = (*ToolRegistryReconciler)(nil)

// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=toolregistries,verbs=get;list;watch
// +kubebuilder:rbac:groups=stk.toolgate.dev,resources=toolregistries/status,verbs=get;update;patch

// Reconcile publishes one ToolRegistry with the engine's complete rules.
func (r *ToolRegistryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start, result := time.Now(), resultError
	defer func() { observe("ToolRegistry", start, result) }()

	var tr v1alpha1.ToolRegistry
	if live, err := getLive(ctx, r.Client, req, &tr); !live {
		if err == nil {
			r.Store.RemoveRegistry(req.Namespace, req.Name)
			result = resultRemoved
		}
		return ctrl.Result{}, err
	}
	by := publishedBy(&tr)
	d, _, err := publication.ToolRegistry(&tr)
	var digest string
	if err == nil {
		digest, err = r.Store.PutRegistry(tr.Namespace, tr.Name, d, tr.CreationTimestamp.Time)
	}
	if err != nil {
		if digest == "" {
			r.Store.RemoveRegistry(tr.Namespace, tr.Name)
		}
		result = resultRejected
		return ctrl.Result{}, r.status.write(ctx, &tr, &tr.Status, outcome{reason: v1alpha1.ReasonRejected, message: faultMessage(manifest.SpecFault(err)), publishedBy: by})
	}
	result = resultAccepted
	return ctrl.Result{}, r.status.write(ctx, &tr, &tr.Status, outcome{reason: v1alpha1.ReasonAccepted, digest: digest, publishedBy: by})
}

func (r *ToolRegistryReconciler) setup(mgr ctrl.Manager, resync <-chan event.GenericEvent) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.ToolRegistry{}).
		WatchesRawSource(channelSource(resync)).
		WithOptions(controllerOptions()).
		Named("toolregistry").
		Complete(r)
}
