// Package host is the Host façade: the one owner of a Host authority
// domain's Capability Boundary and of its Role Authorities (spec Sections
// 13–14), and the one way the rest of toolgate — the CLI, the controllers,
// the authorization service — runs the protocol pipeline.
//
// # Integration guide
//
// Create one Host per HostAuthority object (a recreated object, or a
// rotated key, is a new Host and so a new domain):
//
//	h, err := host.New(host.Config{AuthorityID: "payments-host", Capabilities: caps, Roles: bindings, MaxLifetime: 300})
//
// Publish the exact snapshots the domain serves. Registry Snapshots are
// domain-free content; Policy Snapshots are published by a caller that holds
// policyAdministrationAuthority, generation 1 first and every later
// generation as the exact successor of the one before:
//
//	h.PublishRegistry(registryDraft)
//	h.PublishPolicy(admin, policyDraft)
//
// Authorize runs Phases 1–5 from plain data — the raw Proposal, the exact
// registry and policy selections (identity and generation, never
// "latest"), the Host facts each attested by a role the caller holds, the
// requested scope, the artifact identities, the requested maximum lifetime
// and the explicit time — and returns the complete Decision and, for an
// eligible allow only, the Authorization:
//
//	res, err := h.Authorize(req)
//
// With every Authorization comes its portable issuance record
// (res.Portable, version toolgate.authorization/2): canonical bytes that the
// service signs with the domain's key. Another replica of the same Host
// verifies the signature and calls Rebuild, which re-runs the complete
// issuance in its own domain and fails closed when anything differs:
//
//	a, err := replica.Rebuild(verifiedBytes)
//
// Validate runs Phase 6: the executor's own expectations as plain data
// (tool, version, the raw arguments it will execute, canonicalized again on
// this side; identity; scope; identities) against an Authorization, at an
// explicit time, and returns the complete Consumption Binding the service
// must then consume atomically:
//
//	binding, err := h.Validate(executor, a, expectations, at)
//
// When the Intent carries an agent-safe.intent/1 binding (Facts.IntentBinding),
// the executor presents the binding it is about to commit in
// Expectations.IntentBinding and its digest must equal the bound one.
// Explain reports every rule's and predicate's result for people reading a
// Decision.
//
// A Host holds no clock and performs no I/O: the service reads its clock
// once per request and passes the time, and owns storage, signing and
// Consumption. A Host is safe for concurrent use.
//
// # Privilege
//
// Nothing a Host returns carries privilege: Decisions, Authorizations,
// snapshots and bindings expose domain identities (boundary.Domain) that
// compare but never act. The Boundary and the Role Authorities stay in the
// Host's unexported fields.
package host
