package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types the controller sets on every toolgate resource.
const (
	// ConditionReady is True when the object's content was accepted and is
	// served from the snapshot store.
	ConditionReady = "Ready"
	// ConditionRejected is True when the controller's re-check of the
	// publication rules rejected the object; its reason is a stable code.
	ConditionRejected = "Rejected"
)

// PublicationStatus is the observed state the controller records for a
// published object: its conditions, the metadata.generation they describe,
// and the digest of the accepted content.
type PublicationStatus struct {
	// Conditions are the Ready and Rejected conditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ObservedGeneration is the metadata.generation the conditions describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ContentDigest is the digest of the accepted spec content.
	// +optional
	ContentDigest string `json:"contentDigest,omitempty"`
}
