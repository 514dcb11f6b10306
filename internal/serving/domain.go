// Package serving holds the served domains a replica holds: each Host
// authority domain the authorization service decides in, with the domain's
// signing key and its served state — which generations it serves and
// which is current, and the revocations in force (spec Section 41:
// rollback protection, revocation and current-Snapshot enforcement) — and
// the set of domains looked up by HostAuthority name and by key identity. It sits below internal/server, internal/store and
// internal/standalone: the store and the standalone loader build domains,
// the server acts with them, and neither of the first two needs the HTTP
// package.
//
// Privilege is a value only its owner holds: a Domain's Host and key are
// unexported and no exported method returns them. The server acts through
// Domain's methods — Authorize (which seals only what the Host issued),
// Open (which verifies an envelope with the set's keys), CheckExecutor,
// Rebuild and the validations — so a caller of this package can do with a
// domain exactly what the service does, and nothing more.
package serving

import (
	"crypto/ed25519"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
)

// Domain is one Host authority domain the service serves: the Host façade
// of one HostAuthority object and the domain's signing key. Its fields are
// unexported: only its methods act with them.
type Domain struct {
	namespace, name string
	instance        string // the Consumption store's domain key
	host            *host.Host
	key             *artifact.Key
	state           func() *Served // nil: nothing is served (fail closed)
}

// Selection names the exact snapshots one request decides on.
type Selection struct {
	RegistryID, RegistryGeneration string
	PolicyID, PolicyGeneration     string
}

// NewDomain serves h, the Host of the HostAuthority namespace/name, signing
// with key. instance names the domain in the Consumption store (the
// HostAuthority UID in a cluster, the key identity standalone).
func NewDomain(namespace, name, instance string, h *host.Host, key *artifact.Key) (*Domain, error) {
	if h == nil || key == nil || instance == "" {
		return nil, fmt.Errorf("serving: domain %s/%s needs a host, a key and an instance", namespace, name)
	}
	return &Domain{namespace: namespace, name: name, instance: instance, host: h, key: key}, nil
}

// WithState returns d whose served state, read at request time, is
// state's result: the generations it serves and the revocations in force.
// A store that withdraws a snapshot (its object was deleted) stops serving
// it although the Host still holds it as a predecessor. A domain without
// a state serves nothing.
func (d *Domain) WithState(state func() *Served) *Domain {
	c := *d
	c.state = state
	return &c
}

// served returns the state in force; a domain without one serves nothing.
func (d *Domain) served() *Served {
	if d.state != nil {
		if s := d.state(); s != nil {
			return s
		}
	}
	return NewServed(Grace{}, nil, nil, nil)
}

// Selectable reports, as a *Refusal, whether a new Authorization may select
// sel at now: both generations served, not revoked, and current or within
// the domain's grace (see Served.Selectable).
func (d *Domain) Selectable(sel Selection, now time.Time) error {
	return d.served().Selectable(sel, now)
}

// Standing reports, as a *Refusal, whether the Authorization a, signed by
// the domain's key keyID, may still validate and consume (see
// Served.Standing).
func (d *Domain) Standing(a *host.Authorization, keyID string) error {
	return d.served().Standing(a, keyID)
}

// Namespace and Name name the domain's HostAuthority object.
func (d *Domain) Namespace() string { return d.namespace }

// Name is the HostAuthority object's name.
func (d *Domain) Name() string { return d.name }

// Instance names the domain in the Consumption store.
func (d *Domain) Instance() string { return d.instance }

// KeyID returns the identity of the domain's signing key, as artifacts name
// it.
func (d *Domain) KeyID() string { return d.key.ID() }

// Same reports whether d and o act with the same Host and the same signing
// key: what one verified and rebuilt, the other would verify and rebuild
// identically (the rebuild cache's validity). A domain reloaded with a new
// Host or key is not the same.
func (d *Domain) Same(o *Domain) bool { return o != nil && d.host == o.host && d.key == o.key }

// Authorize runs r in the domain's Host and, when it issues an
// Authorization, returns the artifact: the Host's portable issuance record
// sealed with the domain's key. Only a record this Host produced is ever
// signed: the package offers no way to sign other bytes.
func (d *Domain) Authorize(r host.AuthorizeRequest) (res *host.Result, envelope string, err error) {
	res, err = d.host.Authorize(r)
	if err != nil {
		return nil, "", err
	}
	if res.Authorization != nil {
		envelope = d.key.Seal(res.Portable)
	}
	return res, envelope, nil
}

// CheckExecutor rejects a caller that is not one of the domain's executors
// (fault.Unauthorized at "caller"; see host.Host.CheckExecutor).
func (d *Domain) CheckExecutor(c host.Caller) error { return d.host.CheckExecutor(c) }

// Rebuild re-runs, in the domain's Host, the issuance of a record that
// this domain's key verified (see host.Host.Rebuild). A record verified by
// another key rejects (fault.MixedDomain) before any work.
func (d *Domain) Rebuild(v artifact.Verified) (*host.Authorization, error) {
	if v.KeyID() != d.key.ID() {
		return nil, fault.New(fault.MixedDomain, "the artifact was signed by another domain's key")
	}
	return d.host.Rebuild(v)
}

// Validate checks a against the executor's expectations at the explicit
// time at (see host.Host.Validate).
func (d *Domain) Validate(c host.Caller, a *host.Authorization, exp host.Expectations, at uint64) (*host.ConsumptionBinding, error) {
	return d.host.Validate(c, a, exp, at)
}

// ValidateForConsumption is Validate immediately before a Consumption (see
// host.Host.ValidateForConsumption).
func (d *Domain) ValidateForConsumption(c host.Caller, a *host.Authorization, exp host.Expectations, at uint64) (*host.ConsumptionBinding, error) {
	return d.host.ValidateForConsumption(c, a, exp, at)
}

// Domains is the set of domains a replica serves. Lookups are by exact
// HostAuthority name and by signing-key identity.
type Domains interface {
	ByName(namespace, name string) (*Domain, bool)
	ByKey(keyID string) (*Domain, bool)
	// Len is the number of domains served (readiness needs at least one).
	Len() int
}

// Open verifies envelope with the key of the domain in ds that its header
// names and returns that domain and the verified record; every failure is
// one of artifact's errors. It is the first step of a validate or consume:
// open the envelope → resolve the domain → check the executor role →
// rebuild → validate.
func Open(ds Domains, envelope string) (*Domain, artifact.Verified, error) {
	var d *Domain // the domain whose key the envelope names
	v, err := artifact.Open(envelope, func(keyID string) (ed25519.PublicKey, bool) {
		found, ok := ds.ByKey(keyID)
		if !ok {
			return nil, false
		}
		d = found
		return found.key.Public(), true
	})
	if err != nil {
		return nil, artifact.Verified{}, err
	}
	return d, v, nil
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
			return fmt.Errorf("serving: HostAuthority %s/%s is served twice", d.namespace, d.name)
		}
		if _, dup := set.byKey[d.key.ID()]; dup {
			return fmt.Errorf("serving: two domains share signing key %s", d.key.ID())
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
