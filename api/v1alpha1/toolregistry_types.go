package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ToolRegistry is one immutable Registry Snapshot generation (spec Section 9).
// Its name is its identity: metadata.name is exactly
// <spec.snapshotID>-<spec.snapshotGeneration>, so the apiserver's name
// uniqueness makes a second object claiming the same snapshot identity and
// generation in a namespace impossible. A new generation is a new object;
// the old one stays.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=treg,categories=toolgate
// +kubebuilder:printcolumn:name="Snapshot",type=string,JSONPath=`.spec.snapshotID`
// +kubebuilder:printcolumn:name="Generation",type=string,JSONPath=`.spec.snapshotGeneration`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == self.spec.snapshotID + '-' + self.spec.snapshotGeneration",message="metadata.name must be <spec.snapshotID>-<spec.snapshotGeneration>",fieldPath=".spec.snapshotID",reason="FieldValueInvalid"
type ToolRegistry struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a new generation is a new object.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: publish a new generation as a new object",reason="FieldValueForbidden"
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
	// SnapshotID is the Registry Snapshot identity: a lower-token of 1–64
	// octets (Sections 39 and 49), e.g. primary-registry.
	SnapshotID LowerToken `json:"snapshotID"`
	// SnapshotGeneration is the positive snapshot generation as canonical
	// decimal text, 1–18446744073709551615 without leading zeros (Sections
	// 39 and 49), e.g. "1".
	SnapshotGeneration Generation `json:"snapshotGeneration"`
	// Definitions holds 0–1,024 Tool Definitions (Section 39), in any
	// order; each definition id appears once. An empty snapshot is valid
	// and resolves nothing.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=1024
	Definitions []ToolDefinition `json:"definitions,omitempty"`
}

// ToolDefinition is one exact, immutable tool version.
type ToolDefinition struct {
	// ID is the Tool Definition identity, unique within the snapshot: a
	// lower-token of 1–64 octets (Sections 39 and 49).
	ID LowerToken `json:"id"`
	// ToolID is the Tool Identifier: 2–8 dot-separated lower-token
	// segments of 1–32 octets, 128 octets in total (Sections 39 and 49),
	// e.g. payments.submit.
	ToolID ToolIdentifier `json:"toolID"`
	// Version is the Tool Version as canonical decimal text,
	// 1–18446744073709551615 (Sections 39 and 49), e.g. "1". Requests
	// name it exactly; there is no latest.
	Version Generation `json:"version"`
	// Lifecycle: active and deprecated definitions resolve, retired ones
	// never do.
	Lifecycle Lifecycle `json:"lifecycle"`
	// Risk is the reviewed risk classification.
	Risk Risk `json:"risk"`
	// SideEffect is the reviewed side-effect classification.
	SideEffect SideEffect `json:"sideEffect"`
	// Reversibility is the reviewed reversibility classification.
	Reversibility Reversibility `json:"reversibility"`
	// Capabilities are the reviewed maximum Capabilities: 1–16 unique
	// Section 48 tokens in any order (Section 39).
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Capabilities []Capability `json:"capabilities"`
	// Title is a non-authoritative display title: 1–80 printable ASCII
	// octets, not starting or ending with a space (Sections 39 and 49).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=80
	// +kubebuilder:validation:Pattern=`^[!-~]([ -~]{0,78}[!-~])?$`
	Title string `json:"title"`
	// Summary is a non-authoritative safe summary: 1–240 printable ASCII
	// octets, not starting or ending with a space (Sections 39 and 49).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=240
	// +kubebuilder:validation:Pattern=`^[!-~]([ -~]{0,238}[!-~])?$`
	Summary string `json:"summary"`
	// DocRef is an optional documentation reference: 1–64 octets, first
	// and last lower-alnum, interior lower-alnum, "-" or "." (Sections 39
	// and 49), e.g. payments.submit-v1.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9.-]{0,62}[a-z0-9])?$`
	DocRef string `json:"docRef,omitempty"`
	// Schema is the complete closed argument Schema.
	Schema ToolSchema `json:"schema"`
	// Arguments is the optional argument profile toolgate.mcp-arguments/1
	// (docs/arguments.md): the reviewed mapping of the MCP tool's JSON
	// arguments to protocol arguments, {profile, tool, limits?,
	// arguments: {choice: object, members: [...]}}. When present, docRef is
	// the profile's reference (argprofile. and 52 hex digits of its digest)
	// and schema.root is exactly the Schema the profile derives to, so the
	// two cannot drift apart; a docRef with the argprofile. prefix requires
	// it. The tree is stored as JSON and validated completely by the
	// service, as schema.root is.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Arguments *apiextensionsv1.JSON `json:"arguments,omitempty"`
}

// ToolSchema names a Schema and holds its tree.
type ToolSchema struct {
	// ID is the Schema identity: a lower-token of 1–64 octets (Sections 39
	// and 49).
	ID LowerToken `json:"id"`
	// Version is the Schema version; only v1 exists.
	Version SchemaVersion `json:"version"`
	// Root is the root Schema node, an object. Each node is
	// {kind, cases?, items?, fields?: [{name, requirement, type}]}; kind is
	// one of string, resourceID, bool, signedInteger, unsignedInteger,
	// enumeration, array, object. CRD schemas cannot recurse, so the tree
	// is stored as JSON and validated completely by the engine (depth 1–8,
	// 1–256 nodes, 0–64 fields, 1–64 cases; Section 39).
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Root apiextensionsv1.JSON `json:"root"`
}
