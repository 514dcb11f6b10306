// Package v1alpha1 holds the stk.toolgate.dev/v1alpha1 API: the custom
// resources platform teams apply to configure toolgate (HostAuthority,
// ToolRegistry, PolicySnapshot) and the Consumption records the
// authorization service writes.
//
// Spec fields map one-to-one onto the engine's untrusted drafts; the engine
// validates them completely. The CRD schema is the first line of defense:
// every identifier, generation and list carries its Section 39/49 pattern
// and bound, every closed vocabulary is an enum, and CEL rules bind each
// object's name to its protocol identity and keep specs immutable.
// Recursive parts (Schema trees, policy condition trees) are stored as JSON
// subtrees because CRD schemas cannot recurse. Every number in a spec
// (generations, versions, seconds) is canonical decimal text, never a
// YAML/JSON number; times are RFC 3339 timestamps.
//
// +kubebuilder:object:generate=true
// +groupName=stk.toolgate.dev
package v1alpha1

// GroupVersion is the apiVersion of every toolgate resource.
const GroupVersion = "stk.toolgate.dev/v1alpha1"
