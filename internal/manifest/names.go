package manifest

import (
	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// The CRDs enforce these object-name rules with CEL on the apiserver; the
// offline checks apply them too, so a manifest that `toolgate validate`
// accepts is not then refused by `kubectl apply`. Because of them two
// objects cannot claim one snapshot generation or one Host identity.

// CheckHostAuthorityName rejects a HostAuthority whose metadata.name is not
// its spec.authorityID.
func CheckHostAuthorityName(o *v1alpha1.HostAuthority) error {
	if o.Name != string(o.Spec.AuthorityID) {
		return fault.At("metadata.name", fault.Mismatch, "a HostAuthority is named exactly its spec.authorityID")
	}
	return nil
}

// CheckPolicyName rejects a PolicySnapshot whose metadata.name is not
// <spec.snapshotID>-<spec.snapshotGeneration>.
func CheckPolicyName(o *v1alpha1.PolicySnapshot) error {
	if o.Name != string(o.Spec.SnapshotID)+"-"+string(o.Spec.SnapshotGeneration) {
		return fault.At("metadata.name", fault.Mismatch, "a PolicySnapshot is named <spec.snapshotID>-<spec.snapshotGeneration>")
	}
	return nil
}

// CheckRegistryName rejects a ToolRegistry whose metadata.name is not
// <spec.snapshotID>-<spec.snapshotGeneration>.
func CheckRegistryName(o *v1alpha1.ToolRegistry) error {
	if o.Name != string(o.Spec.SnapshotID)+"-"+string(o.Spec.SnapshotGeneration) {
		return fault.At("metadata.name", fault.Mismatch, "a ToolRegistry is named <spec.snapshotID>-<spec.snapshotGeneration>")
	}
	return nil
}
