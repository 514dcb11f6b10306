package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HostAuthority is one Host authority domain (spec Sections 13–14): the
// Capability and Resource ceilings of everything decided in it, which
// Kubernetes identities hold which protocol role, and who may validate and
// consume its Authorizations. Its metadata.name equals spec.authorityID, so
// one namespace never holds two HostAuthority objects with the same
// authority identity. Its Host Capability Boundary is created by the
// service per object UID; a recreated object is a new domain.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=hauth,categories=toolgate
// +kubebuilder:printcolumn:name="Authority",type=string,JSONPath=`.spec.authorityID`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == self.spec.authorityID",message="metadata.name must equal spec.authorityID",fieldPath=".spec.authorityID",reason="FieldValueInvalid"
type HostAuthority struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: a new generation is a new object.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: publish a new generation as a new object",reason="FieldValueForbidden"
	Spec HostAuthoritySpec `json:"spec"`
	// Rollout is how the domain treats the generations it serves while a
	// new one rolls out. Unlike the spec it may change: it is no part of
	// what makes the domain (its Boundary, key and roles), so changing it
	// keeps the domain and every Authorization in flight. A change is
	// admitted only for a user that holds policyAdministrationAuthority in
	// this HostAuthority.
	// +optional
	Rollout *HostAuthorityRollout `json:"rollout,omitempty"`
	// Status is written only by the controller.
	// +optional
	Status PublicationStatus `json:"status,omitempty"`
}

// HostAuthorityList is a list of HostAuthority objects.
// +kubebuilder:object:root=true
type HostAuthorityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []HostAuthority `json:"items"`
}

// HostAuthoritySpec is the complete content of one Host Authority.
type HostAuthoritySpec struct {
	// AuthorityID is the engine's Host Authority identity: a Phase 4
	// controlled identity, a lower-token of 1–64 octets (Sections 39 and
	// 49). It equals metadata.name.
	AuthorityID LowerToken `json:"authorityID"`
	// Capabilities is the Capability ceiling: 1–8 unique Section 48
	// Capability tokens in any order (Section 39), e.g. financial.transfer.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Capabilities []Capability `json:"capabilities"`
	// Resources is the Resource ceiling: 0–16 unique Resource identifiers
	// (lower-tokens of 1–64 octets) in any order (Section 39). Empty means
	// no Resource authority at all.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	Resources []LowerToken `json:"resources,omitempty"`
	// Roles binds each declared protocol role to the Kubernetes subjects
	// that hold it. A role is declared in this domain exactly when it has a
	// binding here; each of the six roles appears at most once.
	// +listType=map
	// +listMapKey=role
	// +kubebuilder:validation:MaxItems=6
	Roles []RoleBinding `json:"roles"`
	// Executors are the subjects that may validate and consume this
	// domain's Authorizations (the services that perform side effects).
	// +optional
	Executors []Subject `json:"executors,omitempty"`
	// MaxAuthorizationLifetimeSeconds bounds every Authorization issued in
	// this domain: 1–3,600 seconds (Sections 26 and 39) as canonical
	// decimal text, e.g. "300".
	MaxAuthorizationLifetimeSeconds Seconds `json:"maxAuthorizationLifetimeSeconds"`
	// SupersededGrace lets a new Authorization still select a registry or
	// policy generation that a later served generation of the same snapshot
	// identity has superseded, within bounds. Absent (the default), only the
	// current generation — the highest served — is selectable; an
	// Authorization already issued under a superseded generation keeps
	// validating until it expires unless that generation is revoked.
	// +optional
	SupersededGrace *SupersededGrace `json:"supersededGrace,omitempty"`
	// Confirmations opts this domain in to toolgate's confirmations
	// extension, toolgate.confirmations/1 (docs/confirmation.md): a
	// requireConfirmation Decision can then be confirmed by one of the
	// confirmers, once, for exactly that call. Absent (the default), the
	// domain is exactly Phase 1–6 and requireConfirmation issues nothing.
	// +optional
	Confirmations *Confirmations `json:"confirmations,omitempty"`
}

// Confirmations is who may confirm in a domain, and for how long. The
// confirmer role is the extension's, not one of the six protocol roles.
type Confirmations struct {
	// Confirmers are the subjects that hold the confirmer role.
	// +kubebuilder:validation:MinItems=1
	Confirmers []Subject `json:"confirmers"`
	// RequestLifetimeSeconds is how long a confirmation request stays open
	// for an answer: 1–3,600 seconds as canonical decimal text.
	RequestLifetimeSeconds Seconds `json:"requestLifetimeSeconds"`
	// AnswerLifetimeSeconds is how long an approval stays usable: 1–3,600
	// seconds as canonical decimal text.
	AnswerLifetimeSeconds Seconds `json:"answerLifetimeSeconds"`
	// AllowSelfConfirmation lets the requester (the caller that asked, or
	// the subject it asked for) confirm its own request. The default,
	// false, requires a second person.
	// +optional
	AllowSelfConfirmation bool `json:"allowSelfConfirmation,omitempty"`
}

// HostAuthorityRollout is the mutable rollout setting of a domain.
type HostAuthorityRollout struct {
	// SupersededGrace, when set, is the domain's superseded grace in place
	// of spec.supersededGrace (the grace the domain was created with).
	// Removing it restores spec.supersededGrace.
	// +optional
	SupersededGrace *SupersededGrace `json:"supersededGrace,omitempty"`
}

// SupersededGrace bounds how far behind the current generation a new
// Authorization may select. When both bounds are set, both must hold.
// +kubebuilder:validation:XValidation:rule="has(self.generations) || has(self.seconds)",message="set generations, seconds, or both",reason="FieldValueRequired"
type SupersededGrace struct {
	// Generations is how many generations behind the current one stay
	// selectable: 1–16 as canonical decimal text, e.g. "1" (the previous
	// generation only).
	// +optional
	// +kubebuilder:validation:Pattern=`^([1-9]|1[0-6])$`
	Generations string `json:"generations,omitempty"`
	// Seconds is how long after its successor was created (the successor
	// object's creationTimestamp) a superseded generation stays selectable:
	// 1–3,600 seconds as canonical decimal text.
	// +optional
	Seconds Seconds `json:"seconds,omitempty"`
}

// RoleBinding grants one protocol role to Kubernetes subjects.
type RoleBinding struct {
	// Role is one of the six Section 48 Role Authority kinds.
	Role Role `json:"role"`
	// Subjects are the 1 or more Kubernetes identities that hold the role.
	// +kubebuilder:validation:MinItems=1
	Subjects []Subject `json:"subjects"`
}

// Subject names one Kubernetes identity, as in RBAC.
// +kubebuilder:validation:XValidation:rule="self.kind == 'ServiceAccount' || !has(self.namespace)",message="only a ServiceAccount subject has a namespace",fieldPath=".namespace",reason="FieldValueForbidden"
type Subject struct {
	// Kind is the kind of identity.
	Kind SubjectKind `json:"kind"`
	// Name is the ServiceAccount, User or Group name: 1–253 printable
	// ASCII octets without spaces.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[!-~]+$`
	Name string `json:"name"`
	// Namespace is the ServiceAccount's namespace (a DNS-1123 label); only
	// for ServiceAccount, and the HostAuthority's own namespace when
	// omitted.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}
