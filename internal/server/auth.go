package server

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/host"
)

// ErrUnauthenticated: the request carries no credential the service
// accepts.
var ErrUnauthenticated = errors.New("server: unauthenticated")

// Authenticator establishes who is calling.
type Authenticator interface {
	Authenticate(r *http.Request) (host.Caller, error)
}

// Tokens authenticates bearer tokens from a fixed table (the standalone
// mode's token file). Tokens are held only as SHA-256 digests.
type Tokens struct {
	callers map[[sha256.Size]byte]host.Caller
}

// TokenEntry maps one bearer token to the caller it authenticates.
type TokenEntry struct {
	Token  string   `json:"token"`
	Name   string   `json:"name"`
	Groups []string `json:"groups,omitempty"`
}

// minTokenLen is the shortest token accepted: 128 bits of base64 or hex.
const minTokenLen = 22

// NewTokens builds the table; a short, empty or repeated token, or an entry
// without a name, rejects (the error names the entry's index, never the
// token).
func NewTokens(entries []TokenEntry) (*Tokens, error) {
	t := &Tokens{callers: map[[sha256.Size]byte]host.Caller{}}
	for i, e := range entries {
		switch {
		case len(e.Token) < minTokenLen:
			return nil, fmt.Errorf("token entry %d: a token has at least %d characters", i, minTokenLen)
		case e.Name == "":
			return nil, fmt.Errorf("token entry %d: a token names its caller", i)
		}
		sum := sha256.Sum256([]byte(e.Token))
		if _, dup := t.callers[sum]; dup {
			return nil, fmt.Errorf("token entry %d: the token is listed twice", i)
		}
		t.callers[sum] = host.Caller{Name: e.Name, Groups: e.Groups}
	}
	return t, nil
}

// LoadTokens reads a token file: YAML or JSON {tokens: [{token, name,
// groups}]}, strictly.
func LoadTokens(path string) (*Tokens, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Tokens []TokenEntry `json:"tokens"`
	}
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		return nil, fmt.Errorf("token file: not {tokens: [{token, name, groups}]}, or a key appears twice")
	}
	return NewTokens(f.Tokens)
}

// Authenticate implements Authenticator for "Authorization: Bearer TOKEN".
func (t *Tokens) Authenticate(r *http.Request) (host.Caller, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return host.Caller{}, ErrUnauthenticated
	}
	c, ok := t.callers[sha256.Sum256([]byte(token))]
	if !ok {
		return host.Caller{}, ErrUnauthenticated
	}
	return c, nil
}
