package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Consumption records one atomic single-use Consumption of an Authorization
// (spec Section 28's Consumption facility). It is written only by the
// authorization service: creating it is the single-use step, and
// AlreadyExists means the Authorization was already consumed. It is deleted
// once the Authorization can no longer validate (after spec.expiresAt).
//
// Its name is derived from the domain and the Consumption Binding digest:
// metadata.name is exactly <spec.domain>.<spec.bindingDigest>. Both parts
// have no dot (a lower-token and 64 lowercase hex digits), so the name is a
// DNS-1123 subdomain of at most 129 octets and splits back into its parts
// unambiguously; the apiserver's name uniqueness then makes a second
// Consumption of the same binding in the same domain impossible.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=cons,categories=toolgate
// +kubebuilder:printcolumn:name="Domain",type=string,JSONPath=`.spec.domain`
// +kubebuilder:printcolumn:name="Authorization",type=string,JSONPath=`.spec.authorizationID`
// +kubebuilder:printcolumn:name="Expires",type=string,JSONPath=`.spec.expiresAt`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == self.spec.domain + '.' + self.spec.bindingDigest",message="metadata.name must be <spec.domain>.<spec.bindingDigest>",fieldPath=".spec.bindingDigest",reason="FieldValueInvalid"
type Consumption struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a Consumption is a fact, never edited.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable",reason="FieldValueForbidden"
	Spec ConsumptionSpec `json:"spec"`
}

// ConsumptionList is a list of Consumption objects.
// +kubebuilder:object:root=true
type ConsumptionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Consumption `json:"items"`
}

// ConsumptionSpec is the complete record of one Consumption.
type ConsumptionSpec struct {
	// Domain is the Host domain the Authorization was issued in, as the
	// service names it: the metadata.uid of the HostAuthority object whose
	// boundary issued it (a lowercase UUID, itself a lower-token). A
	// recreated HostAuthority is a new domain, so its Consumptions never
	// collide with the old one's.
	Domain LowerToken `json:"domain"`
	// BindingDigest is the SHA-256 digest of the complete Authorization
	// Consumption Binding (Section 28), 64 lowercase hex digits.
	BindingDigest SHA256Hex `json:"bindingDigest"`
	// AuthorizationID is the consumed Authorization's identity: a
	// lower-token of 1–64 octets (Section 49, the Swift Reference bound).
	AuthorizationID LowerToken `json:"authorizationID"`
	// ExpiresAt is the Authorization's expiry (RFC 3339, whole seconds:
	// the protocol's epoch seconds exactly). The record may be deleted at
	// or after this time, when the Authorization can no longer validate.
	ExpiresAt metav1.Time `json:"expiresAt"`
}
