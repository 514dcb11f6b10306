package clientauth

import (
	"context"
	"slices"
	"time"
)

// Issuers of the verifiers that have no OAuth issuer of their own.
const (
	// IssuerTokenFile is the Issuer of identities from the token file.
	IssuerTokenFile = "urn:toolgate:token-file"
	// IssuerTokenReview is the Issuer of identities the Kubernetes
	// TokenReview API vouched for.
	IssuerTokenReview = "urn:toolgate:kubernetes-tokenreview"
)

// Identity is an authenticated MCP client: who vouched (Issuer), for whom
// (Subject, Groups), for what (Audience, Scopes) and until when (Expiry;
// zero when the verifier has no expiry, as the token file). It holds no
// token. Host mode maps it to a protocol subject and tenant through a
// reviewed mapping; by itself it grants nothing.
type Identity struct {
	Issuer   string
	Subject  string
	Audience []string
	Groups   []string
	Scopes   []string
	Expiry   time.Time
}

func (id Identity) clone() Identity {
	id.Audience = slices.Clone(id.Audience)
	id.Groups = slices.Clone(id.Groups)
	id.Scopes = slices.Clone(id.Scopes)
	return id
}

// A Verifier turns a bearer token into the Identity it proves, or rejects
// it with an *Error. It never logs the token, and its errors never hold it.
type Verifier interface {
	Verify(ctx context.Context, token string) (Identity, error)
}

type identityKey struct{}

// IdentityFrom returns the Identity the middleware authenticated for the
// request whose context ctx is.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	if !ok {
		return Identity{}, false
	}
	return id.clone(), true
}

func withIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id.clone())
}
