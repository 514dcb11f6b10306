package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/serving"
)

// +kubebuilder:webhook:path=/mutate-stk-toolgate-dev-v1alpha1-revocation,mutating=true,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=revocations,verbs=create;update,versions=v1alpha1,name=mrevocation.stk.toolgate.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-stk-toolgate-dev-v1alpha1-revocation,mutating=false,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=revocations,verbs=create;update;delete,versions=v1alpha1,name=vrevocation.stk.toolgate.dev,admissionReviewVersions=v1

// RevocationValidator admits a Revocation that names exactly one
// well-formed target, never a change of one, and never its deletion:
// revocations are append-only (docs/decisions.md).
type RevocationValidator struct{}

var _ admission.Validator[*v1alpha1.Revocation] = RevocationValidator{}

// ValidateCreate checks the target, reporting every violation.
func (RevocationValidator) ValidateCreate(_ context.Context, o *v1alpha1.Revocation) (admission.Warnings, error) {
	_, err := serving.RevocationOf(o.Spec)
	return nil, invalid("Revocation", o.Name, err)
}

// ValidateUpdate admits no change of the spec or of the publisher.
func (RevocationValidator) ValidateUpdate(_ context.Context, old, o *v1alpha1.Revocation) (admission.Warnings, error) {
	return nil, immutable("Revocation", old, o, equality.Semantic.DeepEqual(old.Spec, o.Spec))
}

// ValidateDelete refuses every delete: a withdrawn revocation would let
// what it named be used again. Undo a revocation by publishing anew (a new
// generation, tool version or key).
func (RevocationValidator) ValidateDelete(_ context.Context, o *v1alpha1.Revocation) (admission.Warnings, error) {
	return nil, apierrors.NewForbidden(schema.GroupResource{Group: v1alpha1.Group, Resource: "revocations"}, o.Name,
		errAppendOnly)
}
