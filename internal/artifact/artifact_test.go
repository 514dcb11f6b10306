package artifact_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/artifact"
)

func key(t *testing.T, b byte) *artifact.Key {
	t.Helper()
	k, err := artifact.NewKey(bytes.Repeat([]byte{b}, ed25519.SeedSize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func lookupOf(keys ...*artifact.Key) func(string) (ed25519.PublicKey, bool) {
	return func(id string) (ed25519.PublicKey, bool) {
		for _, k := range keys {
			if k.ID() == id {
				return k.Public(), true
			}
		}
		return nil, false
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	k := key(t, 1)
	record := []byte("\x18toolgate.authorization/2\x00any bytes")
	got, err := artifact.Open(k.Seal(record), lookupOf(k))
	if err != nil || !bytes.Equal(got.Record(), record) || got.KeyID() != k.ID() || got.IsZero() {
		t.Fatalf("Open = %q (key %q), %v", got.Record(), got.KeyID(), err)
	}
	// The record handed out is a copy: changing it changes nothing verified.
	got.Record()[0] ^= 0xff
	if !bytes.Equal(got.Record(), record) {
		t.Error("changing the returned record changed the verified one")
	}
}

// TestZeroVerifiedHoldsNothing: only Open constructs a Verified that holds
// a record; the zero value is recognizably unverified.
func TestZeroVerifiedHoldsNothing(t *testing.T) {
	t.Parallel()
	var v artifact.Verified
	if !v.IsZero() || v.Record() != nil || v.KeyID() != "" {
		t.Errorf("the zero Verified holds %q from key %q", v.Record(), v.KeyID())
	}
}

// TestOpenRejectsEveryChangedCharacter: no single-character change of an
// envelope opens, wherever it is.
func TestOpenRejectsEveryChangedCharacter(t *testing.T) {
	t.Parallel()
	k := key(t, 2)
	env := k.Seal([]byte("a portable record of some length, to cover many base64 characters"))
	alphabet := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
	for i := range env {
		for _, c := range alphabet {
			if byte(c) == env[i] {
				continue
			}
			changed := env[:i] + string(c) + env[i+1:]
			if _, err := artifact.Open(changed, lookupOf(k)); err == nil {
				t.Fatalf("changing character %d to %q still opens", i, c)
			}
		}
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	k, rotated := key(t, 3), key(t, 4)
	env := k.Seal([]byte("record"))
	parts := strings.Split(env, ".")
	enc := base64.RawURLEncoding
	// The previous version (JSON records) is no longer read.
	otherVersion := enc.EncodeToString([]byte("toolgate.authorization/1 "+k.ID())) + "." + parts[1] + "." + parts[2]
	resigned := rotated.Seal([]byte("record"))
	// A rotated key signing under the old key's identity.
	forged := parts[0] + "." + parts[1] + "." + strings.Split(resigned, ".")[2]
	tests := map[string]struct {
		env    string
		lookup func(string) (ed25519.PublicKey, bool)
		want   error
	}{
		"a rotated key is unknown":        {env, lookupOf(rotated), artifact.ErrUnknownKey},
		"re-signed by another key":        {forged, lookupOf(k, rotated), artifact.ErrSignature},
		"another version":                 {otherVersion, lookupOf(k), artifact.ErrVersion},
		"truncated":                       {env[:len(env)-10], lookupOf(k), artifact.ErrMalformed},
		"two parts":                       {parts[0] + "." + parts[1], lookupOf(k), artifact.ErrMalformed},
		"four parts":                      {env + ".x", lookupOf(k), artifact.ErrMalformed},
		"empty":                           {"", lookupOf(k), artifact.ErrMalformed},
		"oversized":                       {strings.Repeat("a", artifact.MaxEnvelope+1), lookupOf(k), artifact.ErrTooLarge},
		"a header without a key identity": {enc.EncodeToString([]byte(artifact.Version)) + "." + parts[1] + "." + parts[2], lookupOf(k), artifact.ErrMalformed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec, err := artifact.Open(tc.env, tc.lookup)
			if !errors.Is(err, tc.want) || !rec.IsZero() || rec.Record() != nil {
				t.Errorf("Open = %q, %v; want %v", rec.Record(), err, tc.want)
			}
		})
	}
	if _, err := artifact.NewKey(make([]byte, 31)); err == nil {
		t.Error("a 31-octet seed was accepted")
	}
}

// TestOpenAcceptsExactlyOneTextForm: an envelope has one text form. Every
// octet inserted anywhere — a line break base64 decoders skip, a space, a
// padding '=' — and every appended one rejects, in the signed fields and
// in the signature alike.
func TestOpenAcceptsExactlyOneTextForm(t *testing.T) {
	t.Parallel()
	k := key(t, 1)
	env := k.Seal([]byte("record"))
	for _, extra := range []string{"\r", "\n", "\r\n", " ", "\t", "=", "\x00"} {
		for pos := 0; pos <= len(env); pos++ {
			changed := env[:pos] + extra + env[pos:]
			if _, err := artifact.Open(changed, lookupOf(k)); !errors.Is(err, artifact.ErrMalformed) {
				t.Fatalf("%q inserted at %d of %d: Open = %v, want ErrMalformed", extra, pos, len(env), err)
			}
		}
	}
}

// TestOpenKeyReportsWhyNoKeyVerifies: a lookup that says the key is revoked
// makes OpenKey answer ErrRevokedKey before any verification; any other
// refusal, or a value that is not a public key, is ErrUnknownKey.
func TestOpenKeyReportsWhyNoKeyVerifies(t *testing.T) {
	t.Parallel()
	k := key(t, 1)
	env := k.Seal([]byte("record"))
	cases := map[string]struct {
		lookup func(string) (ed25519.PublicKey, error)
		want   error
	}{
		"revoked": {func(string) (ed25519.PublicKey, error) { return nil, artifact.ErrRevokedKey }, artifact.ErrRevokedKey},
		"revoked, wrapped": {func(string) (ed25519.PublicKey, error) {
			return nil, errors.Join(errors.New("x"), artifact.ErrRevokedKey)
		}, artifact.ErrRevokedKey},
		"unknown":                {func(string) (ed25519.PublicKey, error) { return nil, artifact.ErrUnknownKey }, artifact.ErrUnknownKey},
		"another refusal":        {func(string) (ed25519.PublicKey, error) { return nil, errors.New("store down") }, artifact.ErrUnknownKey},
		"not a public key":       {func(string) (ed25519.PublicKey, error) { return ed25519.PublicKey{1}, nil }, artifact.ErrUnknownKey},
		"another key's public":   {func(string) (ed25519.PublicKey, error) { return key(t, 2).Public(), nil }, artifact.ErrSignature},
		"the key that signed it": {func(string) (ed25519.PublicKey, error) { return k.Public(), nil }, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := artifact.OpenKey(env, tc.lookup)
			if !errors.Is(err, tc.want) || (err == nil) == v.IsZero() {
				t.Errorf("OpenKey: %v (zero %v), want %v", err, v.IsZero(), tc.want)
			}
			if err != nil && tc.want != artifact.ErrRevokedKey && errors.Is(err, artifact.ErrRevokedKey) {
				t.Error("reported revoked")
			}
		})
	}
}
