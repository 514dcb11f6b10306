package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PolicySnapshot is one immutable Policy Snapshot generation (spec Section
// 19), published in the domain of the HostAuthority it references. Its name
// is its identity: metadata.name is exactly
// <spec.snapshotID>-<spec.snapshotGeneration>, so a second object claiming
// the same snapshot identity and generation in a namespace is impossible. A
// new generation is a new object; it must be the exact successor of the
// previous one, and the old one stays.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=psnap,categories=toolgate
// +kubebuilder:printcolumn:name="Snapshot",type=string,JSONPath=`.spec.snapshotID`
// +kubebuilder:printcolumn:name="Generation",type=string,JSONPath=`.spec.snapshotGeneration`
// +kubebuilder:printcolumn:name="HostAuthority",type=string,JSONPath=`.spec.hostAuthorityRef.name`
// +kubebuilder:printcolumn:name="Shadow-Of",type=string,JSONPath=`.spec.shadow.of`
// +kubebuilder:printcolumn:name="Shadow-Until",type=date,JSONPath=`.spec.shadow.until`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == self.spec.snapshotID + '-' + self.spec.snapshotGeneration",message="metadata.name must be <spec.snapshotID>-<spec.snapshotGeneration>",fieldPath=".spec.snapshotID",reason="FieldValueInvalid"
type PolicySnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a new generation is a new object.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: publish a new generation as a new object",reason="FieldValueForbidden"
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
	// SnapshotID is the Policy Snapshot identity: a lower-token of 1–64
	// octets (Sections 39 and 49), e.g. payments-policy.
	SnapshotID LowerToken `json:"snapshotID"`
	// SnapshotGeneration is the positive snapshot generation as canonical
	// decimal text without leading zeros (Section 49), e.g. "1". Initial
	// publication uses "1"; a successor uses exactly the next generation.
	SnapshotGeneration Generation `json:"snapshotGeneration"`
	// HostAuthorityRef names the HostAuthority, in the same namespace, whose
	// domain and ceilings this snapshot is published in.
	HostAuthorityRef HostAuthorityReference `json:"hostAuthorityRef"`
	// Policies holds 1–32 complete Policy Definitions (Section 39); each
	// (id, generation) pair appears once. A successor snapshot keeps every
	// prior policy version with its complete content.
	// +listType=map
	// +listMapKey=id
	// +listMapKey=generation
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Policies []PolicyDefinition `json:"policies"`
	// Shadow, when set, publishes this generation as a shadow of the
	// generation before it (docs/shadow.md): held and evaluated beside that
	// generation while it is current, never selected, never issuing, and
	// only until spec.shadow.until. Promoting it is publishing the next
	// generation with identical policies and no shadow.
	// +optional
	Shadow *PolicyShadow `json:"shadow,omitempty"`
}

// PolicyShadow names the generation a shadow generation runs beside and
// the end of its window.
type PolicyShadow struct {
	// Of is the generation this one shadows: exactly the generation before
	// it, as canonical decimal text.
	Of Generation `json:"of"`
	// Until ends the shadow (RFC 3339): from then on it is not evaluated.
	// It is after the object's creation and at most 7 days after it.
	Until metav1.Time `json:"until"`
}

// HostAuthorityReference names a HostAuthority in the referring object's
// namespace.
type HostAuthorityReference struct {
	// Name is the HostAuthority's metadata.name, which equals its
	// authorityID (a lower-token of 1–64 octets).
	Name LowerToken `json:"name"`
}

// PolicyDefinition is one exact, immutable Policy Definition version.
type PolicyDefinition struct {
	// ID is the Policy identity: a lower-token of 1–64 octets (Sections 39
	// and 49).
	ID LowerToken `json:"id"`
	// Generation is the policy version as canonical decimal text without
	// leading zeros (Section 49), e.g. "1".
	Generation Generation `json:"generation"`
	// Lifecycle moves only forward across snapshot generations: active,
	// then deprecated, then retired. Retired policies stay inspectable but
	// never evaluate.
	Lifecycle PolicyLifecycle `json:"lifecycle"`
	// Arguments opts the policy in to argument predicates
	// (docs/policy-arguments.md): conditions may then hold argument nodes
	// over the tools of the named Registry Snapshot. Absent, the policy is
	// exactly Phase 1–6.
	// +optional
	Arguments *PolicyArguments `json:"arguments,omitempty"`
	// Rules holds 1–128 rules (Section 39; at most 512 across the
	// snapshot, checked by the engine); every rule is evaluated. Rule ids
	// are unique within the policy.
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=128
	Rules []PolicyRule `json:"rules"`
}

// PolicyArguments is a policy's opt-in to the argument-predicate
// vocabulary.
type PolicyArguments struct {
	// Vocabulary is the argument-predicate vocabulary version.
	// +kubebuilder:validation:Enum=toolgate.argument-predicates/1
	Vocabulary string `json:"vocabulary"`
	// Registry names the exact ToolRegistry snapshot (identity and
	// generation, in the policy's HostAuthority domain) whose tools'
	// Schemas the argument predicates' field paths are checked against.
	Registry RegistrySnapshotReference `json:"registry"`
}

// RegistrySnapshotReference names one exact Registry Snapshot generation.
type RegistrySnapshotReference struct {
	// SnapshotID is the Registry Snapshot identity (a lower-token of 1–64
	// octets).
	SnapshotID LowerToken `json:"snapshotID"`
	// Generation is its generation as canonical decimal text, e.g. "1".
	Generation Generation `json:"generation"`
}

// PolicyRule is one Policy Rule.
// +kubebuilder:validation:XValidation:rule="self.effect == 'deny' ? !has(self.scope) : has(self.scope)",message="scope is required for allow and requireConfirmation and forbidden for deny",fieldPath=".scope",reason="FieldValueInvalid"
type PolicyRule struct {
	// ID is the rule identity, unique within its policy: a lower-token of
	// 1–64 octets (Sections 39 and 49).
	ID LowerToken `json:"id"`
	// Effect is the rule's outcome when its condition matches; precedence
	// is deny, then requireConfirmation, then allow.
	Effect Effect `json:"effect"`
	// Reason is one Section 48 policy reason token, e.g. allowRuleMatched.
	Reason PolicyReason `json:"reason"`
	// Condition is the root condition node, an object with exactly one of
	// the keys all, any or predicate (or argument, with the policy's
	// arguments opt-in):
	//   {all: [node, ...]}, {any: [node, ...]},
	//   {predicate: {name, identifier?, generation?, value?, values?,
	//                count?, seconds?, window?: {issuedAt, notBefore, expiresAt}}},
	//   {argument: {name, tool, version, path, value?, values?, scale?,
	//               root?, schemes?, hosts?}}
	// Every operand is a string or a list of strings; numbers are canonical
	// decimal text. CRD schemas cannot recurse, so the tree is stored as
	// JSON and validated completely by the engine (1–64 nodes, depth 1–8,
	// 1–16 children per all/any; Section 39).
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Condition apiextensionsv1.JSON `json:"condition"`
	// Scope is the explicit Capability and Resource constraint; required
	// for allow and requireConfirmation, forbidden for deny. An empty list
	// permits nothing.
	// +optional
	Scope *PolicyScope `json:"scope,omitempty"`
	// Obligations holds 0–8 inert obligations carried by a match (Section
	// 39).
	// +optional
	// +kubebuilder:validation:MaxItems=8
	Obligations []Obligation `json:"obligations,omitempty"`
}

// PolicyScope constrains the Capabilities and Resources a matching non-deny
// rule permits.
type PolicyScope struct {
	// Capabilities holds 0–16 unique Capability tokens (Section 39); empty
	// permits no Capability.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	Capabilities []Capability `json:"capabilities,omitempty"`
	// Resources holds 0–32 unique Resource identifiers (lower-tokens of
	// 1–64 octets; Sections 39 and 49); empty permits no Resource.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	Resources []LowerToken `json:"resources,omitempty"`
}

// Obligation is one inert obligation.
// +kubebuilder:validation:XValidation:rule="self.kind == 'maximumEvaluationAgeSeconds' ? has(self.seconds) : !has(self.seconds)",message="seconds is required for maximumEvaluationAgeSeconds and forbidden for every other kind",fieldPath=".seconds",reason="FieldValueInvalid"
// +kubebuilder:validation:XValidation:rule="self.kind == 'requireCompleteInfluenceBoundary' ? has(self.boundary) : !has(self.boundary)",message="boundary is required for requireCompleteInfluenceBoundary and forbidden for every other kind",fieldPath=".boundary",reason="FieldValueInvalid"
type Obligation struct {
	// Kind is the obligation kind.
	Kind ObligationKind `json:"kind"`
	// Seconds is the maximum evaluation age, 1–3,600 seconds as canonical
	// decimal text (Section 39); only for maximumEvaluationAgeSeconds.
	// +optional
	Seconds Seconds `json:"seconds,omitempty"`
	// Boundary is the Influence collection boundary identity (a Phase 4
	// controlled identity, a lower-token of 1–64 octets); only for
	// requireCompleteInfluenceBoundary.
	// +optional
	Boundary LowerToken `json:"boundary,omitempty"`
}
