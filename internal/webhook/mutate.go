package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/publisher"
	"github.com/toolgate/toolgate/internal/store"
)

// +kubebuilder:webhook:path=/mutate-stk-toolgate-dev-v1alpha1-hostauthority,mutating=true,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=hostauthorities,verbs=create;update,versions=v1alpha1,name=mhostauthority.stk.toolgate.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-stk-toolgate-dev-v1alpha1-toolregistry,mutating=true,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=toolregistries,verbs=create;update,versions=v1alpha1,name=mtoolregistry.stk.toolgate.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/mutate-stk-toolgate-dev-v1alpha1-policysnapshot,mutating=true,failurePolicy=fail,sideEffects=None,groups=stk.toolgate.dev,resources=policysnapshots,verbs=create;update,versions=v1alpha1,name=mpolicysnapshot.stk.toolgate.dev,admissionReviewVersions=v1

var (
	errNoRequest            = errors.New("toolgate: no admission request in the context")
	errReadFailed           = errors.New("toolgate: the referenced objects could not be read")
	errNotAdministrator     = errors.New("the requesting user does not hold policyAdministrationAuthority in the referenced HostAuthority")
	errNotAdministratorHere = errors.New("the requesting user does not hold policyAdministrationAuthority in this HostAuthority, so may not change its rollout")
	errDomainNotReady       = errors.New("the referenced HostAuthority is not ready: wait until its Ready condition is True")
	errNoName               = errors.New("toolgate objects are created with metadata.name (generateName cannot satisfy the name rule)")
	errAppendOnly           = errors.New("revocations are append-only: publish a new generation, tool version or key instead of deleting one")
)

// PublisherDefaulter records the admission user in the publisher
// annotations on create, signing them for a PolicySnapshot with the domain
// key from the store; on update it keeps the annotations the object had.
type PublisherDefaulter struct {
	Store *store.Store
	// DomainWait bounds how long a PolicySnapshot's admission waits for its
	// HostAuthority's domain to become ready in this replica's store (a
	// HostAuthority and its PolicySnapshots applied together, as by
	// kubectl apply -k); 0 means DefaultDomainWait.
	DomainWait time.Duration
}

// DefaultDomainWait is the default PublisherDefaulter.DomainWait: well
// inside the apiserver's default webhook timeout of 10 s.
const DefaultDomainWait = 5 * time.Second

// sign signs the publisher statement of ps in its domain, waiting up to
// DomainWait for the domain to be served.
func (d PublisherDefaulter) sign(ctx context.Context, ps *v1alpha1.PolicySnapshot, digest, v string) ([]byte, bool) {
	wait := cmp.Or(d.DomainWait, DefaultDomainWait)
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		sig, _, ok := d.Store.AttestPublisher(ps.Namespace, string(ps.Spec.HostAuthorityRef.Name), "PolicySnapshot", ps.Name, digest, v)
		if ok {
			return sig, true
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// defaulter adapts a PublisherDefaulter to one kind.
type defaulter[T client.Object] struct{ d PublisherDefaulter }

var _ admission.Defaulter[*v1alpha1.PolicySnapshot] = defaulter[*v1alpha1.PolicySnapshot]{}

func (t defaulter[T]) Default(ctx context.Context, obj T) error { return t.d.Record(ctx, obj) }

// Record writes the publisher annotations of obj, the object of the
// admission request in ctx.
func (d PublisherDefaulter) Record(ctx context.Context, obj client.Object) error {
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return apierrors.NewInternalError(errNoRequest)
	}
	o := obj
	ann := o.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	if req.Operation == admissionv1.Update {
		var old struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(req.OldObject.Raw, &old); err != nil {
			return apierrors.NewBadRequest("the previous object could not be decoded")
		}
		for _, a := range []string{publisher.Annotation, publisher.SignatureAnnotation} {
			if v, ok := old.Metadata.Annotations[a]; ok {
				ann[a] = v
			} else {
				delete(ann, a)
			}
		}
		o.SetAnnotations(ann)
		return nil
	}
	if o.GetName() == "" {
		return apierrors.NewBadRequest(errNoName.Error())
	}
	v := publisher.Publisher{Name: req.UserInfo.Username, Groups: req.UserInfo.Groups}.Encode()
	ann[publisher.Annotation] = v
	delete(ann, publisher.SignatureAnnotation)
	if ps, ok := obj.(*v1alpha1.PolicySnapshot); ok {
		digest, err := publisher.SpecDigest(ps.Spec)
		if err != nil {
			return apierrors.NewBadRequest("the spec could not be encoded")
		}
		sig, ok := d.sign(ctx, ps, digest, v)
		if !ok {
			return apierrors.NewForbidden(v1alpha1.SchemeGroupVersion.WithResource("policysnapshots").GroupResource(), ps.Name, errDomainNotReady)
		}
		ann[publisher.SignatureAnnotation] = publisher.EncodeSignature(sig)
	}
	o.SetAnnotations(ann)
	return nil
}
