// Package audit holds toolgate's tamper-evident decision log (docs/api.md,
// "Tamper-evident audit log"; spec Section 41 "audit persistence"): every decision-log record
// appended to an RFC 6962 Merkle tree (golang.org/x/mod/sumdb/tlog) whose
// checkpoints are signed notes (golang.org/x/mod/sumdb/note, Ed25519).
//
// A log is a directory of three append-only files:
//
//   - records: one JSON record per line, each the decision-log line with
//     its 0-based position as "seq" in front;
//   - hashes: the tree's stored hashes (tlog.StoredHashes), 32 octets each,
//     so a restart appends without rehashing and proofs are served from
//     disk;
//   - checkpoints: signed notes "origin\nsize\nroot\n", one every
//     Options.CheckpointEvery records or Options.CheckpointInterval, and at
//     Close.
//
// Verify recomputes every leaf and the tree and names each modified,
// inserted, deleted or reordered record; ProveRecord and ProveTree write
// inclusion and consistency proofs that CheckProof checks with nothing but
// the verifier key.
package audit
