// Package standalone runs toolgate without a cluster: it loads the same
// manifests the admission webhook checks from a directory, creates one
// Host authority domain per HostAuthority with a key set kept in a state
// directory (rotation and migration: keys.go), and hands
// the domains to the authorization service.
package standalone

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/store"
)

// Load reads the manifests at paths and returns one domain per
// HostAuthority, each with every ToolRegistry of its namespace and every
// PolicySnapshot generation that references it published. Each domain's
// key set comes from keyDir (<namespace>.<name>.keyset.json, mode 0600; see
// UpdateKeys), created there when absent and migrated from a legacy
// <namespace>.<name>.ed25519 seed; keys past their retire time are removed.
// A domain's store identity is its key set's instance, which rotations
// keep.
//
// Each domain serves, as current, the highest generation of each snapshot
// identity (a manifest without a creationTimestamp counts as created at
// load time, for the HostAuthority's supersededGrace), and enforces every
// Revocation of the manifests and of the revocation ledger (LedgerFile, in
// the parent of keyDir), to which the manifests' Revocations are added
// first: a Revocation removed from the directory stays in force. A revoked
// signing key verifies nothing and never signs.
func Load(keyDir string, paths ...string) ([]*serving.Domain, error) {
	return LoadAt(keyDir, time.Now, paths...)
}

// LoadAt is Load with the clock that prunes retired keys and retires
// verify-only keys while the domains serve.
func LoadAt(keyDir string, clock func() time.Time, paths ...string) ([]*serving.Domain, error) {
	set, err := manifest.LoadPaths(paths...)
	if err != nil {
		return nil, err
	}
	if len(set.HostAuthorities) == 0 {
		return nil, errors.New("no HostAuthority objects found")
	}
	if err := os.MkdirAll(keyDir, 0o700); err != nil {
		return nil, err
	}
	revoked, err := revocations(filepath.Join(filepath.Dir(keyDir), LedgerFile), set)
	if err != nil {
		return nil, err
	}
	loaded := clock()
	var out []*serving.Domain
	for i := range set.HostAuthorities {
		o := &set.HostAuthorities[i]
		where := fmt.Sprintf("HostAuthority %s/%s", o.Namespace, o.Name)
		keys, err := UpdateKeys(keyDir, o.Namespace, o.Name, true, clock(), func(k *serving.KeyState) (*serving.KeyState, error) { return k, nil })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		a, err := publication.HostAuthority(o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		cfg := a.Config
		cfg.Instance = keys.Instance()
		h, err := host.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, fault.Within("spec", err))
		}
		admin, _ := manifest.AdministratorOf(o)
		if err := publication.Into(set, h, o.Namespace, o.Name, admin); err != nil {
			return nil, err
		}
		rev := revoked[[2]string{o.Namespace, o.Name}]
		d, err := serving.NewDomain(o.Namespace, o.Name, keys.Instance(), h, keys.KeySet(clock, rev.KeyIDs()))
		if err != nil {
			return nil, err
		}
		st, err := served(set, o, serving.Grace(a.Grace), rev, loaded)
		if err != nil {
			return nil, err
		}
		out = append(out, d.WithState(func() *serving.Served { return st }))
	}
	return out, nil
}

// Rotate makes a fresh key the active key of the domain of the
// HostAuthority namespace/name in manifests: the old active key verifies
// until every artifact it signed has expired (the domain's
// maxAuthorizationLifetimeSeconds plus the allowed clock skew from now). A
// running serve uses the new key from its next start or SIGHUP.
func Rotate(keyDir, namespace, name string, now time.Time, paths ...string) (*serving.KeyState, error) {
	set, err := manifest.LoadPaths(paths...)
	if err != nil {
		return nil, err
	}
	for i := range set.HostAuthorities {
		o := &set.HostAuthorities[i]
		if o.Namespace != namespace || o.Name != name {
			continue
		}
		a, err := publication.HostAuthority(o)
		if err != nil {
			return nil, fmt.Errorf("HostAuthority %s/%s: %w", namespace, name, err)
		}
		return UpdateKeys(keyDir, namespace, name, false, now, func(k *serving.KeyState) (*serving.KeyState, error) {
			return k.Rotate(rand.Reader, now, store.KeyRetireAfter(a.Config.MaxLifetime), now.UTC().Format(time.RFC3339Nano))
		})
	}
	return nil, errors.New("the manifests hold no HostAuthority of that namespace and name")
}
