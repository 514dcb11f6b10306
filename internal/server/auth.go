package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/internal/host"
	"github.com/toolgate/toolgate/internal/tokenfile"
)

// ErrUnauthenticated: the request carries no credential the service
// accepts.
var ErrUnauthenticated = errors.New("server: unauthenticated")

// Authenticator establishes who is calling.
type Authenticator interface {
	Authenticate(r *http.Request) (host.Caller, error)
}

// Tokens authenticates bearer tokens from a fixed table (the standalone
// mode's token file, parsed by internal/tokenfile). Tokens are held only as
// SHA-256 digests.
type Tokens struct {
	table *tokenfile.Table
}

// TokenEntry maps one bearer token to the caller it authenticates.
type TokenEntry = tokenfile.Entry

// NewTokens builds the table; a short, empty or repeated token, or an entry
// without a name, rejects (the error names the entry's index, never the
// token).
func NewTokens(entries []TokenEntry) (*Tokens, error) {
	t, err := tokenfile.New(entries)
	if err != nil {
		return nil, err
	}
	return &Tokens{table: t}, nil
}

// LoadTokens reads a token file: YAML or JSON {tokens: [{token, name,
// groups}]}, strictly.
func LoadTokens(path string) (*Tokens, error) {
	t, err := tokenfile.Load(path)
	if err != nil {
		return nil, err
	}
	return &Tokens{table: t}, nil
}

// Authenticate implements Authenticator for "Authorization: Bearer TOKEN".
func (t *Tokens) Authenticate(r *http.Request) (host.Caller, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return host.Caller{}, ErrUnauthenticated
	}
	c, ok := t.table.Lookup(token)
	if !ok {
		return host.Caller{}, ErrUnauthenticated
	}
	return host.Caller{Name: c.Name, Groups: c.Groups}, nil
}
