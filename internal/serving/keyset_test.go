package serving_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/artifact"
	"github.com/toolgate/toolgate/internal/engine/fault"
	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/serving"
	"github.com/toolgate/toolgate/internal/standalone"
	"github.com/toolgate/toolgate/internal/testutil"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// seeds is a random source that hands out the 32-octet seeds of b, b+1, …:
// the test knows every key a KeyState makes.
func seeds(b byte) io.Reader {
	var buf bytes.Buffer
	for i := range 8 {
		buf.Write(bytes.Repeat([]byte{b + byte(i)}, ed25519.SeedSize))
	}
	return &buf
}

func key(t *testing.T, b byte) *artifact.Key {
	t.Helper()
	k, err := artifact.NewKey(bytes.Repeat([]byte{b}, ed25519.SeedSize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rotated is a key set whose first key (seed 1, attestation seed 2) was
// rotated out at t0 for seed 3, retiring 330 s later.
func rotated(t *testing.T) *serving.KeyState {
	t.Helper()
	ks, err := serving.NewKeyState(seeds(1), "instance-1")
	if err != nil {
		t.Fatal(err)
	}
	ks, err = ks.Rotate(seeds(3), t0, 330*time.Second, "r1")
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// domainWith serves the samples' domain with keys (the Host from the
// standalone loader).
func domainWith(t *testing.T, keys *serving.KeySet) *serving.StaticDomains {
	t.Helper()
	ds, err := standalone.Load(t.TempDir(), filepath.Join(testutil.RepoRoot(t), "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ds[0].WithKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	var set serving.StaticDomains
	if err := set.Replace(d); err != nil {
		t.Fatal(err)
	}
	return &set
}

func at(ts time.Time) func() time.Time { return func() time.Time { return ts } }

func TestKeySetVerifiesWhatItMayAndNothingElse(t *testing.T) {
	t.Parallel()
	ks := rotated(t)
	old, active, stranger := key(t, 1), key(t, 3), key(t, 9)
	retire := ks.Keys()[1].RetireAt
	cases := []struct {
		name    string
		signer  *artifact.Key
		now     time.Time
		revoked []string
		want    error
	}{
		{"the active key verifies", active, t0, nil, nil},
		{"the rotated-out key verifies before its retire time", old, retire.Add(-time.Second), nil, nil},
		{"the rotated-out key verifies nothing from its retire time", old, retire, nil, artifact.ErrUnknownKey},
		{"a key of no domain verifies nothing", stranger, t0, nil, artifact.ErrUnknownKey},
		{"a revoked verify-only key rejects at once", old, t0, []string{old.ID()}, artifact.ErrRevokedKey},
		{"a revoked active key rejects at once", active, t0, []string{active.ID()}, artifact.ErrRevokedKey},
		{"revoking another key changes nothing", active, t0, []string{stranger.ID()}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set := domainWith(t, ks.KeySet(at(tc.now), tc.revoked))
			d, _, err := serving.Open(set, tc.signer.Seal([]byte("record")))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open: %v, want %v", err, tc.want)
			}
			if err == nil && d.Name() != "payments-host" {
				t.Errorf("opened in domain %s", d.Name())
			}
		})
	}
}

func TestEveryKeyOfASetFindsTheDomain(t *testing.T) {
	t.Parallel()
	ks := rotated(t)
	set := domainWith(t, ks.KeySet(at(t0), nil))
	for _, id := range []string{key(t, 1).ID(), key(t, 3).ID()} {
		if _, ok := set.ByKey(id); !ok {
			t.Errorf("key %s of the set does not find the domain", id)
		}
	}
	d, _ := set.ByName("payments", "payments-host")
	if d.KeyID() != key(t, 3).ID() {
		t.Errorf("signing key %s, want the rotated-in key", d.KeyID())
	}
	// Two domains sharing a verify-only key are refused.
	shared, err := serving.NewKeyState(seeds(1), "instance-2") // its active key is the first set's old one
	if err != nil {
		t.Fatal(err)
	}
	var two serving.StaticDomains
	if err := two.Replace(d, renamed(t, shared.KeySet(at(t0), nil))); err == nil || !strings.Contains(err.Error(), "share signing key") {
		t.Errorf("two domains sharing a key: %v", err)
	}
}

// renamed is the samples' domain under another HostAuthority name, with
// keys.
func renamed(t *testing.T, keys *serving.KeySet) *serving.Domain {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "config", "samples", "stk_v1alpha1_hostauthority.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(src), "payments-host", "treasury-host")
	if err := os.WriteFile(filepath.Join(dir, "ha.yaml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	ds, err := standalone.Load(t.TempDir(), dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ds[0].WithKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestARevokedActiveKeyNeverSigns(t *testing.T) {
	t.Parallel()
	ks := rotated(t)
	if !ks.ActiveRevoked([]string{ks.ActiveID()}) || ks.ActiveRevoked([]string{key(t, 1).ID()}) {
		t.Fatal("ActiveRevoked does not name the active key")
	}
	set := domainWith(t, ks.KeySet(at(t0), []string{ks.ActiveID()}))
	d, _ := set.ByName("payments", "payments-host")
	if d.KeyID() != "" {
		t.Errorf("a revoked active key is still the signing key %s", d.KeyID())
	}
	_, env, err := d.Authorize(host.AuthorizeRequest{})
	testutil.CheckFault(t, err, serving.ErrNoSigningKey, "signingKey")
	if env != "" {
		t.Error("an envelope was sealed")
	}
}

func TestRebuildRefusesARecordOfAKeyRevokedSinceItWasOpened(t *testing.T) {
	t.Parallel()
	ks := rotated(t)
	old := key(t, 1)
	before := domainWith(t, ks.KeySet(at(t0), nil))
	_, v, err := serving.Open(before, old.Seal([]byte("record")))
	if err != nil {
		t.Fatal(err)
	}
	after := domainWith(t, ks.KeySet(at(t0), []string{old.ID()}))
	d, _ := after.ByName("payments", "payments-host")
	_, err = d.Rebuild(v)
	var f *fault.Error
	if !errors.As(err, &f) || f.Code != fault.Ineligible {
		t.Errorf("Rebuild of a revoked key's record: %v, want ineligible", err)
	}
	b, _ := before.ByName("payments", "payments-host")
	if d.Same(b) {
		t.Error("a domain with a key revoked is Same as before: the rebuild cache would keep serving its artifacts")
	}
}

func TestPruneRemovesKeysAtTheirRetireTime(t *testing.T) {
	t.Parallel()
	ks := rotated(t)
	retire := ks.Keys()[1].RetireAt
	if retire.Before(t0.Add(330 * time.Second)) {
		t.Fatalf("retire time %v is before the rotation plus its delay", retire)
	}
	if kept, pruned := ks.Prune(retire.Add(-time.Second)); pruned || len(kept.Keys()) != 2 {
		t.Error("a key was removed before its retire time")
	}
	kept, pruned := ks.Prune(retire)
	if !pruned || len(kept.Keys()) != 1 || kept.ActiveID() != ks.ActiveID() {
		t.Errorf("at its retire time: %+v, pruned %v", kept.Keys(), pruned)
	}
	if _, ok := kept.NextRetire(); ok {
		t.Error("a set with only its active key reports a retire time")
	}
	if kept.Instance() != "instance-1" {
		t.Errorf("instance %q changed across rotation and pruning", kept.Instance())
	}
}

func TestLegacyKeyKeepsItsIdentityAsTheInstance(t *testing.T) {
	t.Parallel()
	seed := bytes.Repeat([]byte{5}, ed25519.SeedSize)
	ks, err := serving.LegacyKeyState(seed)
	if err != nil {
		t.Fatal(err)
	}
	if ks.Instance() != key(t, 5).ID() || ks.ActiveID() != key(t, 5).ID() {
		t.Errorf("instance %s, active %s; want both the legacy key's identity", ks.Instance(), ks.ActiveID())
	}
	if !bytes.Equal(ks.AttestationPublic(), key(t, 5).Public()) {
		t.Error("the legacy key no longer verifies the attestations it signed")
	}
	r, err := ks.Rotate(seeds(7), t0, time.Minute, "r")
	if err != nil || r.Instance() != ks.Instance() {
		t.Errorf("rotation changed the instance: %v", err)
	}
}

func TestKeyStateRoundTripsAndRejectsDamage(t *testing.T) {
	t.Parallel()
	ks := rotated(t)
	back, err := serving.ParseKeyState(ks.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Encode(), ks.Encode()) {
		t.Error("a key set does not survive its persisted form")
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(ks.Encode(), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	keys := func(m map[string]any) []any { return m["keys"].([]any) }
	short := base64.StdEncoding.EncodeToString(make([]byte, 31))
	cases := map[string]struct {
		doc  []byte
		path string
	}{
		"not JSON":                       {[]byte("{"), "keySet"},
		"an unknown member":              {edit(func(m map[string]any) { m["extra"] = 1 }), "keySet"},
		"another format":                 {edit(func(m map[string]any) { m["format"] = "toolgate.keyset/2" }), "keySet.format"},
		"no instance":                    {edit(func(m map[string]any) { m["instance"] = "" }), "keySet.instance"},
		"a short attestation seed":       {edit(func(m map[string]any) { m["attestationSeed"] = short }), "keySet.attestationSeed"},
		"no key":                         {edit(func(m map[string]any) { m["keys"] = []any{} }), "keySet.keys"},
		"a short seed":                   {edit(func(m map[string]any) { keys(m)[1].(map[string]any)["seed"] = short }), "keySet.keys[1].seed"},
		"an identity its seed lacks":     {edit(func(m map[string]any) { keys(m)[0].(map[string]any)["id"] = "0000000000000000" }), "keySet.keys[0].id"},
		"a key twice":                    {edit(func(m map[string]any) { m["keys"] = append(keys(m), keys(m)[1]) }), "keySet.keys[2].id"},
		"an active key with retire time": {edit(func(m map[string]any) { keys(m)[0].(map[string]any)["retireAt"] = t0 }), "keySet.keys[0].retireAt"},
		"a verify-only key without one":  {edit(func(m map[string]any) { delete(keys(m)[1].(map[string]any), "retireAt") }), "keySet.keys[1].retireAt"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := serving.ParseKeyState(tc.doc)
			var f *fault.Error
			if !errors.As(err, &f) || f.Path != tc.path {
				t.Errorf("ParseKeyState: %v, want a fault at %s", err, tc.path)
			}
			testutil.CheckNoEcho(t, err, short)
		})
	}
}

// TestNoExportedMethodReturnsAPrivateKey: the key-set types hand out
// identities, public keys, signatures and the persisted form, never a
// private key or a signer; KeyInfo carries no seed.
func TestNoExportedMethodReturnsAPrivateKey(t *testing.T) {
	t.Parallel()
	forbidden := []reflect.Type{reflect.TypeOf(ed25519.PrivateKey{}), reflect.TypeOf(&artifact.Key{}), reflect.TypeOf(artifact.Key{})}
	for _, typ := range []reflect.Type{reflect.TypeOf(&serving.KeySet{}), reflect.TypeOf(&serving.KeyState{}), reflect.TypeOf(&serving.Domain{}), reflect.TypeOf(serving.KeyInfo{})} {
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			for j := range m.Type.NumOut() {
				for _, f := range forbidden {
					if m.Type.Out(j) == f {
						t.Errorf("%v.%s returns %v", typ, m.Name, f)
					}
				}
			}
		}
	}
	info := reflect.TypeOf(serving.KeyInfo{})
	for i := range info.NumField() {
		if k := info.Field(i).Type.Kind(); k == reflect.Slice || k == reflect.Array {
			t.Errorf("KeyInfo.%s can carry key material", info.Field(i).Name)
		}
	}
	// The one method that returns bytes other than a signature is the
	// persisted form; what the CLI lists shows no seed.
	ks := rotated(t)
	listed, _ := json.Marshal(ks.Keys())
	for _, b := range []byte{1, 2, 3} {
		seed := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, ed25519.SeedSize))
		if strings.Contains(string(listed), seed) {
			t.Errorf("Keys lists seed %d", b)
		}
	}
}
