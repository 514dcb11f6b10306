package standalone

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/manifest"
	"github.com/toolgate/toolgate/internal/publication"
	"github.com/toolgate/toolgate/internal/serving"
)

// LedgerFile is the revocation ledger's name in the state directory: one
// JSON object per line, {namespace, hostAuthority, kind, id, version},
// appended (and synced) for every Revocation the first time a load sees
// it, and never rewritten. Deleting a Revocation manifest therefore
// withdraws nothing; only deleting the ledger would, which is as visible
// as deleting the Consumption store.
const LedgerFile = "revocations"

// ledgerEntry is one line of the ledger.
type ledgerEntry struct {
	Namespace     string `json:"namespace"`
	HostAuthority string `json:"hostAuthority"`
	Kind          string `json:"kind"`
	ID            string `json:"id"`
	Version       string `json:"version,omitempty"`
}

// revocations returns every revocation in force, by domain (namespace,
// HostAuthority name): the ledger at path and the set's Revocations, each
// checked; the set's new ones are appended to the ledger first.
func revocations(path string, set *manifest.Set) (map[[2]string]*serving.Revocations, error) {
	out := map[[2]string]*serving.Revocations{}
	seen := map[ledgerEntry]bool{}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		var e ledgerEntry
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("revocation ledger line %d: not a ledger entry", line)
		}
		kind, err := serving.ParseRevocationKind(e.Kind)
		if err != nil {
			return nil, fmt.Errorf("revocation ledger line %d: unknown kind", line)
		}
		ref := [2]string{e.Namespace, e.HostAuthority}
		out[ref] = out[ref].With(serving.Revocation{Kind: kind, ID: e.ID, Version: e.Version})
		seen[e] = true
	}
	var added []byte
	for i := range set.Revocations {
		o := &set.Revocations[i]
		r, err := serving.RevocationOf(o.Spec)
		if err != nil {
			where := fmt.Sprintf("Revocation %s/%s", o.Namespace, o.Name)
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		e := ledgerEntry{Namespace: o.Namespace, HostAuthority: string(o.Spec.HostAuthorityRef.Name), Kind: r.Kind.String(), ID: r.ID, Version: r.Version}
		ref := [2]string{e.Namespace, e.HostAuthority}
		out[ref] = out[ref].With(r)
		if !seen[e] {
			seen[e] = true
			line, _ := json.Marshal(e)
			added = append(append(added, line...), '\n')
		}
	}
	if len(added) > 0 {
		if err := appendSync(path, added); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AppendRevocation adds r, in the domain of the HostAuthority
// namespace/name, to the ledger at path (created 0600), unless the ledger
// holds it already; serve puts it in force at its next load.
func AppendRevocation(path, namespace, name string, r serving.Revocation) error {
	existing, err := revocations(path, &manifest.Set{})
	if err != nil {
		return err
	}
	if existing[[2]string{namespace, name}].Has(r) {
		return nil
	}
	line, _ := json.Marshal(ledgerEntry{Namespace: namespace, HostAuthority: name, Kind: r.Kind.String(), ID: r.ID, Version: r.Version})
	return appendSync(path, append(line, '\n'))
}

// appendSync appends data to the file at path (created 0600) and syncs it.
func appendSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// served is the served state of the domain of HostAuthority ha: every
// ToolRegistry of its namespace and every PolicySnapshot referencing it,
// with their creation times (loaded for objects that carry none).
//
// A PolicySnapshot with spec.shadow is held as a shadow, not served
// (docs/shadow.md); its window opened at its metadata.creationTimestamp,
// which it must carry (publication.ShadowOf), and ends at its absolute
// spec.shadow.until, so a later load never extends it.
func served(set *manifest.Set, ha *v1alpha1.HostAuthority, grace serving.Grace, revoked *serving.Revocations, loaded time.Time) (*serving.Served, error) {
	created := func(t time.Time) time.Time {
		if t.IsZero() {
			return loaded
		}
		return t
	}
	gen := func(id, g string, t time.Time) serving.Generation { return serving.GenerationOf(id, g, created(t)) }
	var regs, pols []serving.Generation
	for i := range set.ToolRegistries {
		if o := &set.ToolRegistries[i]; o.Namespace == ha.Namespace {
			regs = append(regs, gen(string(o.Spec.SnapshotID), string(o.Spec.SnapshotGeneration), o.CreationTimestamp.Time))
		}
	}
	var shadows []serving.Shadow
	for i := range set.PolicySnapshots {
		o := &set.PolicySnapshots[i]
		if o.Namespace != ha.Namespace || string(o.Spec.HostAuthorityRef.Name) != ha.Name {
			continue
		}
		id, g := string(o.Spec.SnapshotID), string(o.Spec.SnapshotGeneration)
		sh, isShadow, err := publication.ShadowOf(o)
		switch {
		case err != nil:
			return nil, fmt.Errorf("PolicySnapshot %s/%s: %w", o.Namespace, o.Name, err)
		case isShadow:
			shadows = append(shadows, serving.Shadow{ID: id, Generation: g, Of: sh.Of, Until: sh.Until})
		default:
			pols = append(pols, gen(id, g, o.CreationTimestamp.Time))
		}
	}
	return serving.NewServed(grace, regs, pols, revoked).WithShadows(shadows...), nil
}
