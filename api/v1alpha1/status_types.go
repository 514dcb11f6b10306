package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConditionReady is the one condition type the controller sets on every
// published toolgate resource. Its status is True only with reason
// ReasonAccepted; its reason is always one of the Reason constants below.
const ConditionReady = "Ready"

// Reasons of the Ready condition: a closed, stable set clients may switch on.
const (
	// ReasonAccepted (Ready=True): the content passed the complete engine
	// publication rules and is served from the snapshot store.
	ReasonAccepted = "Accepted"
	// ReasonRejected (Ready=False): the controller's re-check of the
	// publication rules rejected the content; the message names the fault
	// code and path, never a rejected value. Rejection is final for this
	// object because its spec is immutable.
	ReasonRejected = "Rejected"
	// ReasonWaitingForDependency (Ready=False): the object cannot be
	// checked yet because something it needs is not Ready (the referenced
	// HostAuthority, or the previous generation of the same snapshot).
	ReasonWaitingForDependency = "WaitingForDependency"
)

// PublicationStatus is the observed state the controller records for a
// published object. Status is written only by the controller.
type PublicationStatus struct {
	// Conditions holds the one Ready condition, whose reason is Accepted,
	// Rejected or WaitingForDependency.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ObservedGeneration is the metadata.generation the conditions describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ContentDigest is the engine's complete-content digest of the accepted
	// object ("sha256:" and 64 lowercase hex digits), computed from spec
	// alone: it never covers metadata, status or who published the object,
	// so equal specs have equal digests. For a ToolRegistry it is the
	// Registry Snapshot digest, for a PolicySnapshot the Policy Snapshot
	// digest, for a HostAuthority the Host Authority digest (identity,
	// ceilings and declared roles; the Kubernetes subjects and lifetime are
	// not protocol content).
	// +optional
	// +kubebuilder:validation:Pattern=`^sha256:[0-9a-f]{64}$`
	ContentDigest string `json:"contentDigest,omitempty"`
	// PublishedBy is the Kubernetes username (admission userInfo.username)
	// that created the object, as recorded by the admission webhook; for a
	// PolicySnapshot it is the publisher checked against the
	// policyAdministrationAuthority binding. Kept apart from contentDigest,
	// which covers content only.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	PublishedBy string `json:"publishedBy,omitempty"`
}
