package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ToolRegistry is one immutable Registry Snapshot generation (spec Section 9).
// A new generation is a new object; the old one stays.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=treg,categories=toolgate
// +kubebuilder:printcolumn:name="Snapshot",type=string,JSONPath=`.spec.snapshotID`
// +kubebuilder:printcolumn:name="Generation",type=string,JSONPath=`.spec.generation`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ToolRegistry struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a new generation is a new object.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: publish a new generation as a new object"
	Spec ToolRegistrySpec `json:"spec"`
	// Status is written only by the controller.
	// +optional
	Status PublicationStatus `json:"status,omitempty"`
}

// ToolRegistryList is a list of ToolRegistry objects.
// +kubebuilder:object:root=true
type ToolRegistryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ToolRegistry `json:"items"`
}

// ToolRegistrySpec is the complete content of one Registry Snapshot.
type ToolRegistrySpec struct {
	// SnapshotID is the Registry Snapshot identity (lower-token, 1–64 octets).
	SnapshotID string `json:"snapshotID"`
	// Generation is the positive snapshot generation as canonical decimal text.
	Generation string `json:"generation"`
	// Definitions holds 0–1,024 Tool Definitions.
	// +optional
	Definitions []ToolDefinition `json:"definitions,omitempty"`
}

// ToolDefinition is one exact, immutable tool version.
type ToolDefinition struct {
	// ID is the Tool Definition identity, unique within the snapshot.
	ID string `json:"id"`
	// ToolID is the Tool Identifier, e.g. payments.submit.
	ToolID string `json:"toolID"`
	// Version is the Tool Version as canonical decimal text, e.g. "1".
	Version string `json:"version"`
	// +kubebuilder:validation:Enum=active;deprecated;retired
	Lifecycle string `json:"lifecycle"`
	// +kubebuilder:validation:Enum=low;moderate;high;critical
	Risk string `json:"risk"`
	// +kubebuilder:validation:Enum=readOnly;reversibleMutation;irreversibleMutation;externalCommunication;financial
	SideEffect string `json:"sideEffect"`
	// +kubebuilder:validation:Enum=notApplicable;reversible;compensatable;irreversible
	Reversibility string `json:"reversibility"`
	// Capabilities are the reviewed maximum Capabilities (1–16, unique).
	Capabilities []string `json:"capabilities"`
	// Title is a non-authoritative display title (1–80 printable ASCII).
	Title string `json:"title"`
	// Summary is a non-authoritative safe summary (1–240 printable ASCII).
	Summary string `json:"summary"`
	// DocRef is an optional documentation reference.
	// +optional
	DocRef string `json:"docRef,omitempty"`
	// Schema is the complete closed argument Schema.
	Schema ToolSchema `json:"schema"`
}

// ToolSchema names a Schema and holds its tree.
type ToolSchema struct {
	// ID is the Schema identity.
	ID string `json:"id"`
	// Version is the Schema version; only "v1" exists.
	// +kubebuilder:validation:Enum=v1
	Version string `json:"version"`
	// Root is the root Schema node, an object. Each node is
	// {kind, cases?, items?, fields?: [{name, requirement, type}]}.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Root runtime.RawExtension `json:"root"`
}
