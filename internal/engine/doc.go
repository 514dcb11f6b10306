// Package engine is the root of toolgate's protocol core: a pure, deterministic
// implementation of the SecureToolKit Phase 1–6 protocol
// (docs/spec/securetoolkit-protocol-phase1-6.txt, "the spec").
//
// The core is split into one package per protocol area, in pipeline order:
//
//	fault       typed rejections with closed reason codes (Sections 37, 38)
//	ident       identifier and name grammars (Section 49)
//	vocab       closed protocol vocabularies and their order (Sections 48, 50)
//	digest      content digests for complete-content equality
//	epoch       explicit protocol time (Sections 26, 39)
//	boundary    the opaque Host Capability Boundary (Section 13)
//	value       validated typed argument values (Section 10)
//	schema      closed Schema model and validation (Section 10)
//	registry    Tool Definitions and Registry Snapshots (Section 9)
//	canon       canonicalization-v1 encoder (Sections 47, 51)
//	assessment  Proposal Assessment (Section 12)
//	request     Canonical Request (Section 11)
//	principal   subject, tenant, session and delegation (Sections 15–17)
//	authority   Host Authority, Role Authorities, attestations (Sections 13–14)
//	evidence    Security Context, Delegation and Intent (Section 15)
//	lineage     Provenance and Influence (Section 16)
//	evalinput   Evaluation Input (Section 17)
//	policy      Policy Snapshots, evaluation and Decisions (Sections 19–22)
//	authz       Authorization issuance and Validation (Sections 23–32)
//
// Nothing under engine reads a clock, the environment, the network or a
// random source, and no output depends on map iteration order. Time is always
// an explicit argument. TestEnginePurity and golangci-lint's depguard rule
// enforce this. The package contracts of Phases 4–6 are in
// docs/design/protocol-core-phase4-6.md.
package engine
