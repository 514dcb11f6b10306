// Package lineage implements Provenance and Influence binding (spec
// Section 16): controlled, privacy-safe lineage evidence for one exact
// Proposal Assessment (Section 12), one identity binding and one Host
// authority domain.
//
// A [Provenance] set records, per expected record identity, the source
// classification, a custody evidence reference, the ordered transformation
// history and the verification state, and derives each record's trust
// classification (see [Classify]). It is built by [NewProvenance] under the
// provenanceAuthority role, or it is [UnknownProvenance]: unknown coverage,
// no records, no attestation, and only for an assessment that expects no
// Provenance identities. Missing coverage is unknown, never trusted.
//
// An [Influence] set records bounded nodes (content, systems, tools or events
// that may have shaped a Proposal), their directed parent relationships and
// the collection boundaries they belong to, each with a boundary-local
// completeness state. It is built by [NewInfluence] under the
// influenceCollector role, or it is [NoInfluence]: no collections, only for
// an assessment that expects none. Completeness is never global: a complete
// boundary says nothing about material outside it.
//
// Both constructors are all-or-nothing. Record and node identities, parent
// identities and collection boundaries are normalized to ASCII order
// (Section 50); transformations keep their declared order and repetitions.
// The exact set of record identities and of collection boundaries must equal
// the assessment's expected identities: collection substitution, missing
// expected identities, inconsistent completeness, duplicates, invalid or
// cross-boundary parent edges, cycles, mixed domains and Section 39 limit
// excess all reject with a *fault.Error. The Role Authority's attestation
// covers the set's complete content digest, which includes the assessment
// digest, the identity, the validity window and every record, collection and
// node.
//
// Controlled lineage can constrain later processing but grants no authority,
// and nothing here stores audit data.
package lineage
