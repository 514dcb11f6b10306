// Package consume holds toolgate's Consumption stores: the durable, atomic
// single-use step the protocol core defers to the Host (spec Sections 28 and
// 41). An executor's Authorization is consumed exactly once: [Store.Consume]
// returns nil for the first call with a [Key] across every replica sharing
// the store and across restarts, [ErrConsumed] for every later call, and an
// error wrapping [ErrUnavailable] whenever it cannot reach a definite answer.
// A store never says yes when it does not know (fail closed).
//
// A Consumption is the complete Consumption Binding together with the
// consumed Authorization's three identities (Section 42; docs/decisions.md,
// "The durable write belongs to Consumption"): [Store.Consume] records the
// Key and holds the Authorization, replay and Consumption identities in one
// atomic step, so within a domain one identity permits at most one
// Consumption even when two artifacts name it ([ErrIdentityReused]), and
// [Store.Held] reads, without writing, whether an identity is held: the
// service asks it before it issues, and issuance writes nothing.
//
// The backends live in subpackages so that a binary links only what it uses
// and each backend's tests run against its real server:
//
//   - [github.com/toolgate/toolgate/internal/consume/boltstore]: one bbolt
//     file in a state directory (standalone default).
//   - [github.com/toolgate/toolgate/internal/consume/etcdstore]: an etcd
//     transaction and a lease (high rates).
//   - [github.com/toolgate/toolgate/internal/consume/apistore]: one
//     Consumption object per Consumption on the kube-apiserver (cluster
//     default), with a garbage collector for expired records.
//
// docs/consumption.md describes the scale of each and when to choose which.
package consume
