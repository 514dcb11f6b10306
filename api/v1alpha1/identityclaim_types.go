package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IdentityClaim records that one identity of a consumed Authorization — its
// Authorization, replay or Consumption identity — is held in a domain by
// the Consumption of one Consumption Binding (docs/decisions.md, "The
// durable write belongs to Consumption"). It is written only by the
// authorization service, when it consumes: the three IdentityClaims of an
// Authorization's identities are created before its Consumption, so in a
// domain an identity permits at most one Consumption, whichever artifact
// names it. It is deleted with the Consumptions, after spec.expiresAt (the
// hold: an hour past the Consumption at least) plus the retention.
//
// Its name is <spec.domain>.<spec.identity>.<the identity's value>: each
// part is a DNS-1123 label, so the apiserver's name uniqueness makes a
// second holder of one identity in one domain impossible.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=idclaim,categories=toolgate
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.domain`
// +kubebuilder:printcolumn:name="Identity",type=string,JSONPath=`.spec.identity`
// +kubebuilder:printcolumn:name="Authorization",type=string,JSONPath=`.spec.authorizationID`
// +kubebuilder:printcolumn:name="Expires",type=string,JSONPath=`.spec.expiresAt`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == self.spec.domain + '.' + self.spec.identity + '.' + (self.spec.identity == 'authorization' ? self.spec.authorizationID : self.spec.identity == 'replay' ? self.spec.replayID : self.spec.consumptionID)",message="metadata.name must be <spec.domain>.<spec.identity>.<the claimed identity>",fieldPath=".spec.identity",reason="FieldValueInvalid"
type IdentityClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a claim is a fact, never edited.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable",reason="FieldValueForbidden"
	Spec IdentityClaimSpec `json:"spec"`
}

// IdentityClaimList is a list of IdentityClaim objects.
// +kubebuilder:object:root=true
type IdentityClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []IdentityClaim `json:"items"`
}

// IdentityClaimSpec is one identity's share of a Consumption: which
// identity the object holds, the consumed Authorization's three identities
// and the binding that holds them.
type IdentityClaimSpec struct {
	// Domain is the Consumption domain (the HostAuthority's metadata.uid).
	Domain LowerToken `json:"domain"`
	// Identity is the identity this object holds.
	// +kubebuilder:validation:Enum=authorization;replay;consumption
	Identity string `json:"identity"`
	// AuthorizationID, ReplayID and ConsumptionID are the consumed
	// Authorization's three identities.
	AuthorizationID LowerToken `json:"authorizationID"`
	ReplayID        LowerToken `json:"replayID"`
	ConsumptionID   LowerToken `json:"consumptionID"`
	// BindingDigest is the Consumption Binding digest of the Consumption
	// that holds the identity.
	BindingDigest SHA256Hex `json:"bindingDigest"`
	// ExpiresAt is the end of the hold (RFC 3339, whole seconds): the
	// identity is free again after it plus the retention.
	ExpiresAt metav1.Time `json:"expiresAt"`
}
