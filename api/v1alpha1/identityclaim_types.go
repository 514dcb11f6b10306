package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IdentityClaim records that one identity of an issued Authorization — its
// Authorization, replay or Consumption identity — is claimed in a domain by
// one authorize request (docs/decisions.md, "Idempotent authorize and
// durable identities"). It is written only by the authorization service: the
// service issues an Authorization only when the three IdentityClaims of its
// identities exist and carry the same claim, so an identity backs one
// Authorization at a time, and a repeated identical request is answered with
// the same Authorization (re-issued at spec.issuedAt). It is deleted with
// the Consumptions, after spec.expiresAt plus the retention.
//
// Its name is <spec.domain>.<spec.identity>.<the identity's value>: each
// part is a DNS-1123 label, so the apiserver's name uniqueness makes a
// second claim on one identity in one domain impossible.
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

// IdentityClaimSpec is one identity's share of a claim: which identity the
// object claims, and the complete claim (the same in all three objects).
type IdentityClaimSpec struct {
	// Domain is the Consumption domain (the HostAuthority's metadata.uid).
	Domain LowerToken `json:"domain"`
	// Identity is the identity this object claims.
	// +kubebuilder:validation:Enum=authorization;replay;consumption
	Identity string `json:"identity"`
	// AuthorizationID, ReplayID and ConsumptionID are the claim's three
	// identities.
	AuthorizationID LowerToken `json:"authorizationID"`
	ReplayID        LowerToken `json:"replayID"`
	ConsumptionID   LowerToken `json:"consumptionID"`
	// RequestDigest is the SHA-256 digest of the issuing request (the
	// authenticated caller and the request as decoded).
	RequestDigest SHA256Hex `json:"requestDigest"`
	// BindingDigest is the issued Authorization's Consumption Binding
	// digest.
	BindingDigest SHA256Hex `json:"bindingDigest"`
	// IssuedAt and ExpiresAt are the Authorization's validity (RFC 3339,
	// whole seconds).
	IssuedAt  metav1.Time `json:"issuedAt"`
	ExpiresAt metav1.Time `json:"expiresAt"`
}
