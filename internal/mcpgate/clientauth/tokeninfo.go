package clientauth

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// tokenInfoKey is the auth.TokenInfo Extra member under which Middleware
// leaves the verified Identity. The SDK hands a request's TokenInfo to its
// handlers (RequestExtra.TokenInfo) but not the HTTP request's context, so
// this is how the Identity reaches an MCP method handler.
const tokenInfoKey = "dev.toolgate/clientauth"

// verified is unexported so only Middleware can make one: an Identity in a
// TokenInfo built elsewhere is not read.
type verified struct{ id Identity }

// ContextFromTokenInfo returns ctx carrying the Identity Middleware verified
// for the request whose SDK TokenInfo ti is (mcp.RequestExtra.TokenInfo),
// so IdentityFrom reads it; ctx itself when ti carries none.
func ContextFromTokenInfo(ctx context.Context, ti *auth.TokenInfo) context.Context {
	if ti == nil {
		return ctx
	}
	v, ok := ti.Extra[tokenInfoKey].(verified)
	if !ok {
		return ctx
	}
	return withIdentity(ctx, v.id)
}
