package webhook

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/store"
)

// Setup registers the mutating and validating webhooks of the four kinds
// with mgr's webhook server. s is the replica's store (for the domain keys).
func Setup(mgr ctrl.Manager, s *store.Store) error {
	def := PublisherDefaulter{Store: s}
	if err := ctrl.NewWebhookManagedBy(mgr, &v1alpha1.HostAuthority{}).
		WithDefaulter(defaulter[*v1alpha1.HostAuthority]{def}).WithValidator(HostAuthorityValidator{}).Complete(); err != nil {
		return err
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &v1alpha1.ToolRegistry{}).
		WithDefaulter(defaulter[*v1alpha1.ToolRegistry]{def}).WithValidator(ToolRegistryValidator{}).Complete(); err != nil {
		return err
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &v1alpha1.PolicySnapshot{}).
		WithDefaulter(defaulter[*v1alpha1.PolicySnapshot]{def}).WithValidator(PolicySnapshotValidator{Reader: mgr.GetAPIReader()}).Complete(); err != nil {
		return err
	}
	return ctrl.NewWebhookManagedBy(mgr, &v1alpha1.Revocation{}).
		WithDefaulter(defaulter[*v1alpha1.Revocation]{def}).WithValidator(RevocationValidator{}).Complete()
}
