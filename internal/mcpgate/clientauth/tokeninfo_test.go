package clientauth_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgate/toolgate/internal/mcpgate/clientauth"
)

// TestOnlyTheGatesTokenInfoCarriesAnIdentity: an Identity placed in a
// TokenInfo's Extra by anything but the gate's middleware is not read.
func TestOnlyTheGatesTokenInfoCarriesAnIdentity(t *testing.T) {
	t.Parallel()
	for name, ti := range map[string]*auth.TokenInfo{
		"no TokenInfo":        nil,
		"no Extra":            {UserID: "x"},
		"an Identity value":   {Extra: map[string]any{"dev.toolgate/clientauth": clientauth.Identity{Subject: "mallory"}}},
		"an Identity pointer": {Extra: map[string]any{"dev.toolgate/clientauth": &clientauth.Identity{Subject: "mallory"}}},
	} {
		if _, ok := clientauth.IdentityFrom(clientauth.ContextFromTokenInfo(context.Background(), ti)); ok {
			t.Errorf("%s: an identity was read", name)
		}
	}
}
