package audit

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// DefaultKeyName names the signer of a new audit key; it is also the
// origin line of the log's checkpoints.
const DefaultKeyName = "toolgate-audit"

// Key signs a log's checkpoints. The signing half never leaves the value.
type Key struct {
	signer   note.Signer
	verifier note.Verifier
	vkey     string
}

// VerifierKey returns the note verifier key ("name+hash+base64") that
// audit verify takes; it is public.
func (k *Key) VerifierKey() string { return k.vkey }

// LoadOrCreateKey reads the audit signing key at path (a note signer key,
// "PRIVATE+KEY+…"), creating it with mode 0600 when absent, and writes its
// verifier key to path+".pub" (0644) so it can be handed to audit verify.
func LoadOrCreateKey(path string) (*Key, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		skey, _, gerr := note.GenerateKey(rand.Reader, DefaultKeyName)
		if gerr != nil {
			return nil, gerr
		}
		f, cerr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if cerr != nil {
			return nil, fmt.Errorf("audit key: %w", cerr)
		}
		_, werr := f.WriteString(skey + "\n")
		if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
			return nil, fmt.Errorf("audit key: %w", err)
		}
		raw = []byte(skey)
	} else if err != nil {
		return nil, fmt.Errorf("audit key: %w", err)
	}
	k, err := parseSignerKey(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path+".pub", []byte(k.vkey+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("audit key: writing the verifier key: %w", err)
	}
	return k, nil
}

// parseSignerKey builds a Key from a note signer key; the verifier key is
// derived from it, so the two always match.
func parseSignerKey(skey string) (*Key, error) {
	s, err := note.NewSigner(skey)
	if err != nil {
		return nil, errors.New("audit key: the file does not hold a note signer key (PRIVATE+KEY+name+hash+key)")
	}
	// A signer key is PRIVATE+KEY+name+hash+base64(alg||private seed); the
	// verifier key is name+hash+base64(alg||public key).
	vkey, err := verifierKeyOf(skey)
	if err != nil {
		return nil, err
	}
	v, err := note.NewVerifier(vkey)
	if err != nil || v.KeyHash() != s.KeyHash() {
		return nil, errors.New("audit key: the signer key is malformed")
	}
	return &Key{signer: s, verifier: v, vkey: vkey}, nil
}

// ParseVerifierKey parses a note verifier key, the text written to the
// key's ".pub" file.
func ParseVerifierKey(vkey string) (note.Verifier, error) {
	v, err := note.NewVerifier(strings.TrimSpace(vkey))
	if err != nil {
		return nil, errors.New("audit: the verifier key is not a note verifier key (name+hash+base64, the key's .pub file)")
	}
	return v, nil
}

// verifierKeyOf derives the verifier key of an Ed25519 note signer key.
func verifierKeyOf(skey string) (string, error) {
	bad := errors.New("audit key: the signer key is not an Ed25519 note signer key")
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 || parts[0] != "PRIVATE" || parts[1] != "KEY" {
		return "", bad
	}
	raw, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 { // 1: note's Ed25519 algorithm
		return "", bad
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	return note.NewEd25519VerifierKey(parts[2], pub)
}
