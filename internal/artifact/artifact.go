// Package artifact signs and verifies the portable Authorization artifact:
// a versioned envelope (toolgate.authorization/2) around the Host's
// canonical issuance record, signed with the Host authority domain's
// Ed25519 key. Any replica holding the domain's key verifies the signature
// and then rebuilds the Authorization by re-running the complete issuance
// (host.Rebuild); the signature is what lets it trust the record's origin.
//
// The envelope is compact text: three base64url (unpadded) fields separated
// by '.': the header, the record and the signature. The header is
// "toolgate.authorization/2 <key id>"; the signature covers
// header '.' record exactly as they appear in the envelope.
package artifact

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// Version is the envelope version.
const Version = "toolgate.authorization/2"

// MaxEnvelope bounds an envelope before it is parsed.
const MaxEnvelope = 4 << 20

// Errors of Open, each a stable reason; none carries envelope content.
var (
	ErrMalformed   = errors.New("artifact: malformed envelope")
	ErrVersion     = errors.New("artifact: unsupported envelope version")
	ErrUnknownKey  = errors.New("artifact: signed by a key this host does not hold")
	ErrRevokedKey  = errors.New("artifact: signed by a revoked key; request a new Authorization")
	ErrSignature   = errors.New("artifact: signature does not verify")
	ErrTooLarge    = errors.New("artifact: envelope too large")
	errInvalidSeed = errors.New("artifact: an Ed25519 seed is 32 octets")
)

// Key is one domain's signing key. Its zero value is unusable.
type Key struct {
	priv ed25519.PrivateKey
	id   string
}

// NewKey returns the signing key of an Ed25519 seed (32 octets).
func NewKey(seed []byte) (*Key, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, errInvalidSeed
	}
	priv := ed25519.NewKeyFromSeed(seed)
	return &Key{priv: priv, id: KeyID(priv.Public().(ed25519.PublicKey))}, nil
}

// KeyID is the identity of a public key: the first 16 hex digits of its
// SHA-256. A rotated key has another identity.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// ID returns the key's identity.
func (k *Key) ID() string { return k.id }

// Public returns the verification key.
func (k *Key) Public() ed25519.PublicKey { return k.priv.Public().(ed25519.PublicKey) }

var enc = base64.RawURLEncoding.Strict()

// Seal signs record and returns the envelope.
func (k *Key) Seal(record []byte) string {
	// One buffer of the envelope's exact size: the signed part is encoded
	// in place, signed, and the signature appended.
	header := Version + " " + k.id
	hn, rn, sn := enc.EncodedLen(len(header)), enc.EncodedLen(len(record)), enc.EncodedLen(ed25519.SignatureSize)
	buf := make([]byte, hn+1+rn+1+sn)
	enc.Encode(buf, []byte(header))
	buf[hn] = '.'
	enc.Encode(buf[hn+1:], record)
	signed := buf[:hn+1+rn]
	buf[len(signed)] = '.'
	enc.Encode(buf[len(signed)+1:], ed25519.Sign(k.priv, signed))
	return string(buf)
}

// Verified is an issuance record whose envelope signature verified: only
// Open constructs one, and only after ed25519.Verify accepted the envelope.
// A function that must run only on authentic records (host.Rebuild) takes a
// Verified rather than bytes, so "call it only on verified bytes" is a type,
// not a comment. The zero value holds no record and verifies nothing.
type Verified struct {
	record []byte
	keyID  string
	ok     bool
}

// Record returns a copy of the verified record bytes.
func (v Verified) Record() []byte { return bytes.Clone(v.record) }

// KeyID returns the identity of the key whose signature verified, or ""
// for the zero value.
func (v Verified) KeyID() string { return v.keyID }

// IsZero reports whether v is the zero value: no envelope verified.
func (v Verified) IsZero() bool { return !v.ok }

// Open verifies envelope with the key of the identity its header names,
// looked up with lookup, and returns the verified record. Every failure is
// one of the package's errors, with the zero Verified.
func Open(envelope string, lookup func(keyID string) (ed25519.PublicKey, bool)) (Verified, error) {
	return OpenKey(envelope, func(keyID string) (ed25519.PublicKey, error) {
		if pub, ok := lookup(keyID); ok {
			return pub, nil
		}
		return nil, ErrUnknownKey
	})
}

// OpenKey is Open with a lookup that says why it holds no key: it returns
// ErrUnknownKey or ErrRevokedKey (any other error reads as ErrUnknownKey),
// and OpenKey returns that reason before verifying anything.
func OpenKey(envelope string, lookup func(keyID string) (ed25519.PublicKey, error)) (Verified, error) {
	record, keyID, err := open(envelope, lookup)
	if err != nil {
		return Verified{}, err
	}
	return Verified{record: record, keyID: keyID, ok: true}, nil
}

// open is Open's verification: the record and the key identity, or the
// error.
func open(envelope string, lookup func(keyID string) (ed25519.PublicKey, error)) ([]byte, string, error) {
	if len(envelope) > MaxEnvelope {
		return nil, "", ErrTooLarge
	}
	// Exactly one text form: encoding/base64 skips '\r' and '\n' while
	// decoding, so without this check a line break inserted into the
	// (unsigned) signature field, or appended to it, still opened.
	if !textForm(envelope) {
		return nil, "", ErrMalformed
	}
	// Exactly three fields: header '.' record '.' signature.
	i := strings.IndexByte(envelope, '.')
	j := i + 1 + strings.IndexByte(envelope[i+1:], '.')
	if i < 0 || j <= i || strings.IndexByte(envelope[j+1:], '.') >= 0 {
		return nil, "", ErrMalformed
	}
	parts := [3]string{envelope[:i], envelope[i+1 : j], envelope[j+1:]}
	header, err := enc.DecodeString(parts[0])
	if err != nil {
		return nil, "", ErrMalformed
	}
	version, keyID, ok := bytes.Cut(header, []byte(" "))
	if !ok {
		return nil, "", ErrMalformed
	}
	if string(version) != Version {
		return nil, "", ErrVersion
	}
	pub, err := lookup(string(keyID))
	switch {
	case errors.Is(err, ErrRevokedKey):
		return nil, "", ErrRevokedKey
	case err != nil || len(pub) != ed25519.PublicKeySize:
		return nil, "", ErrUnknownKey
	}
	sig, err := enc.DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, "", ErrMalformed
	}
	if !ed25519.Verify(pub, []byte(envelope[:j]), sig) {
		return nil, "", ErrSignature
	}
	record, err := enc.DecodeString(parts[1])
	if err != nil {
		return nil, "", ErrMalformed
	}
	return record, string(keyID), nil
}

// textForm reports whether every octet of envelope is in the unpadded
// base64url alphabet or is a field separator '.'.
func textForm(envelope string) bool {
	for i := 0; i < len(envelope); i++ {
		switch c := envelope[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}
