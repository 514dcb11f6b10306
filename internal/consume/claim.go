package consume

import (
	"errors"
	"time"
)

// The identities one issuance claims, in the order Claim.Identities holds
// them and the order apistore claims them in.
const (
	AuthorizationIdentity = iota
	ReplayIdentity
	ConsumptionIdentity
)

// IdentityFields names each identity as the API names it (the path of a
// refusal): IdentityFields[AuthorizationIdentity] is "authorizationID".
var IdentityFields = [3]string{"authorizationID", "replayID", "consumptionID"}

// DigestLen is the length of Claim.Request and Claim.Binding: a SHA-256
// digest as lowercase hex digits.
const DigestLen = BindingLen

// Claim is one issuance's claim on its identities (docs/decisions.md,
// "Idempotent authorize and durable identities"): in one domain, the
// Authorization, replay and Consumption identities of an issued
// Authorization, the digest of the request that issued it, the digest of its
// Consumption Binding and its validity. A claim lets the service answer a
// repeated identical request with the same Authorization (re-issued at
// IssuedAt, which reproduces it exactly) and refuse any other request that
// names one of the identities.
type Claim struct {
	// Domain is the Consumption domain (Key.Domain's grammar).
	Domain string
	// Identities are the Authorization, replay and Consumption identities
	// (lower-tokens of at most MaxAuthorizationIDLen octets), indexed by
	// AuthorizationIdentity, ReplayIdentity and ConsumptionIdentity.
	Identities [3]string
	// Request is the digest of the issuing request (64 lowercase hex
	// digits): two requests are the same request exactly when their
	// digests are equal.
	Request string
	// Binding is the issued Authorization's Consumption Binding digest (64
	// lowercase hex digits).
	Binding string
	// IssuedAt and ExpiresAt are the Authorization's validity, in whole
	// seconds (the protocol's precision; a fraction is rejected).
	IssuedAt, ExpiresAt time.Time
}

// Validate reports whether c is well formed, as a *KeyError.
func (c Claim) Validate() error {
	if err := validateToken("domain", c.Domain, MaxDomainLen); err != nil {
		return err
	}
	for i, id := range c.Identities {
		if err := validateToken(IdentityFields[i], id, MaxAuthorizationIDLen); err != nil {
			return err
		}
	}
	if err := validateHex("request", c.Request); err != nil {
		return err
	}
	if err := validateHex("binding", c.Binding); err != nil {
		return err
	}
	switch {
	case c.IssuedAt.IsZero():
		return &KeyError{Field: "issuedAt", Reason: ReasonEmpty}
	case c.ExpiresAt.IsZero():
		return &KeyError{Field: "expiresAt", Reason: ReasonEmpty}
	case c.IssuedAt.Nanosecond() != 0:
		return &KeyError{Field: "issuedAt", Reason: ReasonSeconds}
	case c.ExpiresAt.Nanosecond() != 0:
		return &KeyError{Field: "expiresAt", Reason: ReasonSeconds}
	case !c.IssuedAt.Before(c.ExpiresAt):
		return &KeyError{Field: "expiresAt", Reason: ReasonOrder}
	}
	return nil
}

// Same reports whether c and o are the same claim: every member equal,
// the times to the second (the precision every store keeps).
func (c Claim) Same(o Claim) bool {
	return c.Domain == o.Domain && c.Identities == o.Identities && c.Request == o.Request &&
		c.Binding == o.Binding && c.IssuedAt.Unix() == o.IssuedAt.Unix() && c.ExpiresAt.Unix() == o.ExpiresAt.Unix()
}

// ErrIdentityReused is matched (errors.Is) by every *IdentityReusedError:
// an identity of the claim is claimed by another request in the domain.
var ErrIdentityReused = errors.New("consume: identity claimed by another request")

// IdentityReusedError refuses a Claim: the identity Field names is claimed
// in the domain by a different request (or, transiently, by a claim a
// store is removing). Nothing was recorded. It names the field, never the
// value.
type IdentityReusedError struct {
	// Field is one of IdentityFields.
	Field string
}

func (e *IdentityReusedError) Error() string {
	return ErrIdentityReused.Error() + ": " + e.Field
}

// Is makes every *IdentityReusedError match ErrIdentityReused.
func (e *IdentityReusedError) Is(target error) bool { return target == ErrIdentityReused }

// Reused returns the refusal of a Claim whose identity i is claimed by
// another request.
func Reused(i int) error { return &IdentityReusedError{Field: IdentityFields[i]} }

// Resolve decides a Claim over what a store holds for its three
// identities, read in one atomic step (stored[i] is the claim recorded for
// c.Identities[i], or nil): when none is recorded it returns c and true
// (record c); when all three are the same claim and it was made by the
// same request, that claim and false (a retry: record nothing); otherwise
// an *IdentityReusedError naming the first identity claimed by another
// request (or, failing that, the first not held by that one claim).
func Resolve(c Claim, stored [3]*Claim) (Claim, bool, error) {
	if stored == [3]*Claim{} {
		return c, true, nil
	}
	for i, s := range stored {
		if s != nil && s.Request != c.Request {
			return Claim{}, false, Reused(i)
		}
	}
	for i, s := range stored {
		if s == nil || !s.Same(*stored[0]) {
			return Claim{}, false, Reused(i)
		}
	}
	return *stored[0], false, nil
}

func validateHex(field, s string) error {
	if len(s) != DigestLen {
		return &KeyError{Field: field, Reason: ReasonLength}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && (c < 'a' || c > 'f') {
			return &KeyError{Field: field, Reason: ReasonGrammar}
		}
	}
	return nil
}
