// Package engine is the root of toolgate's protocol core: a pure, deterministic
// implementation of the SecureToolKit Phase 1–6 protocol
// (shared/spec/securetoolkit-protocol-phase1-6.txt, "the spec").
//
// The core is split into one package per protocol area, in pipeline order:
//
//	fault      typed rejections with closed reason codes (Sections 37, 38)
//	ident      identifier and name grammars (Section 49)
//	vocab      closed protocol vocabularies and their order (Sections 48, 50)
//	boundary   the opaque Host Capability Boundary (Section 13)
//	value      validated typed argument values (Section 10)
//	schema     closed Schema model and validation (Section 10)
//	registry   Tool Definitions and Registry Snapshots (Section 9)
//	canon      canonicalization-v1 encoder (Sections 47, 51)
//	request    Proposal Assessment and Canonical Request (Sections 11, 12)
//
// Nothing under engine reads a clock, the environment, the network or a
// random source, and no output depends on map iteration order. Time is always
// an explicit argument. These rules are enforced by TestEnginePurity.
package engine
