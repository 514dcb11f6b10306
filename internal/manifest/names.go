package manifest

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
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

// PoliciesInGenerationOrder returns the PolicySnapshots of s ordered by
// snapshot generation, equal generations in file order, so that each
// generation can publish as the successor of the one before it. A
// generation that does not parse sorts first and then fails publication.
func (s *Set) PoliciesInGenerationOrder() []*v1alpha1.PolicySnapshot {
	out := make([]*v1alpha1.PolicySnapshot, 0, len(s.PolicySnapshots))
	for i := range s.PolicySnapshots {
		out = append(out, &s.PolicySnapshots[i])
	}
	generation := func(p *v1alpha1.PolicySnapshot) uint64 {
		g, _ := ident.ParseGeneration(string(p.Spec.SnapshotGeneration))
		return g.Uint64()
	}
	slices.SortStableFunc(out, func(a, b *v1alpha1.PolicySnapshot) int { return cmp.Compare(generation(a), generation(b)) })
	return out
}
