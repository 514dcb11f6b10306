// Package consume holds toolgate's Consumption stores: the durable, atomic
// single-use step the protocol core defers to the Host (spec Sections 28 and
// 41). An executor's Authorization is consumed exactly once: [Store.Consume]
// returns nil for the first call with a [Key] across every replica sharing
// the store and across restarts, [ErrConsumed] for every later call, and an
// error wrapping [ErrUnavailable] whenever it cannot reach a definite answer.
// A store never says yes when it does not know (fail closed).
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
