// Package webhook holds toolgate's admission webhooks for HostAuthority,
// ToolRegistry and PolicySnapshot.
//
// The validating webhooks run exactly the engine's publication rules on
// create; every violation is returned at its field path as one
// field.ErrorList, and no rejected value is ever echoed. For a
// PolicySnapshot the webhook reads (the HostAuthority, the namespace's
// PolicySnapshots) and then makes one pure call, publication.Admit — the
// publication path the CLI, the manifest loader and the controllers' store
// use too: the object is checked in a scratch domain built from its
// HostAuthority, generation n > 1 after generations 1..n−1, so the successor
// rules (exact next generation, every prior policy version kept with its
// content, one-way lifecycles) are the engine's; and the admission user
// (with its groups) must hold policyAdministrationAuthority in the
// HostAuthority (Forbidden otherwise). Updates may not change the spec or
// the publisher annotations.
//
// The mutating webhooks record the admission user in the publisher
// annotations and, for a PolicySnapshot, sign them with the domain key (see
// internal/publisher), so that the controllers can verify who published.
package webhook
