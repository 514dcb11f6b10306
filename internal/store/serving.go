package store

import (
	"github.com/toolgate/toolgate/internal/serving"
)

var _ serving.Domains = (*Store)(nil)

// servedIn reports, at request time, whether a selection's exact snapshots
// are served in the domain ref: a deleted object's snapshot is never
// decided on, although the domain's Host may still hold it as a
// predecessor.
func (s *Store) servedIn(ref domainRef) func(serving.Selection) bool {
	return func(sel serving.Selection) bool {
		d, ok := s.load().domains[ref]
		if !ok {
			return false
		}
		_, reg := d.registries[snapKey{sel.RegistryID, sel.RegistryGeneration}]
		_, pol := d.policies[snapKey{sel.PolicyID, sel.PolicyGeneration}]
		return reg && pol
	}
}

// ByName implements serving.Domains: the domain served for the
// HostAuthority namespace/name.
func (s *Store) ByName(namespace, name string) (*serving.Domain, bool) {
	d, ok := s.load().domains[domainRef{namespace, name}]
	if !ok {
		return nil, false
	}
	return d.serving, true
}

// ByKey implements serving.Domains: the domain whose key set holds the
// artifact key identity keyID.
func (s *Store) ByKey(keyID string) (*serving.Domain, bool) {
	for _, d := range s.load().domains {
		if d.serving.HasKey(keyID) {
			return d.serving, true
		}
	}
	return nil, false
}

// Len implements serving.Domains.
func (s *Store) Len() int { return len(s.load().domains) }
