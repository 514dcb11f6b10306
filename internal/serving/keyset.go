package serving

// Key sets (docs/decisions.md, "Key management"): a domain signs with one
// active key and keeps every earlier key verifying until each artifact it
// signed has expired, so artifacts in flight survive a rotation; a revoked
// key identity verifies nothing at once.
//
// KeyState is the persisted form (the standalone key-set file, the
// cluster's key-set Secret); KeySet is what a Domain acts with. Neither
// returns a private key from an exported method: the only way a seed leaves
// a KeyState is Encode, the bytes written to storage only toolgate reads.

import (
	"bytes"
	"cmp"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/fault"
)

// KeyStateFormat names the persisted form of a KeyState.
const KeyStateFormat = "toolgate.keyset/1"

// KeySet is the keys one domain acts with: at most one active key, which
// signs, and verify-only keys, each verifying until its retire time. A
// revoked identity neither signs nor verifies. A KeySet is immutable: a
// rotation, a retirement or a revocation is a new KeySet (and so a domain
// that is not Same).
type KeySet struct {
	active  *artifact.Key // nil: no key may sign, the domain issues nothing
	keys    map[string]setKey
	revoked map[string]struct{}
	now     func() time.Time
}

type setKey struct {
	key      *artifact.Key
	retireAt time.Time // zero: the active key
}

// ActiveID returns the identity of the key that signs, or "" when none may
// (the active key is revoked).
func (k *KeySet) ActiveID() string {
	if k.active == nil {
		return ""
	}
	return k.active.ID()
}

// IDs returns the identity of every key of the set, revoked ones included
// (so that their artifacts are recognised as revoked, not unknown), sorted.
func (k *KeySet) IDs() []string { return slices.Sorted(maps.Keys(k.keys)) }

// holds reports whether id is a key of the set.
func (k *KeySet) holds(id string) bool { _, ok := k.keys[id]; return ok }

// lookup is the verification key of id: ErrRevokedKey for a revoked
// identity, ErrUnknownKey for one the set does not hold or that has
// reached its retire time.
func (k *KeySet) lookup(id string) (ed25519.PublicKey, error) {
	if err := k.verifies(id); err != nil {
		return nil, err
	}
	return k.keys[id].key.Public(), nil
}

// verifies is lookup's check alone (no public key copied).
func (k *KeySet) verifies(id string) error {
	if _, ok := k.revoked[id]; ok {
		return artifact.ErrRevokedKey
	}
	e, ok := k.keys[id]
	if !ok || (!e.retireAt.IsZero() && !k.now().Before(e.retireAt)) {
		return artifact.ErrUnknownKey
	}
	return nil
}

// ErrNoSigningKey: the domain's active key is revoked and no other key has
// been made active yet; the domain issues nothing until a rotation.
var ErrNoSigningKey = fault.At("signingKey", fault.Ineligible, "the domain's signing key is revoked; rotate the domain's key to issue again")

// KeyState is the persisted key set of one domain: its keys with their
// seeds (keys[0] is the active key, every other one verify-only with its
// retire time), the publisher-attestation key, the domain's stable
// instance, and the last rotation request acted on. It is immutable: every
// change returns a new KeyState.
type KeyState struct {
	instance    string
	rotation    string
	attestation []byte // the publisher-attestation key's seed
	keys        []stateKey
}

type stateKey struct {
	seed     []byte
	key      *artifact.Key
	retireAt time.Time // zero for keys[0]
}

// KeyInfo describes one key of a KeyState. It carries no seed.
type KeyInfo struct {
	ID     string
	Active bool
	// RetireAt is when a verify-only key is removed: every artifact it
	// signed has expired by then. Zero for the active key.
	RetireAt time.Time
}

// NewKeyState returns a key set with one fresh active key and a fresh
// attestation key, both from random. instance names the domain in the
// Consumption store; "" makes it the first key's identity (standalone).
func NewKeyState(random io.Reader, instance string) (*KeyState, error) {
	seed, err := newSeed(random)
	if err != nil {
		return nil, err
	}
	att, err := newSeed(random)
	if err != nil {
		return nil, err
	}
	k, err := newStateKey(seed, time.Time{})
	if err != nil {
		return nil, err
	}
	return &KeyState{instance: cmp.Or(instance, k.key.ID()), attestation: att, keys: []stateKey{k}}, nil
}

// LegacyKeyState is the key set of a domain that had one key, seed: it
// stays the active key, its identity the instance (so existing Consumption
// records keep their domain) and its attestations keep verifying.
func LegacyKeyState(seed []byte) (*KeyState, error) {
	k, err := newStateKey(seed, time.Time{})
	if err != nil {
		return nil, err
	}
	return &KeyState{instance: k.key.ID(), attestation: bytes.Clone(seed), keys: []stateKey{k}}, nil
}

func newSeed(random io.Reader) ([]byte, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(random, seed); err != nil {
		return nil, fmt.Errorf("serving: no randomness for a signing key: %w", err)
	}
	return seed, nil
}

func newStateKey(seed []byte, retireAt time.Time) (stateKey, error) {
	k, err := artifact.NewKey(seed)
	if err != nil {
		return stateKey{}, err
	}
	return stateKey{seed: bytes.Clone(seed), key: k, retireAt: retireAt}, nil
}

// Instance names the domain in the Consumption store; it never changes
// across rotations.
func (s *KeyState) Instance() string { return s.instance }

// Rotation is the last rotation request acted on ("" when none was).
func (s *KeyState) Rotation() string { return s.rotation }

// ActiveID is the identity of the active key.
func (s *KeyState) ActiveID() string { return s.keys[0].key.ID() }

// Keys describes every key, the active key first, then by retire time.
func (s *KeyState) Keys() []KeyInfo {
	out := make([]KeyInfo, len(s.keys))
	for i, k := range s.keys {
		out[i] = KeyInfo{ID: k.key.ID(), Active: i == 0, RetireAt: k.retireAt}
	}
	return out
}

// AttestationPublic is the publisher-attestation verification key.
func (s *KeyState) AttestationPublic() ed25519.PublicKey {
	return ed25519.NewKeyFromSeed(s.attestation).Public().(ed25519.PublicKey)
}

// SignAttestation signs a publisher statement (publisher.Message) with the
// attestation key. The caller builds msg; store.AttestPublisher is the one
// caller.
func (s *KeyState) SignAttestation(msg []byte) []byte {
	return ed25519.Sign(ed25519.NewKeyFromSeed(s.attestation), msg)
}

// Rotate returns the key set with a fresh active key from random: the
// active key becomes verify-only until now + retireAfter (the domain's
// longest Authorization lifetime plus the allowed clock skew, so every
// artifact it signed has expired by then), and request is recorded as the
// rotation acted on.
func (s *KeyState) Rotate(random io.Reader, now time.Time, retireAfter time.Duration, request string) (*KeyState, error) {
	seed, err := newSeed(random)
	if err != nil {
		return nil, err
	}
	k, err := newStateKey(seed, time.Time{})
	if err != nil {
		return nil, err
	}
	old := s.keys[0]
	old.retireAt = now.Add(retireAfter).UTC().Truncate(time.Second).Add(time.Second) // never earlier than now+retireAfter
	c := *s
	c.rotation = request
	c.keys = append([]stateKey{k, old}, s.keys[1:]...)
	c.sortVerifyOnly()
	return &c, nil
}

// WithRotation returns the key set with request recorded as the last
// rotation request acted on, without rotating (a set created while a
// request is present needs no rotation).
func (s *KeyState) WithRotation(request string) *KeyState {
	c := *s
	c.rotation = request
	return &c
}

// Prune returns the key set without the verify-only keys whose retire time
// is at or before now, and whether any was removed.
func (s *KeyState) Prune(now time.Time) (*KeyState, bool) {
	keep := []stateKey{s.keys[0]}
	for _, k := range s.keys[1:] {
		if now.Before(k.retireAt) {
			keep = append(keep, k)
		}
	}
	if len(keep) == len(s.keys) {
		return s, false
	}
	c := *s
	c.keys = keep
	return &c, true
}

// NextRetire is the earliest retire time of a verify-only key.
func (s *KeyState) NextRetire() (time.Time, bool) {
	if len(s.keys) < 2 {
		return time.Time{}, false
	}
	return s.keys[1].retireAt, true // sorted by retire time
}

func (s *KeyState) sortVerifyOnly() {
	slices.SortStableFunc(s.keys[1:], func(a, b stateKey) int { return a.retireAt.Compare(b.retireAt) })
}

// KeySet is the set the domain acts with: every key of s, verify-only keys
// until their retire time read from clock (time.Now when nil), and none of
// the revoked identities; a revoked active key leaves the set without a
// signer (fail closed: the domain issues nothing until a rotation).
func (s *KeyState) KeySet(clock func() time.Time, revoked []string) *KeySet {
	if clock == nil {
		clock = time.Now
	}
	ks := &KeySet{keys: make(map[string]setKey, len(s.keys)), revoked: make(map[string]struct{}, len(revoked)), now: clock}
	for _, id := range revoked {
		ks.revoked[id] = struct{}{}
	}
	for _, k := range s.keys {
		ks.keys[k.key.ID()] = setKey{key: k.key, retireAt: k.retireAt}
	}
	if _, out := ks.revoked[s.keys[0].key.ID()]; !out {
		ks.active = s.keys[0].key
	}
	return ks
}

// ActiveRevoked reports whether the active key's identity is among revoked:
// the domain must rotate before it can issue again.
func (s *KeyState) ActiveRevoked(revoked []string) bool {
	return slices.Contains(revoked, s.ActiveID())
}

// The persisted form. Seeds are base64 (encoding/json's []byte).
type keyStateJSON struct {
	Format      string    `json:"format"`
	Instance    string    `json:"instance"`
	Rotation    string    `json:"rotation,omitempty"`
	Attestation []byte    `json:"attestationSeed"`
	Keys        []keyJSON `json:"keys"`
}

type keyJSON struct {
	ID       string     `json:"id"`
	Seed     []byte     `json:"seed"`
	RetireAt *time.Time `json:"retireAt,omitempty"`
}

// Encode returns the persisted form. It holds every seed: write it only
// where toolgate alone reads (a 0600 file, the manager's own namespace).
func (s *KeyState) Encode() []byte {
	j := keyStateJSON{Format: KeyStateFormat, Instance: s.instance, Rotation: s.rotation, Attestation: s.attestation}
	for i, k := range s.keys {
		kj := keyJSON{ID: k.key.ID(), Seed: k.seed}
		if i > 0 {
			t := k.retireAt
			kj.RetireAt = &t
		}
		j.Keys = append(j.Keys, kj)
	}
	b, _ := json.Marshal(j) // strings, bytes and times always marshal
	return b
}

// ParseKeyState reads the persisted form strictly: the format, a non-empty
// instance, 32-octet seeds whose identities match the recorded ones, no
// identity twice, a retire time on every key but the first. Errors name
// the field, never a value.
func ParseKeyState(b []byte) (*KeyState, error) {
	var j keyStateJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil || dec.More() {
		return nil, fault.At("keySet", fault.Malformed, "the key set is not a toolgate key-set document")
	}
	switch {
	case j.Format != KeyStateFormat:
		return nil, fault.At("keySet.format", fault.Unsupported, "the key set's format is not "+KeyStateFormat)
	case j.Instance == "":
		return nil, fault.At("keySet.instance", fault.Missing, "the key set names no instance")
	case len(j.Attestation) != ed25519.SeedSize:
		return nil, fault.At("keySet.attestationSeed", fault.Malformed, "the attestation seed is 32 octets")
	case len(j.Keys) == 0:
		return nil, fault.At("keySet.keys", fault.Missing, "the key set holds no key")
	}
	s := &KeyState{instance: j.Instance, rotation: j.Rotation, attestation: j.Attestation}
	seen := map[string]bool{}
	for i, kj := range j.Keys {
		at := fmt.Sprintf("keySet.keys[%d]", i)
		var retire time.Time
		switch {
		case i == 0 && kj.RetireAt != nil:
			return nil, fault.At(at+".retireAt", fault.Ineligible, "the active key (the first) has no retire time")
		case i > 0 && kj.RetireAt == nil:
			return nil, fault.At(at+".retireAt", fault.Missing, "a verify-only key needs its retire time")
		case i > 0:
			retire = kj.RetireAt.UTC()
		}
		k, err := newStateKey(kj.Seed, retire)
		if err != nil {
			return nil, fault.At(at+".seed", fault.Malformed, "a seed is 32 octets")
		}
		switch id := k.key.ID(); {
		case id != kj.ID:
			return nil, fault.At(at+".id", fault.Mismatch, "the key identity does not match its seed")
		case seen[id]:
			return nil, fault.At(at+".id", fault.Duplicate, "a key appears twice")
		default:
			seen[id] = true
		}
		s.keys = append(s.keys, k)
	}
	s.sortVerifyOnly()
	return s, nil
}
