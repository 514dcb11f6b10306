package consume

import "errors"

// Limits of a Key.
const (
	// MaxDomainLen is the longest Key.Domain: a DNS-1123 label, so that
	// "<domain>.<binding>" is a valid Kubernetes object name.
	MaxDomainLen = 63
	// BindingLen is the length of Key.Binding: a SHA-256 digest as
	// lowercase hex digits.
	BindingLen = 64
	// MaxAuthorizationIDLen bounds Record.AuthorizationID (a lower-token,
	// Section 49).
	MaxAuthorizationIDLen = 64
)

// Key names one Consumption: the Host authority domain (the HostAuthority
// UID in a cluster; any non-empty identifier of 1–63 lowercase alphanumerics
// or '-' in standalone mode) and the complete Consumption Binding digest as
// 64 lowercase hex digits.
//
// The domain must also begin and end with an alphanumeric (a DNS-1123
// label, like a lower-token and every Kubernetes UID): the apiserver names
// the record "<domain>.<binding>", and one grammar for every backend keeps a
// Key valid wherever it is stored.
type Key struct{ Domain, Binding string }

// ErrInvalidKey is matched (errors.Is) by every *KeyError.
var ErrInvalidKey = errors.New("consume: invalid key")

// KeyError rejects a malformed Key (or Authorization identity). It names the
// field and a constant reason and never the rejected value.
type KeyError struct {
	// Field is "domain", "binding", "key" (ParseKey: not <domain>.<binding>),
	// "authorizationID" or "expiresAt"; for a Claim also "replayID",
	// "consumptionID", "request" and "issuedAt".
	Field string
	// Reason is one of the Reason constants.
	Reason string
}

// Reasons of a KeyError.
const (
	ReasonEmpty   = "empty"
	ReasonTooLong = "too long"
	ReasonLength  = "wrong length"
	ReasonGrammar = "character outside the grammar"
	ReasonEdge    = "must begin and end with a lowercase letter or digit"
	ReasonFormat  = "not <domain>.<binding>"
	ReasonOrder   = "not after issuedAt"
	ReasonSeconds = "not a whole second"
)

func (e *KeyError) Error() string {
	return "consume: invalid key: " + e.Field + ": " + e.Reason
}

// Is makes every *KeyError match ErrInvalidKey.
func (e *KeyError) Is(target error) bool { return target == ErrInvalidKey }

// Validate reports whether k is well formed, as a *KeyError.
func (k Key) Validate() error {
	if err := validateToken("domain", k.Domain, MaxDomainLen); err != nil {
		return err
	}
	if len(k.Binding) != BindingLen {
		return &KeyError{Field: "binding", Reason: ReasonLength}
	}
	for i := 0; i < len(k.Binding); i++ {
		if c := k.Binding[i]; !isDigit(c) && (c < 'a' || c > 'f') {
			return &KeyError{Field: "binding", Reason: ReasonGrammar}
		}
	}
	return nil
}

// String returns "<domain>.<binding>", the form ParseKey reads and the
// apiserver object name.
func (k Key) String() string { return k.Domain + "." + k.Binding }

// ParseKey reads "<domain>.<binding>" (as Key.String writes it) and
// validates the result. Neither part can contain a dot, so the split is
// unambiguous.
func ParseKey(s string) (Key, error) {
	dot := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			if dot >= 0 {
				return Key{}, &KeyError{Field: "key", Reason: ReasonFormat}
			}
			dot = i
		}
	}
	if dot < 0 {
		return Key{}, &KeyError{Field: "key", Reason: ReasonFormat}
	}
	k := Key{Domain: s[:dot], Binding: s[dot+1:]}
	if err := k.Validate(); err != nil {
		return Key{}, err
	}
	return k, nil
}

// ValidateAuthorizationID reports whether id is a lower-token of at most
// MaxAuthorizationIDLen octets, as a *KeyError with Field "authorizationID".
func ValidateAuthorizationID(id string) error {
	return validateToken("authorizationID", id, MaxAuthorizationIDLen)
}

// validateToken checks the DNS-1123 label / lower-token grammar
// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ with a length bound.
func validateToken(field, s string, maxLen int) error {
	switch {
	case s == "":
		return &KeyError{Field: field, Reason: ReasonEmpty}
	case len(s) > maxLen:
		return &KeyError{Field: field, Reason: ReasonTooLong}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && (c < 'a' || c > 'z') && c != '-' {
			return &KeyError{Field: field, Reason: ReasonGrammar}
		}
	}
	if s[0] == '-' || s[len(s)-1] == '-' {
		return &KeyError{Field: field, Reason: ReasonEdge}
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
