// Package consume holds toolgate's Consumption stores: the durable, atomic
// single-use step the protocol core defers to the Host (spec Sections 28 and
// 41). An executor's Authorization is consumed exactly once: [Store.Consume]
// returns nil for the first call with a [Key] across every replica sharing
// the store and across restarts, [ErrConsumed] for every later call, and an
// error wrapping [ErrUnavailable] whenever it cannot reach a definite answer.
// A store never says yes when it does not know (fail closed).
//
// The same stores hold issuance claims (docs/decisions.md, "Idempotent
// authorize and durable identities"): [Store.Claim] records, in one atomic
// step, that an issued Authorization's Authorization, replay and Consumption
// identities belong to one request ([Claim]), so that in a domain an
// identity backs one consumable Authorization, an identical request is
// answered with the same one, and any other request naming a claimed
// identity is refused ([ErrIdentityReused]).
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
