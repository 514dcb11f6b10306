// Package v1alpha1 holds the stk.toolgate.dev/v1alpha1 API: the custom
// resources platform teams apply to configure toolgate (HostAuthority,
// ToolRegistry, PolicySnapshot).
//
// Spec fields map one-to-one onto the engine's untrusted drafts; the engine
// validates them completely (the CRD schema is a first, shallow line of
// defense). Recursive parts (Schema trees, policy condition trees) are
// stored as JSON subtrees because CRD schemas cannot recurse. Protocol
// numbers (generations, versions, seconds, counts, epoch times) are decimal
// strings.
//
// +kubebuilder:object:generate=true
// +groupName=stk.toolgate.dev
package v1alpha1

// GroupVersion is the apiVersion of every toolgate resource.
const GroupVersion = "stk.toolgate.dev/v1alpha1"
