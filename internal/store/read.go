package store

import (
	"cmp"
	"slices"

	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/engine/vocab"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/publisher"
)

// Domain returns the domain served for the HostAuthority namespace/name.
func (s *Store) Domain(namespace, name string) (DomainInfo, bool) {
	d, ok := s.load().domains[domainRef{namespace, name}]
	if !ok {
		return DomainInfo{}, false
	}
	return d.info, true
}

// Registry returns the Registry Snapshot served under exactly k.
func (s *Store) Registry(k Key) (*registry.Snapshot, bool) {
	d, ok := s.load().domains[domainRef{k.Namespace, k.Authority}]
	if !ok {
		return nil, false
	}
	e, ok := d.registries[snapKey{k.ID, k.Generation}]
	return e.snap, ok
}

// Policy returns the Policy Snapshot served under exactly k.
func (s *Store) Policy(k Key) (*policy.Snapshot, bool) {
	d, ok := s.load().domains[domainRef{k.Namespace, k.Authority}]
	if !ok {
		return nil, false
	}
	e, ok := d.policies[snapKey{k.ID, k.Generation}]
	return e.snap, ok
}

// Served lists every served snapshot in a deterministic order (kind, key).
func (s *Store) Served() []Entry {
	var out []Entry
	for ref, d := range s.load().domains {
		for k, e := range d.registries {
			out = append(out, Entry{KindRegistry, Key{ref.ns, ref.name, k.id, k.gen}, e.object, e.digest, d.info.UID})
		}
		for k, e := range d.policies {
			out = append(out, Entry{KindPolicy, Key{ref.ns, ref.name, k.id, k.gen}, e.object, e.digest, d.info.UID})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key.Namespace, b.Key.Namespace),
			cmp.Compare(a.Key.Authority, b.Key.Authority), cmp.Compare(a.Key.ID, b.Key.ID),
			cmp.Compare(len(a.Key.Generation), len(b.Key.Generation)), cmp.Compare(a.Key.Generation, b.Key.Generation))
	})
	return out
}

// AttestPublisher signs, with the attestation key of the domain
// namespace/authority,
// the publisher statement of internal/publisher for the object kind/object
// of that namespace (its spec digest and publisher annotation value), and
// returns the signature and the domain it names. Only this statement can be
// signed: the domain key never signs a caller-chosen message.
func (s *Store) AttestPublisher(namespace, authority, kind, object, specDigest, publisherValue string) ([]byte, DomainInfo, bool) {
	d, ok := s.load().domains[domainRef{namespace, authority}]
	if !ok {
		return nil, DomainInfo{}, false
	}
	msg := publisher.Message(kind, namespace, object, d.info.UID, specDigest, publisherValue)
	return d.keys.SignAttestation(msg), d.info, true
}

// HasRole reports whether caller holds role in the domain namespace/name.
func (s *Store) HasRole(namespace, name string, caller host.Caller, role vocab.Role) bool {
	d, ok := s.load().domains[domainRef{namespace, name}]
	return ok && d.host.HasRole(caller, role)
}
