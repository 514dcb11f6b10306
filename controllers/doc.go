// Package controllers holds the reconcilers of toolgate's three publication
// kinds: HostAuthority, ToolRegistry and PolicySnapshot.
//
// Every replica runs every reconciler and fills its own read store
// (internal/store) from the objects in its informer cache: the reconcilers do
// not need leader election. Only writes to the cluster — status, Events and
// the signing-key Secret — are made by the elected leader; a follower
// computes the same result, serves it, and leaves the write to the leader.
// When a replica becomes leader it re-enqueues every object, so status is
// brought up to date by whoever leads.
//
// Each reconciler rebuilds the object through internal/manifest and
// internal/host with the engine's complete publication rules, whether or not
// the admission webhook saw it: an object that reached etcd without the
// webhook is checked again and never served unless it passes. A
// PolicySnapshot is served only when its publisher attestation (written and
// signed by the mutating webhook, see internal/publisher) verifies in the
// domain and the attested user holds policyAdministrationAuthority there.
package controllers
