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
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/publisher"
)

// +kubebuilder:webhook:path=/validate-stk-toolgate-dev-v1alpha1-hostauthority,mutating=false,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=hostauthorities,verbs=create;update,versions=v1alpha1,name=vhostauthority.stk.toolgate.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-stk-toolgate-dev-v1alpha1-toolregistry,mutating=false,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=toolregistries,verbs=create;update,versions=v1alpha1,name=vtoolregistry.stk.toolgate.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-stk-toolgate-dev-v1alpha1-policysnapshot,mutating=false,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=policysnapshots,verbs=create;update,versions=v1alpha1,name=vpolicysnapshot.stk.toolgate.dev,admissionReviewVersions=v1

// HostAuthorityValidator admits a HostAuthority that builds a Host domain.
type HostAuthorityValidator struct {
	// Offline checks an update without an admission user (toolgate
	// validate --against): a changed rollout is checked for its rules
	// only, since who applies it is the webhook's to check. The webhook
	// itself never sets it, so a missing admission request refuses there.
	Offline bool
}

var _ admission.Validator[*v1alpha1.HostAuthority] = HostAuthorityValidator{}

// ValidateCreate applies publication.HostAuthority.
func (HostAuthorityValidator) ValidateCreate(_ context.Context, o *v1alpha1.HostAuthority) (admission.Warnings, error) {
	_, err := publication.HostAuthority(o)
	return nil, invalid("HostAuthority", o.Name, err)
}

// ValidateUpdate admits no change of the spec or of the publisher, and a
// change of the rollout only by a user that holds
// policyAdministrationAuthority in the domain
// (publication.HostAuthorityUpdate).
func (v HostAuthorityValidator) ValidateUpdate(ctx context.Context, old, o *v1alpha1.HostAuthority) (admission.Warnings, error) {
	if err := immutable("HostAuthority", old, o, equality.Semantic.DeepEqual(old.Spec, o.Spec)); err != nil {
		return nil, err
	}
	if equality.Semantic.DeepEqual(old.Rollout, o.Rollout) {
		return nil, nil // the spec and the rollout as admitted before
	}
	if v.Offline {
		_, err := publication.HostAuthority(o)
		return nil, invalid("HostAuthority", o.Name, err)
	}
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return nil, apierrors.NewInternalError(errNoRequest)
	}
	err = publication.HostAuthorityUpdate(old, o, host.Caller{Name: req.UserInfo.Username, Groups: slices.Clone(req.UserInfo.Groups)})
	if publication.NotAdministrator(err) {
		return nil, apierrors.NewForbidden(schema.GroupResource{Group: v1alpha1.Group, Resource: "hostauthorities"}, o.Name,
			errNotAdministratorHere)
	}
	return nil, invalid("HostAuthority", o.Name, err)
}

// ValidateDelete admits every delete: the controllers withdraw the domain.
func (HostAuthorityValidator) ValidateDelete(context.Context, *v1alpha1.HostAuthority) (admission.Warnings, error) {
	return nil, nil
}

// ToolRegistryValidator admits a ToolRegistry the engine publishes.
type ToolRegistryValidator struct{}

var _ admission.Validator[*v1alpha1.ToolRegistry] = ToolRegistryValidator{}

// ValidateCreate applies publication.ToolRegistry: an unconfirmed import
// draft is refused, and the registry publishes with the engine's complete
// rules.
func (ToolRegistryValidator) ValidateCreate(_ context.Context, o *v1alpha1.ToolRegistry) (admission.Warnings, error) {
	_, _, err := publication.ToolRegistry(o)
	return nil, invalid("ToolRegistry", o.Name, err)
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
//
// It reads, then makes one pure call: the HostAuthority and the namespace's
// PolicySnapshots are read here, and publication.Admit decides — the same
// publication path as the CLI, the manifest loader and the controllers'
// store.
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
	a := publication.Admission{
		Candidate: o,
		Publisher: host.Caller{Name: req.UserInfo.Username, Groups: slices.Clone(req.UserInfo.Groups)},
	}
	var ha v1alpha1.HostAuthority
	switch err := v.Reader.Get(ctx, types.NamespacedName{Namespace: o.Namespace, Name: string(o.Spec.HostAuthorityRef.Name)}, &ha); {
	case err == nil:
		a.Authority = &ha
	case !apierrors.IsNotFound(err):
		return nil, apierrors.NewInternalError(errReadFailed)
	}
	// The earlier generations are read only for a successor, and only when
	// the rest can be decided: generation 1 needs no list.
	if _, ok := publication.Previous(o); ok && a.Authority != nil {
		var l v1alpha1.PolicySnapshotList
		if err := v.Reader.List(ctx, &l, client.InNamespace(o.Namespace)); err != nil {
			a.EarlierUnreadable = true
		}
		a.Earlier = l.Items
	}
	// Argument predicates are checked against the Schemas of the
	// ToolRegistries their policy names; unreadable, none is held and
	// the opt-in rejects (fail closed). The same list is the scope of the
	// authoring check below.
	var registries *v1alpha1.ToolRegistryList
	if a.Authority != nil {
		var l v1alpha1.ToolRegistryList
		if err := v.Reader.List(ctx, &l, client.InNamespace(o.Namespace)); err == nil {
			registries = &l
			if publication.NeedsRegistries(o) {
				a.Registries = l.Items
			}
		}
	}
	_, err = publication.Admit(a)
	if publication.NotAdministrator(err) {
		// No warning either: a caller outside the domain learns nothing
		// of the namespace's registries.
		return nil, apierrors.NewForbidden(schema.GroupResource{Group: v1alpha1.Group, Resource: "policysnapshots"}, o.Name,
			errNotAdministrator)
	}
	return undefinedWarnings(o, registries), invalid("PolicySnapshot", o.Name, err)
}

// undefinedWarnings is the authoring check (publication.Undefined) as
// admission warnings: each rule reference to a tool, version, definition
// or Registry Snapshot that no ToolRegistry of the namespace defines, with
// its path and never the name itself. They warn and never reject, because
// a GitOps sync may apply the ToolRegistries after the PolicySnapshots that
// name their tools; validate -f, which sees the whole tree, rejects. An
// unreadable list (nil) is one warning that the check did not run.
func undefinedWarnings(o *v1alpha1.PolicySnapshot, registries *v1alpha1.ToolRegistryList) admission.Warnings {
	if registries == nil {
		return admission.Warnings{warningUnchecked}
	}
	var out admission.Warnings
	for _, e := range fault.All(publication.Undefined(o, publication.InScope(o.Namespace, registries.Items))) {
		out = append(out, e.Path+": "+e.Code.String()+": "+e.Rule+warningLater)
	}
	return out
}

const (
	warningLater     = " (apply the ToolRegistry defining it, or fix the rule)"
	warningUnchecked = "the ToolRegistries of this namespace could not be read: the rules' tool references were not checked"
)

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
