package store

import (
	"cmp"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/engine/policy"
	"github.com/toolgate/toolgate/internal/engine/registry"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/serving"
)

// Kind names what a served entry is.
type Kind string

// Entry kinds.
const (
	KindRegistry Kind = "ToolRegistry"
	KindPolicy   Kind = "PolicySnapshot"
)

// Key names one served snapshot exactly: the namespace and HostAuthority of
// its domain, its snapshot identity and its generation (decimal text).
type Key struct {
	Namespace  string
	Authority  string
	ID         string
	Generation string
}

// Entry is one served snapshot, as listed by Served.
type Entry struct {
	Kind   Kind
	Key    Key
	Object string // the name of the object it came from
	Digest string // "sha256:<hex>"
	Domain string // the domain's UID
}

// DomainInfo describes one domain the store serves. It carries no
// privilege: the public key verifies, it never signs.
type DomainInfo struct {
	Namespace, Name string
	// UID is the HostAuthority object's UID; KeyID is the hex SHA-256 of
	// the domain's publisher-attestation public key, PublicKey that key
	// (artifact keys rotate; the attestation key is the domain's for life).
	UID, KeyID string
	PublicKey  ed25519.PublicKey
	// SigningKeyID is the identity of the active artifact signing key.
	SigningKeyID string
	// AuthorityDigest is the Host Authority content digest.
	AuthorityDigest string
}

// DomainSpec is everything one domain is built from.
type DomainSpec struct {
	Namespace, Name, UID string
	// Keys is the domain's key set (from its key-set Secret): artifact
	// signing keys and the publisher-attestation key.
	Keys *serving.KeyState
	// Revoked are key identities that verify nothing and never sign.
	Revoked []string
	Config  host.Config
	// Grace is the HostAuthority's superseded-generation grace (zero: the
	// current generation only).
	Grace serving.Grace
}

// Errors a writer reports in addition to the engine's faults. They are
// stable reasons: the controllers map them to WaitingForDependency.
var (
	// ErrNoDomain: the referenced HostAuthority is not served (absent,
	// rejected, or without its signing key yet).
	ErrNoDomain = fault.At("spec.hostAuthorityRef.name", fault.NotFound, "the referenced HostAuthority is not ready in this namespace")
	// ErrNoPredecessor: generation n > 1 waits until generation n−1 of the
	// same snapshot identity is served in the same domain.
	ErrNoPredecessor = fault.At("spec.snapshotGeneration", fault.NotFound, "the previous generation of this policy snapshot is not ready")
	// ErrDomainChanged: the domain was replaced (a new UID or key) while the
	// caller worked on the old one.
	ErrDomainChanged = fault.At("spec.hostAuthorityRef.name", fault.Mismatch, "the referenced HostAuthority was replaced; publish again in the new domain")
)

type domainRef struct{ ns, name string }

type snapKey struct{ id, gen string }

type served[T any] struct {
	snap    T
	object  string
	digest  string
	created time.Time // the object's creationTimestamp: when it superseded its predecessor
	// shadow is set for a policy generation published as a shadow
	// (docs/shadow.md): held, so the next generation can succeed it, but
	// served as a shadow, never as a selectable generation.
	shadow *publication.Shadow
}

type domain struct {
	info       DomainInfo
	host       *host.Host
	keys       *serving.KeyState
	keysFrom   string          // the key state and revocations the serving domain was built from
	serving    *serving.Domain // the authorization service's view
	registries map[snapKey]served[*registry.Snapshot]
	policies   map[snapKey]served[*policy.Snapshot]
	grace      serving.Grace
	// view is the served state requests read (serving.Served); nil on a
	// domain a writer changed, and rebuilt by update before it is stored.
	view *serving.Served
}

// registryObject is one accepted ToolRegistry of a namespace: its draft is
// published into every domain of the namespace, including later ones.
type registryObject struct {
	draft   host.RegistryDraft
	key     snapKey
	created time.Time
}

type state struct {
	domains map[domainRef]*domain
	// registries: namespace → object name → accepted draft.
	registries map[string]map[string]registryObject
	// revoked: the revocations each domain (by namespace and HostAuthority
	// name) has received. They only grow: a deleted Revocation object, or
	// a replaced domain, withdraws nothing.
	revoked map[domainRef]*serving.Revocations
}

// Store is the snapshot store. The zero value is not usable; use New.
type Store struct {
	mu    sync.Mutex // serializes writers; readers never take it
	state atomic.Pointer[state]
	// OnChange, when set before use, is called after every write with the
	// number of served registry and policy snapshots (for metrics).
	OnChange func(registries, policies int)
}

// New returns an empty store.
func New() *Store {
	s := &Store{}
	s.state.Store(&state{domains: map[domainRef]*domain{}, registries: map[string]map[string]registryObject{}, revoked: map[domainRef]*serving.Revocations{}})
	return s
}

func (s *Store) load() *state { return s.state.Load() }

// update runs f on a copy of the state and swaps it in atomically.
func (s *Store) update(f func(*state) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.load()
	next := &state{domains: maps.Clone(old.domains), registries: maps.Clone(old.registries), revoked: maps.Clone(old.revoked)}
	if err := f(next); err != nil {
		return err
	}
	for ref, d := range next.domains {
		if d.view == nil {
			d.view = next.view(ref, d)
		}
	}
	s.state.Store(next)
	if s.OnChange != nil {
		r, p := next.counts()
		s.OnChange(r, p)
	}
	return nil
}

func (st *state) counts() (registries, policies int) {
	for _, d := range st.domains {
		registries += len(d.registries)
		policies += len(d.policies)
	}
	return registries, policies
}

// clone copies d with fresh maps, so a writer can change the copy; its
// served state is rebuilt when the update stores it.
func (d *domain) clone() *domain {
	c := *d
	c.registries = maps.Clone(d.registries)
	c.policies = maps.Clone(d.policies)
	c.view = nil
	return &c
}

// view builds the served state of d, the domain at ref: its served
// generations with their creation times, its grace and the revocations
// of ref.
func (st *state) view(ref domainRef, d *domain) *serving.Served {
	var regs, pols []serving.Generation
	for k, e := range d.registries {
		regs = append(regs, serving.GenerationOf(k.id, k.gen, e.created))
	}
	var shadows []serving.Shadow
	for k, e := range d.policies {
		if e.shadow != nil {
			shadows = append(shadows, serving.Shadow{ID: k.id, Generation: k.gen, Of: e.shadow.Of, Until: e.shadow.Until})
			continue
		}
		pols = append(pols, serving.GenerationOf(k.id, k.gen, e.created))
	}
	return serving.NewServed(d.grace, regs, pols, st.revoked[ref]).WithShadows(shadows...)
}

// editDomains replaces each domain of namespace by edit's result; edit
// returns nil to keep a domain unchanged. Domains are copy-on-write: edit
// must return a clone, never modify d.
func (st *state) editDomains(namespace string, edit func(d *domain) *domain) {
	for ref, d := range st.domains {
		if ref.ns != namespace {
			continue
		}
		if e := edit(d); e != nil {
			st.domains[ref] = e
		}
	}
}

// withoutObject returns a copy of m without the snapshots served for the
// object, and whether there were any (m itself, unchanged, when not).
func withoutObject[T any](m map[snapKey]served[T], object string) (map[snapKey]served[T], bool) {
	var out map[snapKey]served[T]
	for k, e := range m {
		if e.object != object {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		delete(out, k)
	}
	if out == nil {
		return m, false
	}
	return out, true
}

func keyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:])
}

// EnsureDomain serves the domain spec describes. When the store already
// serves a domain for the same namespace and name with the same UID and
// attestation key, it is kept: a changed key set (a rotation, a retired or
// revoked key) only replaces the keys it acts with, everything published
// stays (replaced is false). Otherwise a fresh Host is built: a new
// domain, into which every accepted ToolRegistry of the namespace is
// published, and every snapshot of the previous domain leaves the store. A
// Config the Host rejects removes the domain and returns the rejection.
func (s *Store) EnsureDomain(spec DomainSpec) (info DomainInfo, replaced bool, err error) {
	if spec.Keys == nil {
		return DomainInfo{}, false, fault.At("signingKey", fault.Missing, "the domain has no key set")
	}
	pub := spec.Keys.AttestationPublic()
	keysFrom := keysDigest(spec.Keys, spec.Revoked)
	ks := spec.Keys.KeySet(nil, spec.Revoked)
	ref := domainRef{spec.Namespace, spec.Name}
	err = s.update(func(st *state) error {
		if d, ok := st.domains[ref]; ok && d.info.UID == spec.UID && d.info.KeyID == keyID(pub) {
			if d.keysFrom == keysFrom && d.grace == spec.Grace {
				info = d.info
				return errUnchanged
			}
			sd, err := d.serving.WithKeys(ks)
			if err != nil {
				return err
			}
			c := d.clone()
			c.keys, c.keysFrom, c.serving, c.grace = spec.Keys, keysFrom, sd, spec.Grace
			c.info.SigningKeyID = ks.ActiveID()
			st.domains[ref] = c
			info = c.info
			return nil
		}
		delete(st.domains, ref)
		cfg := spec.Config
		cfg.Instance = spec.UID // a recreated HostAuthority never rebuilds the old one's artifacts
		h, err := host.New(cfg)
		if err != nil {
			return err
		}
		serving, err := serving.NewDomain(spec.Namespace, spec.Name, spec.UID, h, ks)
		if err != nil {
			return err
		}
		d := &domain{
			info: DomainInfo{
				Namespace: spec.Namespace, Name: spec.Name, UID: spec.UID, KeyID: keyID(pub),
				PublicKey: pub, SigningKeyID: ks.ActiveID(), AuthorityDigest: h.Authority().Digest().String(),
			},
			host:       h,
			keys:       spec.Keys,
			keysFrom:   keysFrom,
			serving:    serving.WithState(s.stateOf(ref, spec.UID)),
			registries: map[snapKey]served[*registry.Snapshot]{},
			policies:   map[snapKey]served[*policy.Snapshot]{},
			grace:      spec.Grace,
		}
		for _, name := range slices.Sorted(maps.Keys(st.registries[spec.Namespace])) {
			ro := st.registries[spec.Namespace][name]
			if snap, err := h.PublishRegistry(ro.draft); err == nil {
				d.registries[ro.key] = served[*registry.Snapshot]{snap, name, snap.Digest().String(), ro.created, nil}
			}
		}
		st.domains[ref] = d
		info, replaced = d.info, true
		return nil
	})
	if err == errUnchanged {
		return info, false, nil
	}
	if err != nil {
		// The rejected domain must not stay served.
		s.RemoveDomain(spec.Namespace, spec.Name)
	}
	return info, replaced, err
}

// keysDigest identifies a key state together with the revocations applied
// to it: equal digests build equal key sets.
func keysDigest(k *serving.KeyState, revoked []string) string {
	h := sha256.New()
	h.Write(k.Encode())
	for _, id := range slices.Sorted(slices.Values(revoked)) {
		h.Write([]byte("\n" + id))
	}
	return hex.EncodeToString(h.Sum(nil))
}

var errUnchanged = fault.New(fault.Duplicate, "unchanged")

// RemoveDomain stops serving the domain of namespace/name and everything
// published in it.
func (s *Store) RemoveDomain(namespace, name string) {
	_ = s.update(func(st *state) error {
		delete(st.domains, domainRef{namespace, name})
		return nil
	})
}

// PutRegistry accepts the ToolRegistry object namespace/object: it validates
// d with the engine's complete publication rules and publishes it into every
// domain of the namespace (and into every later one). It returns the
// snapshot's content digest. A domain whose Host already holds other content
// under the same identity and generation rejects it (fault.Mismatch); the
// registry is then not served in that domain and the rejection is returned.
// created is the object's creation time: when it superseded its
// predecessor generation (HostAuthority spec.supersededGrace). Each
// domain's Host checks d's argument profiles against their definitions
// when it publishes d (host.CheckProfileBinding).
func (s *Store) PutRegistry(namespace, object string, d host.RegistryDraft, created time.Time) (string, error) {
	snap, err := registry.Publish(d.Draft)
	if err != nil {
		return "", err
	}
	k := snapKey{snap.ID().String(), snap.Generation().String()}
	var errs fault.Errors
	err = s.update(func(st *state) error {
		objs := maps.Clone(st.registries[namespace])
		if objs == nil {
			objs = map[string]registryObject{}
		}
		objs[object] = registryObject{draft: d, key: k, created: created}
		st.registries[namespace] = objs
		for _, ref := range sortedRefs(st.domains) {
			if ref.ns != namespace {
				continue
			}
			dom := st.domains[ref].clone()
			held, err := dom.host.PublishRegistry(d)
			if err != nil {
				errs.Add("", err)
				continue
			}
			dom.registries[k] = served[*registry.Snapshot]{held, object, held.Digest().String(), created, nil}
			st.domains[ref] = dom
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return snap.Digest().String(), errs.Err()
}

// RemoveRegistry stops serving the ToolRegistry object namespace/object in
// every domain of the namespace.
func (s *Store) RemoveRegistry(namespace, object string) {
	_ = s.update(func(st *state) error {
		if objs, ok := st.registries[namespace]; ok {
			objs = maps.Clone(objs)
			delete(objs, object)
			st.registries[namespace] = objs
		}
		st.editDomains(namespace, func(d *domain) *domain {
			regs, ok := withoutObject(d.registries, object)
			if !ok {
				return nil
			}
			c := d.clone()
			c.registries = regs
			return c
		})
		return nil
	})
}

// PutPolicy publishes the PolicySnapshot o in the domain of its namespace
// and spec.hostAuthorityRef, whose UID must be domainUID, on behalf of
// publisher, through the one publication path (publication.Policy): the
// Host's publication and successor rules, every violation at its object
// path. The store adds one rule of its own: generation n > 1 waits until
// generation n−1 is served in the same domain (ErrNoPredecessor), not merely
// held by the Host, so a withdrawn generation is never succeeded. An absent
// domain is ErrNoDomain, a replaced one ErrDomainChanged. It returns the
// snapshot's content digest.
func (s *Store) PutPolicy(domainUID string, publisher host.Caller, o *v1alpha1.PolicySnapshot) (string, error) {
	var digest string
	err := s.update(func(st *state) error {
		ref := domainRef{o.Namespace, string(o.Spec.HostAuthorityRef.Name)}
		dom, ok := st.domains[ref]
		switch {
		case !ok:
			return ErrNoDomain
		case dom.info.UID != domainUID:
			return ErrDomainChanged
		}
		id, gen := string(o.Spec.SnapshotID), string(o.Spec.SnapshotGeneration)
		if e, ok := dom.policies[snapKey{id, gen}]; ok && e.object == o.Name {
			digest = e.digest // already served: a deleted predecessor does not withdraw it
			return errUnchanged
		}
		if p, ok := publication.Previous(o); ok {
			if _, ok := dom.policies[snapKey{id, p}]; !ok {
				return ErrNoPredecessor
			}
		}
		sh, isShadow, err := publication.ShadowOf(o)
		if err != nil {
			return err
		}
		snap, err := publication.Policy(dom.host, publisher, o)
		if err != nil {
			return err
		}
		dom = dom.clone()
		digest = snap.Digest().String()
		e := served[*policy.Snapshot]{snap, o.Name, digest, o.CreationTimestamp.Time, nil}
		if isShadow {
			e.shadow = &sh
		}
		dom.policies[snapKey{snap.ID().String(), snap.Generation().String()}] = e
		st.domains[ref] = dom
		return nil
	})
	if err == errUnchanged {
		err = nil
	}
	return digest, err
}

// RemovePolicy stops serving the PolicySnapshot object namespace/object.
func (s *Store) RemovePolicy(namespace, object string) {
	_ = s.update(func(st *state) error {
		st.editDomains(namespace, func(d *domain) *domain {
			pols, ok := withoutObject(d.policies, object)
			if !ok {
				return nil
			}
			c := d.clone()
			c.policies = pols
			return c
		})
		return nil
	})
}

func sortedRefs(m map[domainRef]*domain) []domainRef {
	refs := slices.Collect(maps.Keys(m))
	slices.SortFunc(refs, func(a, b domainRef) int { return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.name, b.name)) })
	return refs
}

// PutRevocation puts r in force in the domain of the HostAuthority
// namespace/authority, now and in every later domain of that name. The set
// only grows: nothing withdraws a revocation from a running store.
func (s *Store) PutRevocation(namespace, authority string, r serving.Revocation) {
	ref := domainRef{namespace, authority}
	_ = s.update(func(st *state) error {
		if st.revoked[ref].Has(r) {
			return errUnchanged
		}
		st.revoked[ref] = st.revoked[ref].With(r)
		if d, ok := st.domains[ref]; ok {
			st.domains[ref] = d.clone()
		}
		return nil
	})
}

// Revoked reports whether r is in force in the domain namespace/authority.
func (s *Store) Revoked(namespace, authority string, r serving.Revocation) bool {
	return s.load().revoked[domainRef{namespace, authority}].Has(r)
}

// RevokedKeyIDs returns the signing-key identities revoked in the domain
// namespace/authority, sorted.
func (s *Store) RevokedKeyIDs(namespace, authority string) []string {
	return s.load().revoked[domainRef{namespace, authority}].KeyIDs()
}
