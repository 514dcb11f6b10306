// Package serving holds the served domains a replica holds: each Host
// authority domain the authorization service decides in, with the domain's
// key set (keyset.go: one active signing key, verify-only keys until their
// retire time, revoked identities; docs/decisions.md, "Key management") and
// its served state — which generations it serves and which is current, and
// the revocations in force (spec Section 41: rollback protection, revocation
// and current-Snapshot enforcement) — and the set of domains looked up by
// HostAuthority name and by key identity. It sits below internal/server,
// internal/store and internal/standalone: the store and the standalone
// loader build domains, the server acts with them, and neither of the first
// two needs the HTTP package.
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
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
)

// Domain is one Host authority domain the service serves: the Host façade
// of one HostAuthority object and the domain's key set. Its fields are
// unexported: only its methods act with them.
type Domain struct {
	namespace, name string
	instance        string // the Consumption store's domain key
	host            *host.Host
	keys            *KeySet
	state           func() *Served // nil: nothing is served (fail closed)
}

// Selection names the exact snapshots one request decides on: the
// registry and the policy snapshot (PolicyID, PolicyGeneration) and, for
// Domain.Select, the Policy Definition version in it (DefinitionID,
// DefinitionGeneration). Any generation may be host.Current before
// Domain.Select resolves it.
type Selection struct {
	RegistryID, RegistryGeneration     string
	PolicyID, PolicyGeneration         string
	DefinitionID, DefinitionGeneration string
}

// NewDomain serves h, the Host of the HostAuthority namespace/name, with
// the key set keys. instance names the domain in the Consumption store (the
// HostAuthority UID in a cluster, the key set's instance standalone); it
// stays the same across rotations.
func NewDomain(namespace, name, instance string, h *host.Host, keys *KeySet) (*Domain, error) {
	if h == nil || keys == nil || len(keys.keys) == 0 || instance == "" {
		return nil, fmt.Errorf("serving: domain %s/%s needs a host, a key set and an instance", namespace, name)
	}
	return &Domain{namespace: namespace, name: name, instance: instance, host: h, keys: keys}, nil
}

// WithKeys returns d acting with keys instead: the same Host, snapshots and
// instance (a rotation, a retirement or a revocation is not a new domain).
func (d *Domain) WithKeys(keys *KeySet) (*Domain, error) {
	if keys == nil || len(keys.keys) == 0 {
		return nil, fmt.Errorf("serving: domain %s/%s needs a key set", d.namespace, d.name)
	}
	c := *d
	c.keys = keys
	return &c, nil
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

// Selectable reports, as a *RefusalError, whether a new Authorization may select
// sel at now: both generations served, not revoked, and current or within
// the domain's grace (see Served.Selectable).
func (d *Domain) Selectable(sel Selection, now time.Time) error {
	return d.served().Selectable(sel, now)
}

// Select makes the Host's selection for a new Authorization at now, on
// one reading of the served state: each snapshot generation that is
// host.Current becomes the highest generation the domain serves under its
// identity, a definition generation that is host.Current the active
// version of DefinitionID in the selected policy snapshot
// (host.Host.ActivePolicy); then the result is checked as Selectable
// checks it. It returns the exact selection, which the request then
// carries into the Host, so the Decision and the Authorization bind it.
// A served-state refusal is a *RefusalError (an identity with no served
// generation is NotServed; a current generation that is revoked is
// Revoked, never an older one instead); an unresolvable definition is
// the Host's *fault.Error at "policy.…".
func (d *Domain) Select(sel Selection, now time.Time) (Selection, error) {
	s := d.served()
	if sel.RegistryGeneration == host.Current {
		g, ok := s.current(s.registries, sel.RegistryID)
		if !ok {
			return Selection{}, &RefusalError{Reason: NotServed, Path: "registry"}
		}
		sel.RegistryGeneration = g
	}
	if sel.PolicyGeneration == host.Current {
		g, ok := s.current(s.policies, sel.PolicyID)
		if !ok {
			return Selection{}, &RefusalError{Reason: NotServed, Path: "policy"}
		}
		sel.PolicyGeneration = g
	}
	if err := s.Selectable(sel, now); err != nil {
		return Selection{}, err
	}
	if sel.DefinitionGeneration == host.Current {
		g, err := d.host.ActivePolicy(sel.PolicyID, sel.PolicyGeneration, sel.DefinitionID)
		if err != nil {
			return Selection{}, fault.Within("policy", err)
		}
		sel.DefinitionGeneration = g
	}
	return sel, nil
}

// Current is what one domain serves as current at one reading of its
// served state: the current generation of every registry and policy
// snapshot identity, and the active version of every policy in each
// current policy snapshot generation. Lists are in identity order.
type Current struct {
	Registries []CurrentSnapshot
	Policies   []CurrentPolicy
}

// CurrentSnapshot is the current generation of one snapshot identity.
type CurrentSnapshot struct{ ID, Generation string }

// CurrentPolicy is the current generation of one policy snapshot identity
// and the active version of each policy in it.
type CurrentPolicy struct {
	CurrentSnapshot
	Active []host.PolicyVersion
}

// Current reports what the domain serves as current: what a selection of
// host.Current resolves to at this moment (revoked generations included:
// a current generation that is revoked is refused, not skipped).
func (d *Domain) Current() Current {
	s := d.served()
	var out Current
	for _, id := range slices.Sorted(maps.Keys(s.registries)) {
		if g, ok := s.current(s.registries, id); ok {
			out.Registries = append(out.Registries, CurrentSnapshot{ID: id, Generation: g})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.policies)) {
		g, ok := s.current(s.policies, id)
		if !ok {
			continue
		}
		active, _ := d.host.ActivePolicies(id, g) // served generations are held; none listed otherwise
		out.Policies = append(out.Policies, CurrentPolicy{CurrentSnapshot: CurrentSnapshot{ID: id, Generation: g}, Active: active})
	}
	return out
}

// CanRead reports whether c may read what the domain serves as current:
// a caller that holds any of the domain's protocol roles or is one of its
// executors.
func (d *Domain) CanRead(c host.Caller) bool { return d.host.HoldsAnyRole(c) || d.host.IsExecutor(c) }

// Standing reports, as a *RefusalError, whether the Authorization a, signed by
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

// KeyID returns the identity of the domain's active signing key, as
// artifacts name it, or "" when its active key is revoked.
func (d *Domain) KeyID() string { return d.keys.ActiveID() }

// HasKey reports whether id is a key of the domain's set, revoked and
// retired ones included (the lookup then says which).
func (d *Domain) HasKey(id string) bool { return d.keys.holds(id) }

// Same reports whether d and o act with the same Host and the same key
// set: what one verified and rebuilt, the other would verify and rebuild
// identically (the rebuild cache's validity). A domain reloaded with a new
// Host, rotated, or with a key retired or revoked is not the same.
func (d *Domain) Same(o *Domain) bool { return o != nil && d.host == o.host && d.keys == o.keys }

// Authorize runs r in the domain's Host and, when it issues an
// Authorization, returns the artifact: the Host's portable issuance record
// sealed with the domain's active key. Only a record this Host produced is
// ever signed: the package offers no way to sign other bytes. A domain
// whose active key is revoked rejects every request (ErrNoSigningKey)
// before deciding: it never signs with a revoked key.
func (d *Domain) Authorize(r host.AuthorizeRequest) (res *host.Result, envelope string, err error) {
	signer := d.keys.active
	if signer == nil {
		return nil, "", ErrNoSigningKey
	}
	res, err = d.host.Authorize(r)
	if err != nil {
		return nil, "", err
	}
	if res.Authorization != nil {
		envelope = signer.Seal(res.Portable)
	}
	return res, envelope, nil
}

// CheckExecutor rejects a caller that is not one of the domain's executors
// (fault.Unauthorized at "caller"; see host.Host.CheckExecutor).
func (d *Domain) CheckExecutor(c host.Caller) error { return d.host.CheckExecutor(c) }

// Rebuild re-runs, in the domain's Host, the issuance of a record that
// one of this domain's keys verified (see host.Host.Rebuild). A record
// verified by another domain's key rejects (fault.MixedDomain), and one
// whose key is revoked or retired by now (fault.Ineligible), before any
// work.
func (d *Domain) Rebuild(v artifact.Verified) (*host.Authorization, error) {
	if !d.keys.holds(v.KeyID()) {
		return nil, fault.New(fault.MixedDomain, "the artifact was signed by another domain's key")
	}
	if err := d.keys.verifies(v.KeyID()); err != nil {
		return nil, fault.New(fault.Ineligible, "the artifact's signing key is revoked or retired")
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
// HostAuthority name and by the identity of any key of a domain's set.
type Domains interface {
	ByName(namespace, name string) (*Domain, bool)
	ByKey(keyID string) (*Domain, bool)
	// Len is the number of domains served (readiness needs at least one).
	Len() int
}

// Open verifies envelope with the key of the domain in ds that its header
// names and returns that domain and the verified record; every failure is
// one of artifact's errors (ErrRevokedKey for a revoked key, ErrUnknownKey
// for one no domain holds or that has reached its retire time). It is the first step of a validate or consume:
// open the envelope → resolve the domain → check the executor role →
// rebuild → validate.
func Open(ds Domains, envelope string) (*Domain, artifact.Verified, error) {
	var d *Domain // the domain whose key the envelope names
	v, err := artifact.OpenKey(envelope, func(keyID string) (ed25519.PublicKey, error) {
		found, ok := ds.ByKey(keyID)
		if !ok {
			return nil, artifact.ErrUnknownKey
		}
		d = found
		return found.keys.lookup(keyID)
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
// key identity (of any key of their sets) reject, and the set in force is
// kept.
func (s *StaticDomains) Replace(ds ...*Domain) error {
	set := &domainSet{byName: map[[2]string]*Domain{}, byKey: map[string]*Domain{}}
	for _, d := range ds {
		n := [2]string{d.namespace, d.name}
		if _, dup := set.byName[n]; dup {
			return fmt.Errorf("serving: HostAuthority %s/%s is served twice", d.namespace, d.name)
		}
		set.byName[n] = d
		for _, id := range d.keys.IDs() {
			if _, dup := set.byKey[id]; dup {
				return fmt.Errorf("serving: two domains share signing key %s", id)
			}
			set.byKey[id] = d
		}
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
