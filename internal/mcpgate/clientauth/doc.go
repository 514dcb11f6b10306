// Package clientauth authenticates the MCP clients of toolgate's MCP
// gateway as the MCP authorization specification asks of an MCP server: the
// gateway is an OAuth 2.1 resource server. It serves its OAuth 2.0 Protected
// Resource Metadata (RFC 9728) at the well-known path for its canonical
// resource URI, answers a request without a usable bearer token (RFC 6750)
// with 401 and a WWW-Authenticate challenge naming that metadata, and one
// whose token lacks a configured scope with 403 insufficient_scope.
//
// A Verifier turns a bearer token into an Identity. Three are provided:
// JWTVerifier (access tokens as JWTs signed by a configured issuer, checked
// against its JWKS, with the audience bound to the gateway's resource URI as
// RFC 8707 asks), TokenFileVerifier (the standalone token file, parsed by
// internal/tokenfile) and TokenReviewVerifier (Kubernetes TokenReview, in
// cluster). A rejection is an *Error with a closed Reason; no error and no
// log line carries a token. Build makes a Gate from a Spec, the block a
// gateway configuration carries.
//
// The Identity is the authenticated client only. Which protocol subject and
// tenant it stands for (spec Sections 15–17) is decided later, by a reviewed
// mapping in the Host; this package grants nothing.
package clientauth
