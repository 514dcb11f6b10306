// Package store is the in-memory snapshot store every manager replica
// serves from: for each Host authority domain (one HostAuthority object by
// namespace, name, UID and signing key) the exact Registry and Policy
// Snapshots the controllers accepted.
//
// The store is copy-on-write. Readers load one immutable state with an
// atomic pointer and never lock; writers are serialized, copy what they
// change and swap the whole state atomically, so a reader sees either the
// state before or after a write, never a mix. Every lookup names its
// snapshot exactly — namespace, HostAuthority, snapshot identity and
// generation — and there is no "latest".
//
// A domain's Host (internal/host) stays in unexported fields: the store
// hands out snapshots, domain identities and decisions, never the Host. A
// recreated HostAuthority (new UID) or a rotated signing key is a new domain:
// everything served in the old one leaves the store with it.
package store
