// Package publisher records who published a toolgate object, in a form the
// controllers can verify.
//
// The validating webhook authorizes the admission user; the controllers run
// later, without that user. So the mutating webhook writes the admission
// user (name and groups) into an annotation and signs it, together with the
// object's kind, namespace, name, the HostAuthority domain (UID) and a digest
// of the spec, with the domain's Ed25519 key. A controller publishes a
// PolicySnapshot only when the signature verifies with the key of the domain
// it publishes in and the attested user holds policyAdministrationAuthority
// there: an object that reached etcd without the webhook (or was copied from
// another object, namespace or domain) is never served.
package publisher

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/host"
)

// Annotations written by the mutating webhook.
const (
	// Annotation holds the publisher as JSON: {"name":…,"groups":[…]}.
	Annotation = "stk.toolgate.dev/publisher"
	// SignatureAnnotation holds the base64 Ed25519 signature of Message.
	SignatureAnnotation = "stk.toolgate.dev/publisher-signature"
)

// Publisher is the admission user that created an object.
type Publisher struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups,omitempty"`
}

// Caller returns the publisher as the Host façade's caller.
func (p Publisher) Caller() host.Caller {
	return host.Caller{Name: p.Name, Groups: slices.Clone(p.Groups)}
}

// Encode returns the annotation value: compact JSON with the groups sorted.
func (p Publisher) Encode() string {
	p.Groups = slices.Sorted(slices.Values(p.Groups))
	b, _ := json.Marshal(p) // a struct of strings always marshals
	return string(b)
}

// Errors of Decode and Verify. They name no value.
var (
	ErrMissing   = errors.New("publisher: the object carries no publisher attestation (it was not admitted by the toolgate webhook)")
	ErrMalformed = errors.New("publisher: the publisher attestation is malformed")
	ErrSignature = errors.New("publisher: the publisher attestation does not verify in this domain")
)

// Decode reads the publisher annotation value.
func Decode(v string) (Publisher, error) {
	if v == "" {
		return Publisher{}, ErrMissing
	}
	var p Publisher
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || p.Name == "" || dec.More() {
		return Publisher{}, ErrMalformed
	}
	return p, nil
}

// SpecDigest is the hex SHA-256 of spec's JSON with every object's keys
// sorted and numbers kept as written, so that the webhook and a controller
// compute the same digest from the same spec however its JSON was ordered.
func SpecDigest(spec any) (string, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return "", ErrMalformed
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", ErrMalformed
	}
	norm, err := json.Marshal(v)
	if err != nil {
		return "", ErrMalformed
	}
	sum := sha256.Sum256(norm)
	return hex.EncodeToString(sum[:]), nil
}

// Message is the signed statement: "this publisher created this spec as
// this object in this domain". Its fields contain no newline except the
// last, which is JSON (newlines escaped), so the encoding is injective.
func Message(kind, namespace, name, domainUID, specDigest, publisher string) []byte {
	return []byte(strings.Join([]string{"toolgate.publisher-attestation/1", kind, namespace, name, domainUID, specDigest, publisher}, "\n"))
}

// EncodeSignature and DecodeSignature convert the signature annotation.
func EncodeSignature(sig []byte) string { return base64.StdEncoding.EncodeToString(sig) }

// Verify checks the annotations of an object against the domain's public
// key and returns the attested publisher.
func Verify(pub ed25519.PublicKey, kind, namespace, name, domainUID string, spec any, annotations map[string]string) (Publisher, error) {
	v, sigText := annotations[Annotation], annotations[SignatureAnnotation]
	if v == "" || sigText == "" {
		return Publisher{}, ErrMissing
	}
	p, err := Decode(v)
	if err != nil {
		return Publisher{}, err
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(sigText)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Publisher{}, ErrMalformed
	}
	d, err := SpecDigest(spec)
	if err != nil {
		return Publisher{}, err
	}
	if !ed25519.Verify(pub, Message(kind, namespace, name, domainUID, d, v), sig) {
		return Publisher{}, ErrSignature
	}
	return p, nil
}
