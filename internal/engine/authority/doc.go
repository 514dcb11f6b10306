// Package authority implements the Host Capability Boundary's authority
// values of spec Sections 13 and 14: the Host Authority entitlement ceiling,
// Role Authorities attenuated from it, the attestations a Role Authority
// makes, and the composition of attestations contributing to one input.
//
// A [HostAuthority] is an immutable ceiling in exactly one Host authority
// domain: a nonempty Capability set, an exact (possibly empty) Resource set
// and the declared roles. It constrains processing but authorizes nothing.
//
// [Grant] attenuates a Host Authority to one declared role for one issuer
// identity; only a caller presenting the domain's exact retained
// [boundary.Boundary] can do so. A [RoleAuthority] can attest only its own
// class of Host fact ([PermittedRole]); any other fact is role substitution
// and rejects with fault.Unauthorized (P-017). Policy administration is a
// role like the others but attests no fact.
//
// [Compose] checks the attestations contributing to one input: they share one
// exact entitlement ceiling (never a union), come from one domain (P-016),
// have unique identities, never name one issuer with two different roles,
// and are valid at the explicit time.
//
// Every value has a content [digest.Digest] with its own domain label; the
// Host domain has no content and is compared with [boundary.Boundary.Same].
// The structural checks here claim no process isolation (Section 14).
package authority
