package store

import (
	"github.com/toolgate/toolgate/internal/serving"
)

var _ serving.Domains = (*Store)(nil)

// stateOf returns, at request time, the served state of the domain ref
// while it is the domain with UID uid: its served generations and the
// revocations in force. A deleted object's snapshot is never decided on,
// although the domain's Host may still hold it as a predecessor; a
// replaced domain serves nothing through its old value.
func (s *Store) stateOf(ref domainRef, uid string) func() *serving.Served {
	return func() *serving.Served {
		d, ok := s.load().domains[ref]
		if !ok || d.info.UID != uid {
			return nil
		}
		return d.view
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
