// Package webhook holds toolgate's admission webhooks for HostAuthority,
// ToolRegistry and PolicySnapshot.
//
// The validating webhooks run exactly the engine's publication rules,
// through internal/manifest and internal/host, on create; every violation is
// returned at its field path as one field.ErrorList, and no rejected value is
// ever echoed. A PolicySnapshot is checked in a scratch domain built from
// its HostAuthority: generation n > 1 is published after generations 1..n−1
// read from the cluster, so the successor rules (exact next generation, every
// prior policy version kept with its content, one-way lifecycles) are the
// engine's; and the admission user (with its groups) must hold
// policyAdministrationAuthority in the HostAuthority. Updates may not change
// the spec or the publisher annotations.
//
// The mutating webhooks record the admission user in the publisher
// annotations and, for a PolicySnapshot, sign them with the domain key (see
// internal/publisher), so that the controllers can verify who published.
package webhook
