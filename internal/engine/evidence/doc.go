// Package evidence implements the controlled Host evidence of spec
// Section 15: Security Context, delegation evidence and authenticated
// Intent.
//
// Each value is built only by its transition from an untrusted draft and a
// Role Authority of exactly the required role (package authority):
// authenticationAuthority for a [SecurityContext], delegationAuthority for a
// [Delegation] and intentCaptureAuthority for an [Intent]. Any other role is
// role substitution and rejects with fault.Unauthorized. The transition
// computes the digest of the value's complete fact content and has the Role
// Authority attest it, so the value carries one [authority.Attestation]
// whose subject is that digest and whose validity is the value's validity.
//
// An Intent binds an exact identity, one exact target (a Canonical Request
// or a bounded Snapshot-bound Tool Definition), explicit Capability and
// Resource ceilings that can narrow but never enlarge the Tool Definition
// maximum or the Host Authority, a validity window and a positive renewal
// generation. Display text is non-authoritative and never matched.
//
// Time is not checked here: validity is checked at the explicit evaluation
// time by authority.Compose. Cross-value identity continuity (Section 15,
// last paragraph) is checked where the values meet, at Evaluation Input.
package evidence
