// Package standalone runs toolgate without a cluster: it loads the same
// manifests the admission webhook checks from a directory, creates one
// Host authority domain per HostAuthority with a signing key kept in a
// state directory, and hands the domains to the authorization service.
package standalone

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/serving"
)

// Load reads the manifests at paths and returns one domain per
// HostAuthority, each with every ToolRegistry of its namespace and every
// PolicySnapshot generation that references it published. Keys come from
// keyDir (<namespace>.<name>.ed25519, a 32-octet seed, mode 0600), created
// there when absent; a domain's store identity is its key identity, so a
// rotated key is a new domain.
//
// Each domain serves, as current, the highest generation of each snapshot
// identity (a manifest without a creationTimestamp counts as created at
// load time, for the HostAuthority's supersededGrace), and enforces every
// Revocation of the manifests and of the revocation ledger (ledger, in the
// parent of keyDir: see Ledger), to which the manifests' Revocations are
// added first: a Revocation removed from the directory stays in force.
func Load(keyDir string, paths ...string) ([]*serving.Domain, error) {
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
	loaded := time.Now()
	var out []*serving.Domain
	for i := range set.HostAuthorities {
		o := &set.HostAuthorities[i]
		where := fmt.Sprintf("HostAuthority %s/%s", o.Namespace, o.Name)
		key, err := loadKey(filepath.Join(keyDir, o.Namespace+"."+o.Name+".ed25519"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		cfg, err := manifest.HostConfig(o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		cfg.Instance = key.ID()
		h, err := host.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, fault.Within("spec", err))
		}
		admin, _ := manifest.AdministratorOf(o)
		if err := publication.Into(set, h, o.Namespace, o.Name, admin); err != nil {
			return nil, err
		}
		d, err := serving.NewDomain(o.Namespace, o.Name, key.ID(), h, key)
		if err != nil {
			return nil, err
		}
		grace, err := serving.GraceOf(o.Spec.SupersededGrace)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		st := served(set, o, grace, revoked[[2]string{o.Namespace, o.Name}], loaded)
		out = append(out, d.WithState(func() *serving.Served { return st }))
	}
	return out, nil
}

// loadKey reads the seed at path, or creates it.
func loadKey(path string) (*artifact.Key, error) {
	seed, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		seed = make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, err
		}
		if err := writeNew(path, seed); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	k, err := artifact.NewKey(seed)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", filepath.Base(path), err)
	}
	return k, nil
}

// writeNew writes data to a new file at path, durably, failing if it
// exists (two processes creating one key never both win).
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
