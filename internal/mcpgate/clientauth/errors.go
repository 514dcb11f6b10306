package clientauth

import "fmt"

// Reason is the closed vocabulary of rejections.
type Reason string

// The reasons a token, a request or a configuration rejects.
const (
	// ReasonMissingToken: the request carries no bearer token.
	ReasonMissingToken Reason = "missing_token"
	// ReasonInvalidRequest: the credential is not one well-formed
	// Authorization: Bearer header (RFC 6750 Section 3.1 invalid_request).
	ReasonInvalidRequest Reason = "invalid_request"
	// ReasonMalformed: the token is not a compact JWS JWT with the claims
	// an access token carries.
	ReasonMalformed Reason = "malformed_token"
	// ReasonAlgorithm: the token's signature algorithm is not one pinned
	// in the configuration (alg none never is).
	ReasonAlgorithm Reason = "algorithm_not_allowed"
	// ReasonUnknownKey: no key of the issuer's JWKS has the token's key ID,
	// even after a refresh.
	ReasonUnknownKey Reason = "unknown_key"
	// ReasonSignature: the signature does not verify.
	ReasonSignature Reason = "bad_signature"
	// ReasonIssuer: the token is not from the configured issuer.
	ReasonIssuer Reason = "wrong_issuer"
	// ReasonAudience: the token is not for this resource (RFC 8707).
	ReasonAudience Reason = "wrong_audience"
	// ReasonExpired: the token's exp is past, beyond the leeway.
	ReasonExpired Reason = "expired"
	// ReasonNotYetValid: the token's nbf or iat is ahead, beyond the
	// leeway.
	ReasonNotYetValid Reason = "not_yet_valid"
	// ReasonUnknownToken: the token file or the TokenReview API does not
	// know the token.
	ReasonUnknownToken Reason = "unknown_token"
	// ReasonInsufficientScope: the token lacks a scope the gateway
	// requires (RFC 6750 Section 3.1 insufficient_scope).
	ReasonInsufficientScope Reason = "insufficient_scope"
	// ReasonUnavailable: the verifier could not reach what vouches for
	// tokens (the JWKS, the TokenReview API); nothing is accepted.
	ReasonUnavailable Reason = "verifier_unavailable"
	// ReasonInvalidConfig: a configuration field is missing or invalid.
	ReasonInvalidConfig Reason = "invalid_config"
)

// Error is a rejection. Field is set for a configuration rejection (its
// path, as "jwt.issuer"); Detail is a constant sentence. Neither ever holds
// a token or a claim's value.
type Error struct {
	Reason Reason
	Field  string
	Detail string
}

func (e *Error) Error() string {
	msg := "clientauth: " + string(e.Reason)
	if e.Field != "" {
		msg += " at " + e.Field
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Is matches any *Error of the same Reason, so errors.Is(err,
// &Error{Reason: ReasonExpired}) asks for the reason alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason && (t.Field == "" || t.Field == e.Field)
}

func reject(r Reason, detail string) *Error { return &Error{Reason: r, Detail: detail} }

func configError(field, format string, args ...any) *Error {
	return &Error{Reason: ReasonInvalidConfig, Field: field, Detail: fmt.Sprintf(format, args...)}
}
