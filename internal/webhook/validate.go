package webhook

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/ident"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publisher"
)

// +kubebuilder:webhook:path=/validate-stk-toolgate-dev-v1alpha1-hostauthority,mutating=false,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=hostauthorities,verbs=create;update,versions=v1alpha1,name=vhostauthority.stk.toolgate.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-stk-toolgate-dev-v1alpha1-toolregistry,mutating=false,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=toolregistries,verbs=create;update,versions=v1alpha1,name=vtoolregistry.stk.toolgate.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-stk-toolgate-dev-v1alpha1-policysnapshot,mutating=false,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=policysnapshots,verbs=create;update,versions=v1alpha1,name=vpolicysnapshot.stk.toolgate.dev,admissionReviewVersions=v1

// HostAuthorityValidator admits a HostAuthority that builds a Host domain.
type HostAuthorityValidator struct{}

var _ admission.Validator[*v1alpha1.HostAuthority] = HostAuthorityValidator{}

// ValidateCreate builds the Host configuration and a scratch domain.
func (HostAuthorityValidator) ValidateCreate(_ context.Context, o *v1alpha1.HostAuthority) (admission.Warnings, error) {
	return nil, invalid("HostAuthority", o.Name, checkHostAuthority(o))
}

func checkHostAuthority(o *v1alpha1.HostAuthority) error {
	cfg, err := manifest.HostConfig(o)
	if err != nil {
		return err
	}
	_, err = host.New(cfg)
	return fault.Within("spec", err)
}

// ValidateUpdate admits no change of the spec or of the publisher.
func (HostAuthorityValidator) ValidateUpdate(_ context.Context, old, o *v1alpha1.HostAuthority) (admission.Warnings, error) {
	return nil, immutable("HostAuthority", old, o, equality.Semantic.DeepEqual(old.Spec, o.Spec))
}

// ValidateDelete admits every delete: the controllers withdraw the domain.
func (HostAuthorityValidator) ValidateDelete(context.Context, *v1alpha1.HostAuthority) (admission.Warnings, error) {
	return nil, nil
}

// ToolRegistryValidator admits a ToolRegistry the engine publishes.
type ToolRegistryValidator struct{}

var _ admission.Validator[*v1alpha1.ToolRegistry] = ToolRegistryValidator{}

// ValidateCreate publishes the registry with the engine's complete rules.
func (ToolRegistryValidator) ValidateCreate(_ context.Context, o *v1alpha1.ToolRegistry) (admission.Warnings, error) {
	d, err := manifest.RegistryDraft(o.Spec)
	if err == nil {
		_, err = registry.Publish(d)
	}
	return nil, invalid("ToolRegistry", o.Name, specFaults(err))
}

// ValidateUpdate admits no change of the spec or of the publisher.
func (ToolRegistryValidator) ValidateUpdate(_ context.Context, old, o *v1alpha1.ToolRegistry) (admission.Warnings, error) {
	return nil, immutable("ToolRegistry", old, o, equality.Semantic.DeepEqual(old.Spec, o.Spec))
}

// ValidateDelete admits every delete.
func (ToolRegistryValidator) ValidateDelete(context.Context, *v1alpha1.ToolRegistry) (admission.Warnings, error) {
	return nil, nil
}

// PolicySnapshotValidator admits a PolicySnapshot generation that the
// engine publishes in its HostAuthority's domain, as the exact successor of
// the generation before it, on behalf of an admission user that holds
// policyAdministrationAuthority there.
type PolicySnapshotValidator struct {
	// Reader reads HostAuthorities and earlier generations. It should read
	// the apiserver directly (the manager's APIReader), not a cache: a
	// generation created a moment ago, as by kubectl apply -k with several
	// generations, must be found.
	Reader client.Reader
}

var _ admission.Validator[*v1alpha1.PolicySnapshot] = PolicySnapshotValidator{}

// ValidateCreate runs the publication and successor rules.
func (v PolicySnapshotValidator) ValidateCreate(ctx context.Context, o *v1alpha1.PolicySnapshot) (admission.Warnings, error) {
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return nil, apierrors.NewInternalError(errNoRequest)
	}
	caller := host.Caller{Name: req.UserInfo.Username, Groups: slices.Clone(req.UserInfo.Groups)}
	d, err := manifest.PolicyDraft(o.Spec)
	if err != nil {
		return nil, invalid("PolicySnapshot", o.Name, specFaults(err))
	}
	refPath := field.NewPath("spec", "hostAuthorityRef", "name")
	var ha v1alpha1.HostAuthority
	if err := v.Reader.Get(ctx, types.NamespacedName{Namespace: o.Namespace, Name: string(o.Spec.HostAuthorityRef.Name)}, &ha); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fieldInvalid(o.Name, field.NotFound(refPath, field.OmitValueType{}))
		}
		return nil, apierrors.NewInternalError(errReadFailed)
	}
	cfg, err := manifest.HostConfig(&ha)
	var h *host.Host
	if err == nil {
		h, err = host.New(cfg)
	}
	if err != nil {
		return nil, fieldInvalid(o.Name, field.Invalid(refPath, field.OmitValueType{}, "the referenced HostAuthority is not valid"))
	}
	if !h.HasRole(caller, vocab.PolicyAdministrationAuthority) {
		return nil, apierrors.NewForbidden(schema.GroupResource{Group: v1alpha1.Group, Resource: "policysnapshots"}, o.Name,
			errNotAdministrator)
	}
	gen, err := ident.ParseGeneration(d.Generation)
	if err != nil {
		return nil, invalid("PolicySnapshot", o.Name, fault.Within("spec.snapshotGeneration", err))
	}
	if gen.Uint64() > 1 {
		if err := v.publishPredecessors(ctx, h, caller, o, gen.Uint64()); err != nil {
			return nil, invalid("PolicySnapshot", o.Name, err)
		}
	}
	_, err = h.PublishPolicy(caller, d)
	return nil, invalid("PolicySnapshot", o.Name, specFaults(err))
}

// publishPredecessors publishes generations 1..n−1 of o's snapshot
// identity, read from the cluster, into the scratch domain h.
func (v PolicySnapshotValidator) publishPredecessors(ctx context.Context, h *host.Host, caller host.Caller, o *v1alpha1.PolicySnapshot, n uint64) error {
	var l v1alpha1.PolicySnapshotList
	if err := v.Reader.List(ctx, &l, client.InNamespace(o.Namespace)); err != nil {
		return fault.At("spec.snapshotGeneration", fault.NotFound, "the earlier generations of this policy snapshot could not be read")
	}
	byGen := map[uint64]*v1alpha1.PolicySnapshot{}
	for i := range l.Items {
		p := &l.Items[i]
		if p.Spec.SnapshotID != o.Spec.SnapshotID || p.Spec.HostAuthorityRef != o.Spec.HostAuthorityRef {
			continue
		}
		if g, err := ident.ParseGeneration(string(p.Spec.SnapshotGeneration)); err == nil {
			byGen[g.Uint64()] = p
		}
	}
	for g := uint64(1); g < n; g++ {
		p, ok := byGen[g]
		if !ok {
			return fault.At("spec.snapshotGeneration", fault.NotFound, "every earlier generation of this policy snapshot must exist; a successor is the exact next generation")
		}
		d, err := manifest.PolicyDraft(p.Spec)
		if err == nil {
			_, err = h.PublishPolicy(caller, d)
		}
		if err != nil {
			return fault.At("spec.snapshotGeneration", fault.Ineligible, "an earlier generation of this policy snapshot does not publish in this HostAuthority")
		}
	}
	return nil
}

// ValidateUpdate admits no change of the spec or of the publisher.
func (PolicySnapshotValidator) ValidateUpdate(_ context.Context, old, o *v1alpha1.PolicySnapshot) (admission.Warnings, error) {
	return nil, immutable("PolicySnapshot", old, o, equality.Semantic.DeepEqual(old.Spec, o.Spec))
}

// ValidateDelete admits every delete.
func (PolicySnapshotValidator) ValidateDelete(context.Context, *v1alpha1.PolicySnapshot) (admission.Warnings, error) {
	return nil, nil
}

// immutable rejects an update that changes the spec or the publisher
// annotations.
func immutable(kind string, old, o client.Object, sameSpec bool) error {
	var errs field.ErrorList
	if !sameSpec {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "the spec is immutable: publish a new generation as a new object"))
	}
	for _, a := range []string{publisher.Annotation, publisher.SignatureAnnotation} {
		if old.GetAnnotations()[a] != o.GetAnnotations()[a] {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations").Key(a), "the publisher annotations are written once, by the toolgate webhook"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: v1alpha1.Group, Kind: kind}, o.GetName(), errs)
}

func fieldInvalid(name string, e *field.Error) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: v1alpha1.Group, Kind: "PolicySnapshot"}, name, field.ErrorList{e})
}

// specFaults locates every engine rejection of a draft at its spec field.
func specFaults(err error) error {
	var l fault.Errors
	for _, e := range fault.All(err) {
		if e.Path == "spec" || len(e.Path) > 5 && e.Path[:5] == "spec." {
			l.Add("", e)
			continue
		}
		l.Add("", manifest.SpecFault(e))
	}
	return l.Err()
}
