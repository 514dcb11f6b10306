package server

import (
	"fmt"
	"sync/atomic"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/host"
)

// Domain is one Host authority domain the service serves: the Host façade
// of one HostAuthority object and the domain's signing key. Its fields are
// unexported: only the service acts with them.
type Domain struct {
	namespace, name string
	instance        string // the Consumption store's domain key
	host            *host.Host
	key             *artifact.Key
	served          func(Selection) bool // nil: everything the Host holds is served
}

// Selection names the exact snapshots one request decides on.
type Selection struct {
	RegistryID, RegistryGeneration string
	PolicyID, PolicyGeneration     string
}

// WithServed returns d that decides only on selections served reports
// true for: a store that withdraws a snapshot (its object was deleted)
// stops serving it although the Host still holds it as a predecessor.
func (d *Domain) WithServed(served func(Selection) bool) *Domain {
	c := *d
	c.served = served
	return &c
}

// serves reports whether d decides on sel.
func (d *Domain) serves(sel Selection) bool { return d.served == nil || d.served(sel) }

// NewDomain serves h, the Host of the HostAuthority namespace/name, signing
// with key. instance names the domain in the Consumption store (the
// HostAuthority UID in a cluster, the key identity standalone).
func NewDomain(namespace, name, instance string, h *host.Host, key *artifact.Key) (*Domain, error) {
	if h == nil || key == nil || instance == "" {
		return nil, fmt.Errorf("server: domain %s/%s needs a host, a key and an instance", namespace, name)
	}
	return &Domain{namespace: namespace, name: name, instance: instance, host: h, key: key}, nil
}

// Domains is the set of domains a replica serves. Lookups are by exact
// HostAuthority name and by signing-key identity.
type Domains interface {
	ByName(namespace, name string) (*Domain, bool)
	ByKey(keyID string) (*Domain, bool)
	// Len is the number of domains served (readiness needs at least one).
	Len() int
}

// StaticDomains is an immutable set of domains that can be replaced as a
// whole (copy on write); reads are lock-free.
type StaticDomains struct {
	set atomic.Pointer[domainSet]
}

type domainSet struct {
	byName map[[2]string]*Domain
	byKey  map[string]*Domain
}

// Replace serves exactly ds from now on. Two domains with one name or one
// key reject, and the set in force is kept.
func (s *StaticDomains) Replace(ds ...*Domain) error {
	set := &domainSet{byName: map[[2]string]*Domain{}, byKey: map[string]*Domain{}}
	for _, d := range ds {
		n := [2]string{d.namespace, d.name}
		if _, dup := set.byName[n]; dup {
			return fmt.Errorf("server: HostAuthority %s/%s is served twice", d.namespace, d.name)
		}
		if _, dup := set.byKey[d.key.ID()]; dup {
			return fmt.Errorf("server: two domains share signing key %s", d.key.ID())
		}
		set.byName[n], set.byKey[d.key.ID()] = d, d
	}
	s.set.Store(set)
	return nil
}

// ByName implements Domains.
func (s *StaticDomains) ByName(namespace, name string) (*Domain, bool) {
	set := s.set.Load()
	if set == nil {
		return nil, false
	}
	d, ok := set.byName[[2]string{namespace, name}]
	return d, ok
}

// ByKey implements Domains.
func (s *StaticDomains) ByKey(keyID string) (*Domain, bool) {
	set := s.set.Load()
	if set == nil {
		return nil, false
	}
	d, ok := set.byKey[keyID]
	return d, ok
}

// Len implements Domains.
func (s *StaticDomains) Len() int {
	if set := s.set.Load(); set != nil {
		return len(set.byName)
	}
	return 0
}

// KeyID returns the identity of the domain's signing key, as artifacts name
// it.
func (d *Domain) KeyID() string { return d.key.ID() }
