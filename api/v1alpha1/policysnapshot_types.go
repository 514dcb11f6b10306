package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PolicySnapshot is one immutable Policy Snapshot generation (spec Section
// 19), published in the domain of the HostAuthority it references. A new
// generation is a new object; it must be the exact successor of the
// previous one, and the old one stays.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=psnap,categories=toolgate
// +kubebuilder:printcolumn:name="Snapshot",type=string,JSONPath=`.spec.snapshotID`
// +kubebuilder:printcolumn:name="Generation",type=string,JSONPath=`.spec.generation`
// +kubebuilder:printcolumn:name="HostAuthority",type=string,JSONPath=`.spec.hostAuthorityRef.name`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PolicySnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a new generation is a new object.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: publish a new generation as a new object"
	Spec PolicySnapshotSpec `json:"spec"`
	// Status is written only by the controller.
	// +optional
	Status PublicationStatus `json:"status,omitempty"`
}

// PolicySnapshotList is a list of PolicySnapshot objects.
// +kubebuilder:object:root=true
type PolicySnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PolicySnapshot `json:"items"`
}

// PolicySnapshotSpec is the complete content of one Policy Snapshot.
type PolicySnapshotSpec struct {
	// SnapshotID is the Policy Snapshot identity (lower-token, 1–64 octets).
	SnapshotID string `json:"snapshotID"`
	// Generation is the positive snapshot generation as canonical decimal text.
	Generation string `json:"generation"`
	// HostAuthorityRef names the HostAuthority, in the same namespace, whose
	// domain and ceilings this snapshot is published in.
	HostAuthorityRef HostAuthorityReference `json:"hostAuthorityRef"`
	// Policies holds 1–32 complete Policy Definitions.
	Policies []PolicyDefinition `json:"policies"`
}

// HostAuthorityReference names a HostAuthority in the referring object's
// namespace.
type HostAuthorityReference struct {
	// Name is the HostAuthority's metadata.name.
	Name string `json:"name"`
}

// PolicyDefinition is one exact, immutable Policy Definition version.
type PolicyDefinition struct {
	// ID is the Policy identity (lower-token, 1–64 octets).
	ID string `json:"id"`
	// Generation is the policy version as canonical decimal text, e.g. "1".
	Generation string `json:"generation"`
	// Lifecycle moves only forward across snapshot generations.
	// +kubebuilder:validation:Enum=active;deprecated;retired
	Lifecycle string `json:"lifecycle"`
	// Rules holds 1–128 rules; every rule is evaluated.
	Rules []PolicyRule `json:"rules"`
}

// PolicyRule is one Policy Rule.
type PolicyRule struct {
	// ID is the rule identity, unique within its policy.
	ID string `json:"id"`
	// Effect is the rule's outcome when its condition matches; precedence
	// is deny, then requireConfirmation, then allow.
	// +kubebuilder:validation:Enum=deny;requireConfirmation;allow
	Effect string `json:"effect"`
	// Reason is one Section 48 policy reason token, e.g. allowRuleMatched.
	Reason string `json:"reason"`
	// Condition is the root condition node, an object with exactly one of
	// the keys all, any or predicate:
	//   {all: [node, ...]}, {any: [node, ...]},
	//   {predicate: {name, identifier?, generation?, value?, values?,
	//                count?, seconds?, window?: {issuedAt, notBefore, expiresAt}}}
	// Numbers (generations, counts, seconds, times) are strings.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Condition runtime.RawExtension `json:"condition"`
	// Scope is the explicit Capability and Resource constraint; required
	// for allow and requireConfirmation, forbidden for deny. An empty list
	// permits nothing.
	// +optional
	Scope *PolicyScope `json:"scope,omitempty"`
	// Obligations holds 0–8 inert obligations carried by a match.
	// +optional
	Obligations []Obligation `json:"obligations,omitempty"`
}

// PolicyScope constrains the Capabilities and Resources a matching non-deny
// rule permits.
type PolicyScope struct {
	// Capabilities holds 0–16 unique Capability tokens.
	// +optional
	Capabilities []string `json:"capabilities,omitempty"`
	// Resources holds 0–32 unique Resource identifiers.
	// +optional
	Resources []string `json:"resources,omitempty"`
}

// Obligation is one inert obligation.
type Obligation struct {
	// Kind is the obligation kind.
	// +kubebuilder:validation:Enum=requireConfirmation;maximumEvaluationAgeSeconds;requireCompleteInfluenceBoundary;requireSingleUseAuthorization;requireAuditEvent
	Kind string `json:"kind"`
	// Seconds is the maximum evaluation age as decimal text (1–3,600); only
	// for maximumEvaluationAgeSeconds.
	// +optional
	Seconds string `json:"seconds,omitempty"`
	// Boundary is the Influence boundary identity; only for
	// requireCompleteInfluenceBoundary.
	// +optional
	Boundary string `json:"boundary,omitempty"`
}
