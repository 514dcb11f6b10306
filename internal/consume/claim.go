package consume

import (
	"errors"
	"time"
)

// The identities of an Authorization that its Consumption holds, in the
// order Record.Identities holds them and the order apistore writes them in.
const (
	AuthorizationIdentity = iota
	ReplayIdentity
	ConsumptionIdentity
)

// IdentityFields names each identity as the API names it (the path of a
// refusal): IdentityFields[AuthorizationIdentity] is "authorizationID".
var IdentityFields = [3]string{"authorizationID", "replayID", "consumptionID"}

// MaxAuthorizationLifetime is the longest lifetime the protocol allows an
// Authorization (Section 39: 3,600 s). A Consumption holds its identities
// at least this long past the moment it was recorded, so every other
// Authorization naming one of them that was issued before that moment has
// expired before the identity is free again (docs/decisions.md, "The
// durable write belongs to Consumption").
const MaxAuthorizationLifetime = time.Hour

// HoldUntil is how long the Consumption of r, recorded at now, holds r's
// identities (plus the store's retention): MaxAuthorizationLifetime past
// now, and never before r.ExpiresAt.
func HoldUntil(r Record, now time.Time) time.Time {
	if h := now.Add(MaxAuthorizationLifetime); h.After(r.ExpiresAt) {
		return h
	}
	return r.ExpiresAt
}

// ErrIdentityReused is matched (errors.Is) by every *IdentityReusedError:
// an identity is held in the domain by the Consumption of another binding.
var ErrIdentityReused = errors.New("consume: identity held by another consumption")

// IdentityReusedError refuses a Consume (or answers Held): the identity
// Field names is held in the domain by the Consumption of another
// Consumption Binding — another Authorization naming the same identity was
// consumed (or, on the apiserver, began to be). Nothing was recorded. It
// names the field, never the value.
type IdentityReusedError struct {
	// Field is one of IdentityFields.
	Field string
}

func (e *IdentityReusedError) Error() string {
	return ErrIdentityReused.Error() + ": " + e.Field
}

// Is makes every *IdentityReusedError match ErrIdentityReused.
func (e *IdentityReusedError) Is(target error) bool { return target == ErrIdentityReused }

// Reused returns the refusal for identity i (AuthorizationIdentity, …).
func Reused(i int) error { return &IdentityReusedError{Field: IdentityFields[i]} }

// ValidateIdentities reports whether domain and ids are well formed (the
// arguments of Store.Held), as a *KeyError.
func ValidateIdentities(domain string, ids [3]string) error {
	if err := validateToken("domain", domain, MaxDomainLen); err != nil {
		return err
	}
	for i, id := range ids {
		if err := validateToken(IdentityFields[i], id, MaxAuthorizationIDLen); err != nil {
			return err
		}
	}
	return nil
}
