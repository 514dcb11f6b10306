package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Revocation withdraws one thing from the domain of the HostAuthority it
// references, for good (spec Section 41, "Revocation and current-Snapshot
// enforcement"): a PolicySnapshot generation, a ToolRegistry generation, a
// tool version, a single Authorization or a signing key. From the moment a
// replica serves it, no new Authorization is issued under what it names and
// no Authorization issued under it validates or consumes.
//
// Revocations are append-only: the spec is immutable (CEL), the validating
// webhook refuses DELETE, and a replica that has served a Revocation keeps
// enforcing it even if the object disappears. Undoing one means publishing
// anew (a new generation, a new tool version, a new key), never deleting.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=revoke,categories=toolgate
// +kubebuilder:printcolumn:name="HostAuthority",type=string,JSONPath=`.spec.hostAuthorityRef.name`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Revocation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a revocation is never edited or withdrawn.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: a revocation is never edited or withdrawn",reason="FieldValueForbidden"
	Spec RevocationSpec `json:"spec"`
	// Status is written only by the controller.
	// +optional
	Status PublicationStatus `json:"status,omitempty"`
}

// RevocationList is a list of Revocation objects.
// +kubebuilder:object:root=true
type RevocationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Revocation `json:"items"`
}

// RevocationSpec names the domain and exactly one target.
// +kubebuilder:validation:XValidation:rule="(has(self.policySnapshot) ? 1 : 0) + (has(self.toolRegistry) ? 1 : 0) + (has(self.tool) ? 1 : 0) + (has(self.authorization) ? 1 : 0) + (has(self.signingKey) ? 1 : 0) == 1",message="name exactly one of policySnapshot, toolRegistry, tool, authorization, signingKey",reason="FieldValueInvalid"
type RevocationSpec struct {
	// HostAuthorityRef names the HostAuthority, in the same namespace, whose
	// domain the revocation applies to.
	HostAuthorityRef HostAuthorityReference `json:"hostAuthorityRef"`
	// PolicySnapshot revokes one Policy Snapshot generation.
	// +optional
	PolicySnapshot *SnapshotGenerationRef `json:"policySnapshot,omitempty"`
	// ToolRegistry revokes one Registry Snapshot generation.
	// +optional
	ToolRegistry *SnapshotGenerationRef `json:"toolRegistry,omitempty"`
	// Tool revokes one tool version, in every registry generation.
	// +optional
	Tool *ToolVersionRef `json:"tool,omitempty"`
	// Authorization revokes one issued Authorization.
	// +optional
	Authorization *AuthorizationRef `json:"authorization,omitempty"`
	// SigningKey revokes one of the domain's signing keys: everything it
	// signed is refused.
	// +optional
	SigningKey *SigningKeyRef `json:"signingKey,omitempty"`
	// Reason is a note for reviewers (1–1,024 printable characters); it is
	// never interpreted.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`
}

// SnapshotGenerationRef names one generation of a snapshot identity.
type SnapshotGenerationRef struct {
	// SnapshotID is the snapshot identity.
	SnapshotID LowerToken `json:"snapshotID"`
	// Generation is the revoked generation.
	Generation Generation `json:"generation"`
}

// ToolVersionRef names one tool version.
type ToolVersionRef struct {
	// ToolID is the Tool Identifier.
	ToolID ToolIdentifier `json:"toolID"`
	// Version is the revoked tool version.
	Version Generation `json:"version"`
}

// AuthorizationRef names one Authorization by its identity.
type AuthorizationRef struct {
	// ID is the Authorization identity the authorize response returned.
	ID LowerToken `json:"id"`
}

// SigningKeyRef names one signing key by its identity.
type SigningKeyRef struct {
	// KeyID is the key identity artifacts carry: 16 lowercase hex digits.
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{16}$`
	KeyID string `json:"keyID"`
}
